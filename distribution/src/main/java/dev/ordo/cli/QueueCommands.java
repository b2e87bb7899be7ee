package dev.ordo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.api.Durations;
import dev.ordo.api.ItemId;
import dev.ordo.cli.internal.ApiClient;
import dev.ordo.cli.internal.Converters;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The queue commands of {@code ordo}: thin clients of a server's HTTP API (docs/http-api.md) that
 * print what the server answers as JSON, one object per line, and end with one line on stderr
 * and a non-zero exit code when the server refuses (see {@link OrdoMain} for the codes).
 */
final class QueueCommands {
  private QueueCommands() {}

  /** Time an answer may take beyond the wait the command asked for. */
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** What every command over the HTTP API shares: {@code --server}, JSON lines out, one-line errors. */
  abstract static class ApiCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--server", paramLabel = "URL", defaultValue = "${env:ORDO_SERVER:-http://127.0.0.1:7070}",
        converter = Converters.ServerUrl.class, order = 100,
        description = "The Ordo server's HTTP address (environment: ORDO_SERVER). Default: ${DEFAULT-VALUE}.")
    URI server;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:ORDO_TOKEN}", order = 101,
        description = "An API token, sent as 'Authorization: Bearer' (environment: ORDO_TOKEN; docs/security.md).")
    String token;

    @Option(names = "--cacert", paramLabel = "FILE", defaultValue = "${env:ORDO_CACERT}", order = 102,
        description = "PEM certificates to trust for an https:// server (environment: ORDO_CACERT). Default: the JDK's.")
    java.nio.file.Path caCert;

    @Override
    public final Integer call() {
      try {
        run(new ApiClient(server, token, caCert));
        return 0;
      } catch (ApiClient.Failure f) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + f.getMessage());
        err.flush();
        return f.exitCode();
      }
    }

    abstract void run(ApiClient api);

    void print(JsonNode node) {
      PrintWriter out = spec.commandLine().getOut();
      out.println(ApiClient.line(node));
      out.flush();
    }

    /** A path segment: percent-encoded, spaces as %20 (the server reads '+' as itself). */
    static String segment(String s) {
      return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
  }

  @Command(name = "enqueue", header = "Enqueues an item and prints its ID.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Enqueues one item and prints its ID as {\"id\": \"<partition>-<offset>\"}. Unset options take "
          + "the queue's defaults (lease 30s, 5 attempts, no TTL).")
  static final class Enqueue extends ApiCommand {
    @Option(names = "--namespace", paramLabel = "NS", required = true, description = "The namespace.")
    String namespace;

    @Option(names = "--topic", paramLabel = "T", required = true, description = "The topic (created by enqueueing).")
    String topic;

    @Option(names = "--priority", paramLabel = "P", description = "Priority, lower is sooner (any int). Default: 0.")
    Integer priority;

    @Option(names = "--delay", paramLabel = "DUR", converter = Converters.DurationValue.class,
        description = "Not delivered before this (500ms, 30s, 5m, 2h, 1d).")
    Duration delay;

    @Option(names = "--lease", paramLabel = "DUR", converter = Converters.DurationValue.class,
        description = "How long a consumer holds it before it is redelivered, unless extended.")
    Duration lease;

    @Option(names = "--ttl", paramLabel = "DUR", converter = Converters.DurationValue.class,
        description = "Time to live from now, in any state.")
    Duration ttl;

    @Option(names = "--max-attempts", paramLabel = "N", converter = Converters.Positive.class,
        description = "Deliveries before a failure dead-letters it.")
    Integer maxAttempts;

    @Option(names = "--at-most-once",
        description = "Deliver it at most once: deleted, not redelivered, when its lease runs out or it is nacked or released.")
    boolean atMostOnce;

    @Option(names = "--group", paramLabel = "KEY", description = "Fairness group (also picks the partition).")
    String group;

    @Option(names = "--metadata", paramLabel = "M", description = "Metadata (text), which nacks may replace.")
    String metadata;

    @Option(names = "--dedup-id", paramLabel = "ID",
        description = "Deduplication ID (1-128 printable ASCII): a second item with it within the namespace's window"
            + " (5 minutes by default) is not enqueued; the answer then names the first item, with duplicate true.")
    String dedupId;

    @Option(names = "--header", paramLabel = "NAME=VALUE",
        description = "A header kept with the item and delivered with it (text, e.g. traceparent=00-...); repeat for"
            + " more, one value per name. Names starting with 'ordo.' are reserved.")
    java.util.List<String> headers;

    @Parameters(index = "0", paramLabel = "PAYLOAD", description = "The payload as text; '-' reads it from stdin.")
    String payload;

    @Override
    void run(ApiClient api) {
      Map<String, Object> body = new LinkedHashMap<>();
      if ("-".equals(payload)) {
        byte[] bytes;
        try {
          bytes = System.in.readAllBytes();
        } catch (IOException e) {
          throw new ApiClient.Failure(OrdoMain.EXIT_FAILURE, "cannot read the payload from stdin: " + e.getMessage());
        }
        String text = utf8(bytes);
        if (text != null) {
          body.put("payload", text);
        } else {
          body.put("payloadBase64", Base64.getEncoder().encodeToString(bytes));
        }
      } else {
        body.put("payload", payload);
      }
      putIf(body, "priority", priority);
      putIf(body, "delayMs", delay == null ? null : delay.toMillis());
      putIf(body, "leaseMs", lease == null ? null : lease.toMillis());
      putIf(body, "ttlMs", ttl == null ? null : ttl.toMillis());
      putIf(body, "maxAttempts", maxAttempts);
      if (atMostOnce) {
        body.put("atMostOnce", true);
      }
      putIf(body, "groupKey", group);
      putIf(body, "metadata", metadata);
      putIf(body, "dedupId", dedupId);
      if (headers != null && !headers.isEmpty()) {
        Map<String, String> h = new LinkedHashMap<>();
        for (String header : headers) {
          int eq = header.indexOf('=');
          if (eq <= 0) {
            throw new ApiClient.Failure(OrdoMain.EXIT_USAGE, "--header must be NAME=VALUE, got '" + header + "'");
          }
          if (h.put(header.substring(0, eq), header.substring(eq + 1)) != null) {
            throw new ApiClient.Failure(OrdoMain.EXIT_USAGE, "--header " + header.substring(0, eq)
                + " is given twice: one value per name");
          }
        }
        body.put("headers", h);
      }
      print(api.post("/v1/namespaces/" + segment(namespace) + "/topics/" + segment(topic) + "/items", body, TIMEOUT));
    }
  }

  @Command(name = "dequeue", header = "Leases items of a topic, best priority first, as JSON lines.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Leases up to N items of a topic, best priority first, and prints each as one JSON object: id, "
          + "lease, namespace, topic, priority, attempt, payload (or payloadBase64), metadata, enqueuedAt, "
          + "leaseExpiresAt, and headers (and headersBase64 for binary values) when the item has any. Waits up to --wait while nothing is ready; prints nothing if nothing comes. Ack, nack "
          + "or extend each item with its id and lease before the lease runs out.")
  static final class Dequeue extends ApiCommand {
    @Option(names = "--namespace", paramLabel = "NS", required = true, description = "The namespace.")
    String namespace;

    @Option(names = "--topic", paramLabel = "T", required = true, description = "The topic; '*' for any topic of the namespace.")
    String topic;

    @Option(names = "--count", paramLabel = "N", defaultValue = "1", converter = Converters.Positive.class,
        description = "Most items to lease. Default: ${DEFAULT-VALUE}.")
    int count;

    @Option(names = "--wait", paramLabel = "DUR", defaultValue = "0s", converter = Converters.DurationValue.class,
        description = "Long poll: wait up to this (at most 20s) while nothing is ready. Default: ${DEFAULT-VALUE} "
            + "(the server still waits a round trip through the queue, about 250 ms).")
    Duration wait;

    @Override
    void run(ApiClient api) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("topics", Map.of(topic, count));
      body.put("waitMs", wait.toMillis());
      JsonNode answer = api.post("/v1/namespaces/" + segment(namespace) + "/dequeue", body, wait.plus(TIMEOUT));
      for (JsonNode item : answer.path("items")) {
        print(item);
      }
    }
  }

  @Command(name = "ack", header = "Acknowledges a leased item: done, deleted.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Acknowledges a leased item: it is done and deleted. Exit 3 if the lease is stale (the item was "
          + "redelivered), 4 if the item is unknown (acked, expired, dead-lettered).")
  static final class Ack extends LeaseCommand {
    Ack() {
      super("ack");
    }
  }

  /** A command on a leased item that needs only its ID and lease: {@code POST /v1/items/{id}/<action>}. */
  abstract static class LeaseCommand extends ApiCommand {
    private final String action;

    @Parameters(index = "0", paramLabel = "ID", converter = Converters.ItemIdValue.class, description = "The item ID.")
    ItemId id;

    @Parameters(index = "1", paramLabel = "LEASE", description = "The lease it was dequeued with.")
    String lease;

    LeaseCommand(String action) {
      this.action = action;
    }

    @Override
    void run(ApiClient api) {
      print(api.post("/v1/items/" + id + "/" + action, Map.of("lease", lease), TIMEOUT));
    }
  }

  @Command(name = "release", header = "Gives a leased item back unused: ready again, no attempt counted.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Gives a leased item back unused, as a consumer that took more than it can handle does: it is "
          + "ready again at its place and the delivery does not count as an attempt. Exit 3 if the lease is stale, "
          + "4 if the item is unknown.")
  static final class Release extends LeaseCommand {
    Release() {
      super("release");
    }
  }

  @Command(name = "cancel", header = "Deletes an item in whatever state, leased or not.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Deletes an item whatever its state (ready, delayed, parked or leased: a consumer holding it "
          + "loses its lease, and its ack then answers unknown item). Needs no lease. Exit 4 if the item is "
          + "unknown (acked, expired, dead-lettered, cancelled already).")
  static final class Cancel extends ApiCommand {
    @Parameters(index = "0", paramLabel = "ID", converter = Converters.ItemIdValue.class, description = "The item ID.")
    ItemId id;

    @Override
    void run(ApiClient api) {
      print(api.post("/v1/items/" + id + "/cancel", Map.of(), TIMEOUT));
    }
  }

  @Command(name = "schedule", header = "Schedules a record for any Kafka topic, delivered at or after its due time.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "The delay service: writes VALUE (with --key and --header) to the existing topic --topic at or "
          + "after its due time (--delay from now, or --at), never before, through the delay tiers. Prints where it "
          + "was written first once that is durable; a delay shorter than the shortest tier is held by the server "
          + "and the command returns when the record is written to its topic.")
  static final class Schedule extends ApiCommand {
    @Option(names = "--topic", paramLabel = "T", required = true, description = "The Kafka topic the record is for.")
    String topic;

    @Option(names = "--key", paramLabel = "K", description = "The record's key (text). Default: none.")
    String key;

    @Option(names = "--header", paramLabel = "NAME=VALUE", description = "A header (text); repeat for more.")
    java.util.List<String> headers;

    @picocli.CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
    When when;

    static final class When {
      @Option(names = "--delay", paramLabel = "DUR", converter = Converters.DurationValue.class,
          description = "Due this long from now (500ms, 30s, 5m, 2h, 1d).")
      Duration delay;

      @Option(names = "--at", paramLabel = "TIME",
          description = "Due at this ISO-8601 UTC time, e.g. 2026-11-24T10:00:00Z.")
      String at;
    }

    @Parameters(index = "0", paramLabel = "VALUE", description = "The record's value as text; '-' reads it from stdin.")
    String value;

    @Override
    void run(ApiClient api) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("topic", topic);
      putIf(body, "key", key);
      if ("-".equals(value)) {
        byte[] bytes;
        try {
          bytes = System.in.readAllBytes();
        } catch (IOException e) {
          throw new ApiClient.Failure(OrdoMain.EXIT_FAILURE, "cannot read the value from stdin: " + e.getMessage());
        }
        String text = utf8(bytes);
        if (text != null) {
          body.put("value", text);
        } else {
          body.put("valueBase64", Base64.getEncoder().encodeToString(bytes));
        }
      } else {
        body.put("value", value);
      }
      if (headers != null && !headers.isEmpty()) {
        Map<String, String> h = new LinkedHashMap<>();
        for (String header : headers) {
          int eq = header.indexOf('=');
          if (eq <= 0) {
            throw new ApiClient.Failure(OrdoMain.EXIT_USAGE, "--header must be NAME=VALUE, got '" + header + "'");
          }
          h.put(header.substring(0, eq), header.substring(eq + 1));
        }
        body.put("headers", h);
      }
      if (when.delay != null) {
        body.put("delayMs", when.delay.toMillis());
      } else {
        body.put("dueAt", when.at);
      }
      Duration wait = when.delay == null ? Duration.ofMinutes(1) : when.delay;
      print(api.post("/v1/schedule", body, TIMEOUT.plus(wait)));
    }
  }

  @Command(name = "nack", header = "Gives a leased item back as failed, to retry after a delay.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Gives a leased item back as failed: ready again after --delay, or dead-lettered when its "
          + "attempts are used up. Exit 3 for a stale lease, 4 for an unknown item.")
  static final class Nack extends ApiCommand {
    @Parameters(index = "0", paramLabel = "ID", converter = Converters.ItemIdValue.class, description = "The item ID.")
    ItemId id;

    @Parameters(index = "1", paramLabel = "LEASE", description = "The lease it was dequeued with.")
    String lease;

    @Option(names = "--delay", paramLabel = "DUR", converter = Converters.DurationValue.class,
        description = "Wait before it is ready again. Default: at once.")
    Duration delay;

    @Option(names = "--metadata", paramLabel = "M", description = "New metadata (text) for the item.")
    String metadata;

    @Option(names = "--error", paramLabel = "TEXT", description = "Why it failed: kept in the item's history and dead letter.")
    String error;

    @Option(names = "--dead-letter", description = "To the dead letters now (reason REJECTED), whatever its attempts.")
    boolean deadLetter;

    @Override
    void run(ApiClient api) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("lease", lease);
      putIf(body, "delayMs", delay == null ? null : delay.toMillis());
      putIf(body, "metadata", metadata);
      putIf(body, "error", error);
      if (deadLetter) {
        body.put("deadLetter", true);
      }
      print(api.post("/v1/items/" + id + "/nack", body, TIMEOUT));
    }
  }

  @Command(name = "extend", header = "Extends the lease of an item (heartbeat).",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Extends a lease (heartbeat): it now ends DUR from when the queue applies this; prints the new "
          + "leaseExpiresAt. Exit 3 for a stale lease, 4 for an unknown item.")
  static final class Extend extends ApiCommand {
    @Parameters(index = "0", paramLabel = "ID", converter = Converters.ItemIdValue.class, description = "The item ID.")
    ItemId id;

    @Parameters(index = "1", paramLabel = "LEASE", description = "The lease it was dequeued with.")
    String lease;

    @Parameters(index = "2", paramLabel = "DUR", converter = Converters.DurationValue.class,
        description = "The lease's new length from now (500ms, 30s, 5m...).")
    Duration duration;

    @Override
    void run(ApiClient api) {
      if (duration.isZero()) {
        throw new ApiClient.Failure(OrdoMain.EXIT_USAGE, "DUR must be longer than 0, got " + Durations.format(duration));
      }
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("lease", lease);
      body.put("leaseMs", duration.toMillis());
      print(api.post("/v1/items/" + id + "/extend", body, TIMEOUT));
    }
  }

  @Command(name = "topics", header = "Lists the topics of a namespace with their counts.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Prints the namespace's active topics, one JSON object each: topic, ready, delayed, leased, "
          + "parked, headPriority, oldestReadyAgeMs. The counts are up to a second old.")
  static final class Topics extends ApiCommand {
    @Option(names = "--namespace", paramLabel = "NS", required = true, description = "The namespace.")
    String namespace;

    @Override
    void run(ApiClient api) {
      for (JsonNode topic : api.get("/v1/namespaces/" + segment(namespace) + "/topics", TIMEOUT).path("topics")) {
        print(topic);
      }
    }
  }

  @Command(name = "peek", header = "Shows the next items of a topic in dispatch order, leasing nothing.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Prints the next N ready items of the topic, one JSON object each, in the order the queue "
          + "would lease them: by priority, the fresh lane before the backlog lane, then ready time, and within a "
          + "partition in fair-queueing order. Nothing is leased. Partitions that cannot answer now (a rebalance) "
          + "are named on stderr.")
  static final class Peek extends ApiCommand {
    @Option(names = "--namespace", paramLabel = "NS", required = true, description = "The namespace.")
    String namespace;

    @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic.")
    String topic;

    @Option(names = {"-n", "--count"}, paramLabel = "N", defaultValue = "10",
        description = "How many items, 1..1000. Default: ${DEFAULT-VALUE}.")
    int count;

    @Override
    void run(ApiClient api) {
      JsonNode answer = api.get("/v1/namespaces/" + segment(namespace) + "/topics/" + segment(topic) + "/peek?n="
          + count, TIMEOUT);
      for (JsonNode item : answer.path("items")) {
        print(item);
      }
      if (answer.path("unavailable").size() > 0) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("peek: partitions " + answer.path("unavailable") + " could not answer now (retry)");
        err.flush();
      }
    }
  }

  @Command(name = "namespace", header = "Shows, sets or deletes a namespace's policy.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "A namespace's policy gives its items the defaults they leave empty (lease, time to live, "
          + "attempts, at-most-once, payload limit) and limits its admission rate and backlog; without one the "
          + "server's settings apply. See docs/queue.md.",
      subcommands = {NamespaceGet.class, NamespaceSet.class, NamespaceDelete.class})
  static final class Namespace extends CommandGroup {}

  @Command(name = "get", header = "Prints a namespace's policy as JSON.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Prints the policy, as GET /v1/namespaces/{ns}/policy answers it. Exit 4 if it has none.")
  static final class NamespaceGet extends NamespaceCommand {
    @Override
    void run(ApiClient api) {
      print(api.get(policyPath(), TIMEOUT));
    }
  }

  /** A command on one namespace's policy: the namespace is its first parameter. */
  abstract static class NamespaceCommand extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NS", description = "The namespace.")
    String namespace;

    String policyPath() {
      return "/v1/namespaces/" + segment(namespace) + "/policy";
    }
  }

  @Command(name = "set", header = "Replaces a namespace's policy.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Replaces the whole policy (a field not given is unset: the server's setting applies) and prints "
          + "it. Either flags or --json with the policy's JSON (docs/http-api.md). Exit 2 for a bad value, naming it.")
  static final class NamespaceSet extends NamespaceCommand {
    @Option(names = "--lease-ms", paramLabel = "MS", description = "Lease of items that set none.")
    Long leaseMs;

    @Option(names = "--ttl-ms", paramLabel = "MS", description = "Time to live of items that set none.")
    Long ttlMs;

    @Option(names = "--max-attempts", paramLabel = "N", description = "Deliveries before an item is dead-lettered.")
    Integer maxAttempts;

    @Option(names = "--at-most-once", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
        description = "Items that do not say are at-most-once.")
    Boolean atMostOnce;

    @Option(names = "--max-payload-bytes", paramLabel = "BYTES", description = "Largest payload of the namespace.")
    Integer maxPayloadBytes;

    @Option(names = "--admission-rate", paramLabel = "PER_SECOND",
        description = "Items admitted a second across the namespace; the rest wait in OVERFLOW.")
    Double admissionRate;

    @Option(names = "--admission-burst", paramLabel = "N",
        description = "Items admitted at once over the rate (default: one second's worth).")
    Long admissionBurst;

    @Option(names = "--max-backlog", paramLabel = "N",
        description = "Items waiting across the namespace at which producers are refused (HTTP 429).")
    Long maxBacklog;

    @Option(names = "--dispatch-rate", paramLabel = "PER_SECOND",
        description = "Items leased a second across the namespace; demands wait for it.")
    Double dispatchRate;

    @Option(names = "--dispatch-burst", paramLabel = "N",
        description = "Items leased at once over the dispatch rate (default: one second's worth).")
    Long dispatchBurst;

    @Option(names = "--sideline-after-ms", paramLabel = "MS",
        description = "Ready items older than this go to their topic's backlog lane, served after fresh items.")
    Long sidelineAfterMs;

    @Option(names = "--dedup-window-ms", paramLabel = "MS",
        description = "How long a deduplication ID refuses duplicates after its first item (default 300000; 0: off).")
    Long dedupWindowMs;

    @Option(names = "--group-concurrency", paramLabel = "N",
        description = "At most N items of one group key leased at once.")
    Integer groupConcurrency;

    @Option(names = "--group-limit", paramLabel = "GROUP=N",
        description = "A group key's own limit of items leased at once (repeatable).")
    Map<String, Integer> groupLimits;

    @Option(names = "--group-weight", paramLabel = "GROUP=WEIGHT",
        description = "A group key's weight in fair queueing, default 1 (repeatable).")
    Map<String, Double> groupWeights;

    @Option(names = "--group-rate", paramLabel = "PER_SECOND[:BURST]",
        description = "Items of one group key leased a second, BURST at once (default: one second's worth); a group "
            + "over it waits, the others are not slowed (docs/queue.md, \"Group rates\").")
    String groupRate;

    @Option(names = "--group-rate-for", paramLabel = "GROUP=PER_SECOND[:BURST]",
        description = "A group key's own rate in place of --group-rate (repeatable).")
    Map<String, String> groupRatesFor;

    @Option(names = "--topic-weight", paramLabel = "TOPIC=WEIGHT",
        description = "A topic's weight within the namespace, default 1: a dequeue over several topics shares its "
            + "items between the ready topics by weight, within priority order (repeatable).")
    Map<String, Double> topicWeights;

    @Option(names = "--ordered", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
        description = "Each group key's items leased one at a time in enqueue order, a nacked item staying its "
            + "group's head (docs/queue.md, \"Ordered groups\").")
    Boolean ordered;

    @Option(names = "--ordered-topic", paramLabel = "TOPIC=BOOL",
        description = "A topic ordered or not in place of --ordered (repeatable).")
    Map<String, Boolean> orderedTopics;

    @Option(names = "--shards", paramLabel = "K",
        description = "Shuffle sharding: each group key's items spread over its own combination of K of the queue's "
            + "partitions, the producer picking the least loaded, group limits and rates split over them; 1 (the "
            + "default): one partition per group key (docs/queue.md, \"Shuffle sharding\").")
    Integer shards;

    @Option(names = "--json", paramLabel = "JSON", description = "The whole policy as JSON, instead of the flags.")
    String json;

    /** The policy's JSON fields the flags give (empty when no flag is given). */
    Map<String, Object> policyFromFlags() {
      Map<String, Object> defaults = new java.util.LinkedHashMap<>();
      putIf(defaults, "leaseMs", leaseMs);
      putIf(defaults, "ttlMs", ttlMs);
      putIf(defaults, "maxAttempts", maxAttempts);
      putIf(defaults, "atMostOnce", atMostOnce);
      putIf(defaults, "maxPayloadBytes", maxPayloadBytes);
      Map<String, Object> policy = new java.util.LinkedHashMap<>();
      if (!defaults.isEmpty()) {
        policy.put("defaults", defaults);
      }
      putRate(policy, "admissionRate", admissionRate, admissionBurst);
      putIf(policy, "maxBacklog", maxBacklog);
      putRate(policy, "dispatchRate", dispatchRate, dispatchBurst);
      putIf(policy, "sidelineAfterMs", sidelineAfterMs);
      putIf(policy, "dedupWindowMs", dedupWindowMs);
      putIf(policy, "groupConcurrency", groupConcurrency);
      putIf(policy, "groupConcurrencyOverrides", groupLimits);
      putIf(policy, "groupWeights", groupWeights);
      putIf(policy, "groupRate", groupRate == null ? null : rateSpec("--group-rate", groupRate));
      if (groupRatesFor != null) {
        Map<String, Object> rates = new java.util.LinkedHashMap<>();
        groupRatesFor.forEach((group, spec) -> rates.put(group, rateSpec("--group-rate-for " + group, spec)));
        policy.put("groupRateOverrides", rates);
      }
      putIf(policy, "topicWeights", topicWeights);
      putIf(policy, "ordered", ordered);
      putIf(policy, "orderedTopics", orderedTopics);
      putIf(policy, "shards", shards);
      return policy;
    }

    @Override
    void run(ApiClient api) {
      Map<String, Object> fromFlags = policyFromFlags();
      if (json != null && !fromFlags.isEmpty()) {
        throw new ApiClient.Failure(OrdoMain.EXIT_USAGE, "give the policy either as flags or as --json, not both");
      }
      String body = json != null ? json
          : ApiClient.line(new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(fromFlags));
      print(api.put(policyPath(), body, TIMEOUT));
    }
  }

  /**
   * {@code PER_SECOND[:BURST]} as {@code {"perSecond", "burst"}} (the burst left to the server's default when
   * not given); a usage error naming {@code flag} when it is not two numbers. Ranges are the server's to check.
   */
  static Map<String, Object> rateSpec(String flag, String spec) {
    String[] parts = spec.split(":", -1);
    Map<String, Object> rate = new java.util.LinkedHashMap<>();
    try {
      if (parts.length > 2) {
        throw new NumberFormatException();
      }
      rate.put("perSecond", Double.parseDouble(parts[0].trim()));
      if (parts.length == 2) {
        rate.put("burst", Long.parseLong(parts[1].trim()));
      }
    } catch (NumberFormatException e) {
      throw new ApiClient.Failure(OrdoMain.EXIT_USAGE, flag + ": expected PER_SECOND[:BURST] (e.g. 2 or 2:10), got '"
          + spec + "'");
    }
    return rate;
  }

  /** {@code {"perSecond", "burst"}} under {@code field} when either is given. */
  private static void putRate(Map<String, Object> policy, String field, Double perSecond, Long burst) {
    if (perSecond != null || burst != null) {
      Map<String, Object> rate = new java.util.LinkedHashMap<>();
      putIf(rate, "perSecond", perSecond);
      putIf(rate, "burst", burst);
      policy.put(field, rate);
    }
  }

  @Command(name = "delete", header = "Deletes a namespace's policy: the server's settings apply again.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Deletes the policy (a tombstone on <cluster>.namespaces) and prints {\"namespace\", \"deleted\"}.")
  static final class NamespaceDelete extends NamespaceCommand {
    @Override
    void run(ApiClient api) {
      print(api.delete(policyPath(), TIMEOUT));
    }
  }

  @Command(name = "item", header = "Shows an item's state.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Prints an item's state as its partition's store holds it (state, attempts, lease times, "
          + "history...). Exit 4 if the queue does not hold it.")
  static final class Item extends ApiCommand {
    @Parameters(index = "0", paramLabel = "ID", converter = Converters.ItemIdValue.class, description = "The item ID.")
    ItemId id;

    @Override
    void run(ApiClient api) {
      print(api.get("/v1/items/" + id, TIMEOUT));
    }
  }

  private static void putIf(Map<String, Object> body, String name, Object value) {
    if (value != null) {
      body.put(name, value);
    }
  }

  /** The text of {@code bytes} if they are valid UTF-8, else null. */
  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
