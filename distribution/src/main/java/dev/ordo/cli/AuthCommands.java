package dev.ordo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.cli.QueueCommands.ApiCommand;
import dev.ordo.cli.internal.ApiClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ordo auth principal add|list|remove|token|grants} and {@code ordo auth whoami}: the
 * principals of the HTTP API over {@code /v1/principals} (an admin of every namespace), and
 * {@code ordo audit}, the audit log (docs/security.md).
 */
final class AuthCommands {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private AuthCommands() {}

  @Command(name = "auth", header = "Manages the HTTP API's principals and tokens.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Principals hold grants (NAMESPACES:PERMISSIONS, e.g. team-a.*:produce,consume; permissions "
          + "produce, consume, operate, admin) and API tokens. Needs a token of an admin of every namespace "
          + "(--token or ORDO_TOKEN), e.g. the bootstrap token. See docs/security.md.",
      subcommands = {Principal.class, WhoAmI.class})
  static final class Auth extends CommandGroup {}

  @Command(name = "principal", header = "Adds, lists and removes principals; makes tokens.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      subcommands = {Add.class, ListPrincipals.class, Remove.class, Token.class, SqsCredential.class, Grants.class})
  static final class Principal extends CommandGroup {}

  @Command(name = "add", header = "Adds a principal and prints its first token (shown only this once).",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class)
  static final class Add extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NAME",
        description = "The principal's name; for mutual TLS, its certificate's subject (e.g. 'CN=worker-1,O=Acme').")
    String name;

    @Option(names = "--grant", paramLabel = "NS:PERMS", required = true,
        description = "A grant, e.g. 'shop:consume' or 'team-a.*:produce,consume' or '*:admin'; repeatable.")
    List<String> grants;

    @Option(names = "--no-token", description = "Make no token (a principal that authenticates by certificate).")
    boolean noToken;

    @Override
    void run(ApiClient api) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", name);
      body.put("grants", grants);
      body.put("token", !noToken);
      print(api.post("/v1/principals", body, TIMEOUT));
    }
  }

  @Command(name = "list", header = "Lists principals, one JSON object per line (token IDs, never secrets).",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class)
  static final class ListPrincipals extends ApiCommand {
    @Override
    void run(ApiClient api) {
      for (JsonNode p : api.get("/v1/principals", TIMEOUT).path("principals")) {
        print(p);
      }
    }
  }

  @Command(name = "remove", header = "Removes a principal and all its tokens.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class)
  static final class Remove extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Override
    void run(ApiClient api) {
      print(api.delete("/v1/principals/" + segment(name), TIMEOUT));
    }
  }

  @Command(name = "token", header = "Makes a new token for a principal (shown only this once), or revokes one.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class)
  static final class Token extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--revoke", paramLabel = "ID", description = "Revoke the token with this ID instead.")
    String revoke;

    @Override
    void run(ApiClient api) {
      if (revoke != null) {
        print(api.delete("/v1/principals/" + segment(name) + "/tokens/" + segment(revoke), TIMEOUT));
      } else {
        print(api.post("/v1/principals/" + segment(name) + "/tokens", Map.of(), TIMEOUT));
      }
    }
  }

  @Command(name = "sqs-credential", header = "Makes an SQS credential for a principal (access key id and secret for"
      + " AWS SDKs, the secret shown only this once), or revokes one.",
      description = "The SQS endpoint checks AWS Signature Version 4, which needs the secret on the server: unlike a"
          + " token's, it is kept as it is on <cluster>.principals (keep that topic readable by Ordo only;"
          + " docs/security.md).",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class)
  static final class SqsCredential extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--revoke", paramLabel = "ACCESS_KEY_ID", description = "Revoke this access key id instead.")
    String revoke;

    @Override
    void run(ApiClient api) {
      if (revoke != null) {
        print(api.delete("/v1/principals/" + segment(name) + "/sqs-credentials/" + segment(revoke), TIMEOUT));
      } else {
        print(api.post("/v1/principals/" + segment(name) + "/sqs-credentials", Map.of(), TIMEOUT));
      }
    }
  }

  @Command(name = "grants", header = "Replaces a principal's grants.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class)
  static final class Grants extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--grant", paramLabel = "NS:PERMS", required = true, description = "A grant; repeatable.")
    List<String> grants;

    @Override
    void run(ApiClient api) {
      try {
        print(api.put("/v1/principals/" + segment(name),
            new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(Map.of("grants", grants)), TIMEOUT));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Command(name = "whoami", header = "Prints who the token is and its grants.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class)
  static final class WhoAmI extends ApiCommand {
    @Override
    void run(ApiClient api) {
      print(api.get("/v1/whoami", TIMEOUT));
    }
  }

  @Command(name = "audit", header = "Prints the audit log, newest first, one JSON object per line.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Every call that changed policies, dead letters (redrive, purge) or principals, refused ones "
          + "too: time, principal, request, status and outcome (GET /v1/audit; an admin of every namespace).")
  static final class Audit extends ApiCommand {
    @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "Most entries (1-1000). Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(names = "--principal", paramLabel = "NAME", description = "Only this principal's.")
    String principal;

    @Override
    void run(ApiClient api) {
      String query = "?limit=" + limit + (principal == null ? "" : "&principal=" + segment(principal));
      for (JsonNode e : api.get("/v1/audit" + query, TIMEOUT).path("entries")) {
        print(e);
      }
    }
  }
}
