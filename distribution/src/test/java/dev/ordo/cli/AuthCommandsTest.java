package dev.ordo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.OrdoServer;
import dev.ordo.server.ServerConfig;
import dev.ordo.server.ServerSettings;
import dev.ordo.server.StartupException;
import dev.ordo.server.TestServer;
import dev.ordo.server.auth.SecurityConfig;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ordo auth ...}, {@code ordo audit} and {@code --token} against a server with tokens on. */
class AuthCommandsTest {
  private static final String BOOTSTRAP = "bootstrap-token-for-the-cli-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path tmp;

  private static RealKafka kafka;
  private static TestServer server;

  @BeforeAll
  static void start() {
    kafka = RealKafka.start(1);
    server = TestServer.startWithSettings(kafka, "cliauth", tmp.resolve("s"),
        Map.of(SecurityConfig.AUTH, "token", SecurityConfig.BOOTSTRAP_TOKEN, BOOTSTRAP));
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  private static Cli.Result ordo(String token, String... args) {
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.addAll(List.of("--server", server.address().toString()));
    if (token != null) {
      all.addAll(List.of("--token", token));
    }
    return Cli.run(all.toArray(new String[0]));
  }

  @Test
  void principalsAreManagedFromTheCommandLineAndTheirTokensWork() throws Exception {
    Cli.Result added = ordo(BOOTSTRAP, "auth", "principal", "add", "worker", "--grant", "shop:produce,consume");
    assertEquals(0, added.exitCode(), added.err());
    String token = JSON.readTree(added.out()).get("token").asText();
    assertTrue(token.startsWith("ordo_"), added.out());

    Cli.Result who = ordo(token, "auth", "whoami");
    assertEquals("worker", JSON.readTree(who.out()).get("principal").asText(), who.err());
    assertEquals(0, ordo(token, "enqueue", "--namespace", "shop", "--topic", "t", "x").exitCode());
    Cli.Result refused = ordo(token, "enqueue", "--namespace", "other", "--topic", "t", "x");
    assertEquals(OrdoMain.EXIT_FAILURE, refused.exitCode());
    assertTrue(refused.err().contains("'produce'"), refused.err());
    Cli.Result anonymous = ordo(null, "topics", "--namespace", "shop");
    assertEquals(OrdoMain.EXIT_FAILURE, anonymous.exitCode());
    assertTrue(anonymous.err().contains("--token"), anonymous.err());

    Cli.Result listed = ordo(BOOTSTRAP, "auth", "principal", "list");
    assertTrue(listed.out().contains("\"worker\"") && !listed.out().contains(token.substring(18)), listed.out());
    Cli.Result second = ordo(BOOTSTRAP, "auth", "principal", "token", "worker");
    assertEquals(0, second.exitCode(), second.err());
    String tokenId = JSON.readTree(listed.out().lines().filter(l -> l.contains("\"worker\"")).findFirst().orElseThrow())
        .get("tokens").get(0).get("id").asText();
    assertEquals(0, ordo(BOOTSTRAP, "auth", "principal", "token", "worker", "--revoke", tokenId).exitCode());
    assertEquals(OrdoMain.EXIT_FAILURE, ordo(token, "auth", "whoami").exitCode(), "revoked");
    String other = JSON.readTree(second.out()).get("token").asText();
    assertEquals(0, ordo(other, "auth", "whoami").exitCode(), "the second token still works");

    Cli.Result sqs = ordo(BOOTSTRAP, "auth", "principal", "sqs-credential", "worker");
    assertEquals(0, sqs.exitCode(), sqs.err());
    String accessKeyId = JSON.readTree(sqs.out()).get("accessKeyId").asText();
    assertTrue(accessKeyId.startsWith("OR") && JSON.readTree(sqs.out()).get("secretAccessKey").asText().length() == 40,
        sqs.out());
    Cli.Result withKey = ordo(BOOTSTRAP, "auth", "principal", "list");
    assertTrue(withKey.out().contains(accessKeyId) && !withKey.out().contains(JSON.readTree(sqs.out())
        .get("secretAccessKey").asText()), "the key id listed, never its secret: " + withKey.out());
    assertEquals(0, ordo(BOOTSTRAP, "auth", "principal", "sqs-credential", "worker", "--revoke", accessKeyId)
        .exitCode());
    assertTrue(!ordo(BOOTSTRAP, "auth", "principal", "list").out().contains(accessKeyId), "revoked");

    assertEquals(0, ordo(BOOTSTRAP, "auth", "principal", "remove", "worker").exitCode());
    assertEquals(OrdoMain.EXIT_FAILURE, ordo(other, "auth", "whoami").exitCode(), "removed with its tokens");
    Cli.Result audit = ordo(BOOTSTRAP, "audit", "--principal", "bootstrap-admin");
    assertEquals(0, audit.exitCode(), audit.err());
    List<JsonNode> entries = audit.out().lines().map(l -> {
      try {
        return JSON.readTree(l);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }).toList();
    assertTrue(entries.stream().anyMatch(e -> e.get("method").asText().equals("DELETE")
        && e.get("path").asText().equals("/v1/principals/worker")), audit.out());
    assertTrue(entries.stream().anyMatch(e -> e.get("method").asText().equals("POST")
        && e.get("path").asText().equals("/v1/principals") && e.get("status").asInt() == 201), audit.out());
    assertFalse(audit.out().contains(token), "no token in the audit log");
  }

  @Test
  void withoutAuthenticationTheServerRefusesToListenBeyondLoopbackUnlessTold() {
    ServerConfig open = ServerConfig.builder().bootstrapServers(kafka.bootstrapServers()).cluster("open")
        .stateDir(tmp.resolve("open")).httpHost("0.0.0.0").httpPort(0).build();
    try (OrdoServer refused = new OrdoServer(open, List.of())) {
      StartupException e = assertThrows(StartupException.class, refused::start);
      assertTrue(e.getMessage().contains("--insecure-http") && !e.getMessage().contains("\n"), e.getMessage());
    }
    ServerConfig told = open.toBuilder().stateDir(tmp.resolve("told"))
        .settings(ServerSettings.of(Map.of(SecurityConfig.INSECURE, "true"), "the test")).build();
    try (OrdoServer insecure = new OrdoServer(told, List.of())) {
      insecure.start();
      assertTrue(insecure.httpAddress().getPort() > 0);
    }
  }
}
