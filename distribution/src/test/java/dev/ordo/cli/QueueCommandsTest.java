package dev.ordo.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.Components;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The queue commands of {@code ordo}, run in this JVM against {@code ordo server} (the standard
 * components) on a real Kafka cluster: what they print and their exit codes.
 */
@KafkaCluster
class QueueCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path tmp;

  private static Cli.Running running;
  private static String server;

  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    running = Cli.start(Components::standard, "server", "--bootstrap-servers", kafka.bootstrapServers(),
        "--cluster", "cli", "--state-dir", tmp.resolve("server").toString(), "--http-port", "0");
    server = running.server().httpAddress().toString();
    HttpClient http = HttpClient.newHttpClient();
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() ->
        http.send(HttpRequest.newBuilder(URI.create(server + "/health")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
  }

  @AfterAll
  static void stop() throws Exception {
    if (running != null) {
      assertEquals(0, running.stop().exitCode());
    }
  }

  private static Cli.Result ordo(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--server");
    all.add(server);
    return Cli.run(all.toArray(String[]::new));
  }

  private static List<JsonNode> lines(Cli.Result r) {
    return r.out().lines().filter(l -> !l.isBlank()).map(l -> {
      try {
        return JSON.readTree(l);
      } catch (Exception e) {
        throw new AssertionError("not a JSON line: " + l, e);
      }
    }).toList();
  }

  private static JsonNode one(Cli.Result r) {
    assertEquals(0, r.exitCode(), () -> "exit code; stderr: " + r.err());
    List<JsonNode> lines = lines(r);
    assertEquals(1, lines.size(), r::out);
    return lines.get(0);
  }

  private static void assertRefused(Cli.Result r, int code, String expected) {
    assertEquals(code, r.exitCode(), () -> "exit code; out: " + r.out() + " err: " + r.err());
    assertEquals("", r.out(), "nothing on stdout");
    assertEquals(1, r.errLines().size(), () -> "one line on stderr: " + r.err());
    assertTrue(r.errLines().get(0).contains(expected), () -> "want '" + expected + "' in " + r.err());
    assertFalse(r.err().contains("Exception"), r::err);
  }

  /**
   * {@code ordo item} refuses {@code id} as unknown, once the command that removed it is committed: a
   * look-up reads the store as of the queue's last commit, which an answer may precede (docs/http-api.md,
   * "Interactive queries"; decisions D39), so right after the answer it may still show the item.
   */
  private static void assertUnknownOnceCommitted(String id, String expected) {
    Cli.Result[] last = new Cli.Result[1];
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
      last[0] = ordo("item", id);
      return last[0].exitCode() == OrdoMain.EXIT_UNKNOWN_ITEM;
    });
    assertRefused(last[0], OrdoMain.EXIT_UNKNOWN_ITEM, expected);
  }

  /** Dequeues until {@code n} items came, each call long-polling. */
  private static List<JsonNode> dequeue(String ns, String topic, int n) {
    List<JsonNode> got = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Cli.Result r = ordo("dequeue", "--namespace", ns, "--topic", topic, "--count", "" + (n - got.size()),
          "--wait", "2s");
      assertEquals(0, r.exitCode(), r::err);
      got.addAll(lines(r));
      return got.size() >= n;
    });
    return got;
  }

  @Test
  void enqueueDequeueExtendAndAck() {
    JsonNode enqueued = one(ordo("enqueue", "--namespace", "cli", "--topic", "jobs", "--priority", "-2",
        "--lease", "20s", "--ttl", "1h", "--max-attempts", "3", "--group", "g", "--metadata", "m1", "hello world"));
    String id = enqueued.get("id").asText();
    assertTrue(id.matches("\\d+-\\d+"), id);

    JsonNode item = dequeue("cli", "jobs", 1).get(0);
    assertEquals(id, item.get("id").asText());
    assertEquals("hello world", item.get("payload").asText());
    assertEquals("m1", item.get("metadata").asText());
    assertEquals(-2, item.get("priority").asInt());
    assertEquals(1, item.get("attempt").asInt());
    assertEquals("g", item.get("groupKey").asText());
    String lease = item.get("lease").asText();

    JsonNode extended = one(ordo("extend", id, lease, "5m"));
    assertEquals("APPLIED", extended.get("result").asText());
    assertTrue(Instant.parse(extended.get("leaseExpiresAt").asText()).isAfter(Instant.now().plusSeconds(240)));

    JsonNode state = one(ordo("item", id));
    assertEquals("LEASED", state.get("state").asText());
    assertEquals(3, state.get("maxAttempts").asInt());

    JsonNode acked = one(ordo("ack", id, lease));
    assertEquals("APPLIED", acked.get("result").asText());
    assertEquals(id, acked.get("id").asText());

    assertRefused(ordo("ack", id, lease), OrdoMain.EXIT_UNKNOWN_ITEM, "ordo ack: unknown item " + id);
    assertUnknownOnceCommitted(id, "ordo item: unknown item " + id);
  }

  @Test
  void namespaceSetGetAndDeleteAPolicy() {
    assertRefused(ordo("namespace", "get", "cli-ns"), OrdoMain.EXIT_UNKNOWN_ITEM, "has no policy");
    JsonNode set = one(ordo("namespace", "set", "cli-ns", "--lease-ms", "45000", "--max-attempts", "4", "--at-most-once"));
    assertEquals(45_000, set.get("defaults").get("leaseMs").asLong());
    JsonNode got = one(ordo("namespace", "get", "cli-ns"));
    assertEquals(4, got.get("defaults").get("maxAttempts").asInt());
    assertTrue(got.get("defaults").get("atMostOnce").asBoolean());
    assertRefused(ordo("namespace", "set", "cli-ns", "--lease-ms", "0"), OrdoMain.EXIT_USAGE, "defaults.leaseMs");
    JsonNode viaJson = one(ordo("namespace", "set", "cli-ns", "--json", "{\"defaults\": {\"ttlMs\": 60000}}"));
    assertEquals(60_000, viaJson.get("defaults").get("ttlMs").asLong());
    JsonNode limits = one(ordo("namespace", "set", "cli-ns", "--admission-rate", "50", "--admission-burst", "5",
        "--max-backlog", "1000", "--dispatch-rate", "20", "--sideline-after-ms", "30000"));
    assertEquals(50.0, limits.get("admissionRate").get("perSecond").asDouble());
    assertEquals(5, limits.get("admissionRate").get("burst").asLong());
    assertEquals(1000, limits.get("maxBacklog").asLong());
    assertEquals(20.0, limits.get("dispatchRate").get("perSecond").asDouble());
    assertEquals(20, limits.get("dispatchRate").get("burst").asLong(), "the burst defaults to one second's worth");
    assertEquals(30_000, one(ordo("namespace", "get", "cli-ns")).get("sidelineAfterMs").asLong());
    assertRefused(ordo("namespace", "set", "cli-ns", "--dispatch-rate", "0"), OrdoMain.EXIT_USAGE,
        "dispatchRate.perSecond");
    JsonNode groups = one(ordo("namespace", "set", "cli-ns", "--group-concurrency", "3", "--group-limit", "bob=1",
        "--group-weight", "alice=2", "--group-weight", "bob=0.5"));
    assertEquals(3, groups.get("groupConcurrency").asInt());
    assertEquals(1, groups.get("groupConcurrencyOverrides").get("bob").asInt());
    assertEquals(2.0, groups.get("groupWeights").get("alice").asDouble());
    assertEquals(0.5, groups.get("groupWeights").get("bob").asDouble());
    JsonNode rates = one(ordo("namespace", "set", "cli-ns", "--group-rate", "2:5", "--group-rate-for", "big=50",
        "--group-rate-for", "tiny=0.5:1"));
    assertEquals(2.0, rates.get("groupRate").get("perSecond").asDouble(), rates::toString);
    assertEquals(5, rates.get("groupRate").get("burst").asLong());
    assertEquals(50, rates.get("groupRateOverrides").get("big").get("burst").asLong(), "one second's worth by default");
    JsonNode tiny = one(ordo("namespace", "get", "cli-ns")).get("groupRateOverrides").get("tiny");
    assertEquals(0.5, tiny.get("perSecond").asDouble());
    assertEquals(1, tiny.get("burst").asLong());
    assertRefused(ordo("namespace", "set", "cli-ns", "--group-rate", "fast"), OrdoMain.EXIT_USAGE, "--group-rate");
    assertRefused(ordo("namespace", "set", "cli-ns", "--group-rate-for", "big=0"), OrdoMain.EXIT_USAGE,
        "groupRateOverrides.big.perSecond");
    JsonNode topics = one(ordo("namespace", "set", "cli-ns", "--topic-weight", "emails=3", "--topic-weight", "sms=1"));
    assertEquals(3.0, topics.get("topicWeights").get("emails").asDouble());
    assertEquals(1.0, one(ordo("namespace", "get", "cli-ns")).get("topicWeights").get("sms").asDouble());
    assertRefused(ordo("namespace", "set", "cli-ns", "--topic-weight", "emails=0"), OrdoMain.EXIT_USAGE,
        "topicWeights.emails");
    assertEquals(60_000, one(ordo("namespace", "set", "cli-ns", "--dedup-window-ms", "60000")).get("dedupWindowMs").asLong());
    assertEquals(60_000, one(ordo("namespace", "get", "cli-ns")).get("dedupWindowMs").asLong());
    assertRefused(ordo("namespace", "set", "cli-ns", "--dedup-window-ms", "-1"), OrdoMain.EXIT_USAGE, "dedupWindowMs");
    JsonNode ordered = one(ordo("namespace", "set", "cli-ns", "--ordered", "--ordered-topic", "free=false",
        "--ordered-topic", "fifo=true"));
    assertTrue(ordered.get("ordered").asBoolean(), ordered::toString);
    assertFalse(ordered.get("orderedTopics").get("free").asBoolean(), ordered::toString);
    assertTrue(one(ordo("namespace", "get", "cli-ns")).get("orderedTopics").get("fifo").asBoolean());
    assertFalse(one(ordo("namespace", "set", "cli-ns", "--ordered=false")).get("ordered").asBoolean());
    assertEquals(2, one(ordo("namespace", "set", "cli-ns", "--shards", "2")).get("shards").asInt());
    assertEquals(2, one(ordo("namespace", "get", "cli-ns")).get("shards").asInt());
    assertRefused(ordo("namespace", "set", "cli-ns", "--shards", "0"), OrdoMain.EXIT_USAGE, "shards");
    assertTrue(one(ordo("namespace", "delete", "cli-ns")).get("deleted").asBoolean());
    assertRefused(ordo("namespace", "get", "cli-ns"), OrdoMain.EXIT_UNKNOWN_ITEM, "has no policy");
  }

  @Test
  void anEnqueueWithADedupIdSentTwiceNamesTheFirstItem() {
    JsonNode first = one(ordo("enqueue", "--namespace", "dd", "--topic", "t", "--dedup-id", "job-7", "x"));
    assertFalse(first.get("duplicate").asBoolean());
    JsonNode again = one(ordo("enqueue", "--namespace", "dd", "--topic", "t", "--dedup-id", "job-7", "y"));
    assertTrue(again.get("duplicate").asBoolean(), again::toString);
    assertEquals(first.get("id").asText(), again.get("id").asText());
    assertRefused(ordo("enqueue", "--namespace", "dd", "--topic", "t", "--dedup-id", "a b", "x"), OrdoMain.EXIT_USAGE,
        "dedupId");
  }

  @Test
  void releaseGivesAnItemBackUncountedAndCancelDeletesOne() {
    String id = one(ordo("enqueue", "--namespace", "rel", "--topic", "t", "x")).get("id").asText();
    JsonNode first = dequeue("rel", "t", 1).get(0);
    JsonNode released = one(ordo("release", id, first.get("lease").asText()));
    assertEquals("APPLIED", released.get("result").asText());
    assertRefused(ordo("release", id, first.get("lease").asText()), OrdoMain.EXIT_STALE_LEASE,
        "ordo release: stale lease for item " + id);
    JsonNode second = dequeue("rel", "t", 1).get(0);
    assertEquals(1, second.get("attempt").asInt(), "a release is not an attempt");

    JsonNode cancelled = one(ordo("cancel", id));
    assertEquals("APPLIED", cancelled.get("result").asText());
    assertRefused(ordo("ack", id, second.get("lease").asText()), OrdoMain.EXIT_UNKNOWN_ITEM, "unknown item " + id);
    assertRefused(ordo("cancel", id), OrdoMain.EXIT_UNKNOWN_ITEM, "ordo cancel: unknown item " + id);
    assertRefused(ordo("cancel", "nonsense"), OrdoMain.EXIT_USAGE, "nonsense");
  }

  @Test
  void scheduleWritesTheRecordToItsTopicNoEarlierThanDue(RealKafka kafka) throws Exception {
    String topic = "cli-scheduled";
    kafka.createTopics(1, topic);
    long before = System.currentTimeMillis();
    JsonNode scheduled = one(ordo("schedule", "--topic", topic, "--key", "k1", "--header", "trace=abc", "--delay",
        "700ms", "the value"));
    assertEquals(topic, scheduled.get("topic").asText());
    long due = Instant.parse(scheduled.get("dueAt").asText()).toEpochMilli();
    assertTrue(due >= before + 700, scheduled::toString);
    assertEquals(topic, scheduled.get("writtenTo").get("topic").asText(),
        "shorter than the shortest tier: held by the server and written to its topic, then answered");

    java.util.Properties props = kafka.clientProperties();
    try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(props,
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.StringDeserializer())) {
      org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>> got = new ArrayList<>();
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        consumer.poll(Duration.ofMillis(200)).forEach(got::add);
        return !got.isEmpty();
      });
      org.apache.kafka.clients.consumer.ConsumerRecord<String, String> r = got.get(0);
      assertEquals("k1", r.key());
      assertEquals("the value", r.value());
      assertEquals("abc", new String(r.headers().lastHeader("trace").value(), java.nio.charset.StandardCharsets.UTF_8));
    }
    assertRefused(ordo("schedule", "--topic", "no-such-topic-here", "--delay", "1s", "v"), OrdoMain.EXIT_USAGE,
        "no-such-topic-here");
    assertRefused(ordo("schedule", "--topic", topic, "--delay", "1s", "--header", "novalue", "v"), OrdoMain.EXIT_USAGE,
        "--header");
  }

  @Test
  void nackGivesTheItemBackWithNewMetadataAndAStaleLeaseIsRefused() {
    String id = one(ordo("enqueue", "--namespace", "cli-nack", "--topic", "jobs", "payload")).get("id").asText();
    JsonNode first = dequeue("cli-nack", "jobs", 1).get(0);
    String lease = first.get("lease").asText();
    assertRefused(ordo("nack", id, "wrong-lease"), OrdoMain.EXIT_STALE_LEASE, "ordo nack: stale lease for item " + id);
    assertRefused(ordo("extend", id, "wrong-lease", "10s"), OrdoMain.EXIT_STALE_LEASE, "stale lease");

    JsonNode nacked = one(ordo("nack", id, lease, "--delay", "300ms", "--metadata", "try 2"));
    assertEquals("APPLIED", nacked.get("result").asText());
    assertRefused(ordo("ack", id, lease), OrdoMain.EXIT_STALE_LEASE, "ordo ack: stale lease");

    JsonNode second = dequeue("cli-nack", "jobs", 1).get(0);
    assertEquals(id, second.get("id").asText());
    assertEquals(2, second.get("attempt").asInt());
    assertEquals("try 2", second.get("metadata").asText());
    one(ordo("ack", id, second.get("lease").asText()));
  }

  @Test
  void nackCanDeadLetterTheItemWithAnError() {
    String id = one(ordo("enqueue", "--namespace", "cli-dl", "--topic", "jobs", "bad input")).get("id").asText();
    JsonNode item = dequeue("cli-dl", "jobs", 1).get(0);
    JsonNode nacked = one(ordo("nack", id, item.get("lease").asText(), "--error", "cannot parse", "--dead-letter"));
    assertEquals("APPLIED", nacked.get("result").asText());
    assertEquals("REJECTED", nacked.get("deadLetterReason").asText(), nacked::toString);
    assertUnknownOnceCommitted(id, id);
  }

  @Test
  void dequeuePrintsOneLinePerItemBestFirstAndNothingWhenEmpty() {
    for (int p : new int[] {7, 0, 3}) {
      one(ordo("enqueue", "--namespace", "cli-many", "--topic", "t", "--priority", "" + p, "--group", "one",
          "p" + p));
    }
    List<JsonNode> items = dequeue("cli-many", "*", 3);
    assertEquals(List.of("p0", "p3", "p7"), items.stream().map(i -> i.get("payload").asText()).toList());
    items.forEach(i -> one(ordo("ack", i.get("id").asText(), i.get("lease").asText())));

    Cli.Result empty = ordo("dequeue", "--namespace", "cli-many", "--topic", "t", "--wait", "300ms");
    assertEquals(0, empty.exitCode(), empty::err);
    assertEquals("", empty.out());
  }

  @Test
  void topicsPrintsOneLinePerTopic() {
    one(ordo("enqueue", "--namespace", "cli-topics", "--topic", "a", "1"));
    one(ordo("enqueue", "--namespace", "cli-topics", "--topic", "b", "--delay", "10m", "2"));
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Cli.Result r = ordo("topics", "--namespace", "cli-topics");
      assertEquals(0, r.exitCode(), r::err);
      List<JsonNode> topics = lines(r);
      assertEquals(2, topics.size(), r::out);
      assertEquals("a", topics.get(0).get("topic").asText());
      assertEquals(1, topics.get(0).get("ready").asInt(), r::out);
      assertEquals("b", topics.get(1).get("topic").asText());
      assertEquals(1, topics.get(1).get("delayed").asInt() + topics.get(1).get("parked").asInt(), r::out);
    });
  }

  @Test
  void peekPrintsTheHeadInDispatchOrderAndLeasesNothing() {
    for (int p : new int[] {7, 0, 3}) {
      one(ordo("enqueue", "--namespace", "cli-peek", "--topic", "t", "--priority", "" + p, "--group", "one",
          "p" + p));
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Cli.Result r = ordo("peek", "--namespace", "cli-peek", "--topic", "t", "-n", "2");
      assertEquals(0, r.exitCode(), r::err);
      assertEquals(List.of("p0", "p3"), lines(r).stream().map(i -> i.get("payload").asText()).toList(), r::out);
    });
    // Nothing was leased: a dequeue still gets all three, best first.
    assertEquals(List.of("p0", "p3", "p7"),
        dequeue("cli-peek", "t", 3).stream().map(i -> i.get("payload").asText()).toList());
    assertRefused(ordo("peek", "--namespace", "cli-peek", "--topic", "t", "-n", "1001"), OrdoMain.EXIT_USAGE, "n:");
  }

  @Test
  void badInputIsRefusedWithExit2AndOneLine() {
    assertRefused(ordo("enqueue", "--namespace", "a/b", "--topic", "t", "x"), OrdoMain.EXIT_USAGE,
        "ordo enqueue: namespace 'a/b' contains a '/'");
    assertRefused(ordo("enqueue", "--namespace", "n", "--topic", "*", "x"), OrdoMain.EXIT_USAGE, "reserved");
    assertRefused(ordo("enqueue", "--namespace", "n", "--topic", "t", "x".repeat(10_241)), OrdoMain.EXIT_USAGE,
        "over the limit of 10240 bytes");
    assertRefused(ordo("enqueue", "--namespace", "n", "--topic", "t", "--delay", "-1s", "x"), OrdoMain.EXIT_USAGE,
        "--delay");
    assertRefused(ordo("enqueue", "--namespace", "n", "--topic", "t", "--priority", "high", "x"),
        OrdoMain.EXIT_USAGE, "--priority");
    assertRefused(ordo("enqueue", "--topic", "t", "x"), OrdoMain.EXIT_USAGE, "--namespace");
    assertRefused(ordo("dequeue", "--namespace", "n", "--topic", "t", "--count", "0"), OrdoMain.EXIT_USAGE,
        "--count");
    assertRefused(ordo("dequeue", "--namespace", "n", "--topic", "t", "--wait", "1m"), OrdoMain.EXIT_USAGE,
        "waitMs must be at most 20000");
    assertRefused(ordo("ack", "not-an-id", "lease"), OrdoMain.EXIT_USAGE, "not an item ID");
    assertRefused(ordo("extend", "0-1", "lease", "0s"), OrdoMain.EXIT_USAGE, "longer than 0");
    assertRefused(ordo("extend", "0-1", "lease", "soon"), OrdoMain.EXIT_USAGE, "not a duration");
    assertRefused(ordo("ack", "0-1"), OrdoMain.EXIT_USAGE, "LEASE");
    assertRefused(Cli.run("item", "0-1", "--server", "ftp://x"), OrdoMain.EXIT_USAGE, "not an http:// URL");
  }

  @Test
  void anUnreachableServerIsExit1WithOneLine() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Cli.Result r = Cli.run("topics", "--namespace", "n", "--server", "http://127.0.0.1:" + port);
    assertRefused(r, OrdoMain.EXIT_FAILURE, "ordo topics: cannot reach the Ordo server at http://127.0.0.1:" + port);
  }

  @ParameterizedTest
  @ValueSource(strings = {"enqueue", "dequeue", "ack", "nack", "extend", "topics", "peek", "item", "demo"})
  void everyCommandHasHelp(String command) {
    Cli.Result r = Cli.run(command, "--help");
    assertEquals(0, r.exitCode(), r::err);
    assertTrue(r.out().contains("Usage: ordo " + command), r::out);
    if (!command.equals("demo")) {
      assertTrue(r.out().contains("--server=URL"), r::out);
    }
  }

  @Test
  void theTopLevelHelpListsTheCommandsAndExitCodes() {
    Cli.Result r = Cli.run("--help");
    assertEquals(0, r.exitCode(), r::err);
    for (String command : List.of("server", "enqueue", "dequeue", "ack", "nack", "extend", "topics", "item", "demo")) {
      assertTrue(r.out().contains("  " + command), () -> command + " in " + r.out());
    }
    assertTrue(r.out().contains("stale lease"), r::out);
  }

  @Test
  void enqueueWithHeadersAndDequeuePrintsThem() {
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    String id = one(ordo("enqueue", "--namespace", "cli-h", "--topic", "jobs", "--header", "traceparent=" + traceparent,
        "--header", "tenant=a=b", "traced")).get("id").asText();
    JsonNode item = dequeue("cli-h", "jobs", 1).get(0);
    assertEquals(id, item.get("id").asText());
    assertEquals(traceparent, item.get("headers").get("traceparent").asText());
    assertEquals("a=b", item.get("headers").get("tenant").asText(), "split at the first '='");
    assertEquals(traceparent, one(ordo("item", id)).get("headers").get("traceparent").asText());
    assertEquals("APPLIED", one(ordo("ack", id, item.get("lease").asText())).get("result").asText());

    assertRefused(ordo("enqueue", "--namespace", "cli-h", "--topic", "jobs", "--header", "novalue", "x"),
        OrdoMain.EXIT_USAGE, "--header must be NAME=VALUE");
    assertRefused(ordo("enqueue", "--namespace", "cli-h", "--topic", "jobs", "--header", "a=1", "--header", "a=2", "x"),
        OrdoMain.EXIT_USAGE, "--header a is given twice");
    assertRefused(ordo("enqueue", "--namespace", "cli-h", "--topic", "jobs", "--header", "ordo.x=1", "x"),
        OrdoMain.EXIT_USAGE, "'ordo.x' is reserved");
  }

  @Test
  void pauseStopsLeasingATopicAndResumeStartsItAgain() {
    String id = one(ordo("enqueue", "--namespace", "ops", "--topic", "exports", "nightly")).get("id").asText();
    await().atMost(Duration.ofSeconds(30)).until(() -> !lines(ordo("topics", "--namespace", "ops")).isEmpty());
    assertRefused(ordo("pause", "ops", "--topic", "exprots"), OrdoMain.EXIT_UNKNOWN_ITEM, "unknown topic exprots");

    JsonNode paused = one(ordo("pause", "ops", "--topic", "exports"));
    assertTrue(paused.get("paused").asBoolean(), paused::toString);
    assertTrue(lines(ordo("topics", "--namespace", "ops")).get(0).get("paused").asBoolean());
    Cli.Result none = ordo("dequeue", "--namespace", "ops", "--topic", "exports", "--wait", "1s");
    assertEquals(0, none.exitCode(), none::err);
    assertEquals(List.of(), lines(none), "nothing leased while paused");

    JsonNode resumed = one(ordo("resume", "ops", "--topic", "exports"));
    assertFalse(resumed.get("paused").asBoolean(), resumed::toString);
    assertEquals(id, dequeue("ops", "exports", 1).get(0).get("id").asText());
  }

  @Test
  void purgeWithWaitDeletesTheTopicsItemsAndPrintsTheFinishedJob() {
    for (int i = 0; i < 3; i++) {
      one(ordo("enqueue", "--namespace", "gone", "--topic", "stale", "old " + i));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> lines(ordo("topics", "--namespace", "gone")).stream()
        .anyMatch(t -> t.get("ready").asLong() == 3));
    assertRefused(ordo("purge", "gone", "stael"), OrdoMain.EXIT_UNKNOWN_ITEM, "unknown topic stael");
    assertRefused(ordo("purge", "gone", "stale", "--before", "last tuesday"), OrdoMain.EXIT_USAGE, "enqueuedBefore");

    Cli.Result r = ordo("purge", "gone", "stale", "--before", "0s", "--wait");
    assertEquals(0, r.exitCode(), r::err);
    List<JsonNode> printed = lines(r);
    assertEquals("PENDING", printed.get(0).get("status").asText(), r::out);
    JsonNode done = printed.get(printed.size() - 1);
    assertEquals("DONE", done.get("status").asText(), r::out);
    assertEquals(3, done.get("purgedTotal").asLong(), r::out);
    await().atMost(Duration.ofSeconds(30)).until(() -> lines(ordo("topics", "--namespace", "gone")).isEmpty());
  }
}
