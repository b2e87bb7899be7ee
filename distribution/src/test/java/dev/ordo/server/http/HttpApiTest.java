package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every endpoint of the HTTP API and every error, against a running server on a real Kafka cluster. */
@KafkaCluster
class HttpApiTest {
  @TempDir
  static Path tmp;

  private static TestServer server;

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.start(kafka, "http", tmp.resolve("server"));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static String enqueue(String ns, String topic, String body) {
    Reply r = server.post("/v1/namespaces/" + ns + "/topics/" + topic + "/items", body);
    assertEquals(201, r.status(), r::text);
    return r.json().get("id").asText();
  }

  /** Dequeues until {@code n} items came (each call long-polls), so slow partitions cannot make it flaky. */
  private static List<JsonNode> dequeue(String ns, String topic, int n) {
    List<JsonNode> got = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Reply r = server.post("/v1/namespaces/" + ns + "/dequeue",
          Map.of("topics", Map.of(topic, n - got.size()), "waitMs", 2000));
      assertEquals(200, r.status(), r::text);
      r.json().get("items").forEach(got::add);
      return got.size() >= n;
    });
    return got;
  }

  private static Reply ack(JsonNode item) {
    return server.post("/v1/items/" + item.get("id").asText() + "/ack", Map.of("lease", item.get("lease").asText()));
  }

  @Test
  void enqueueAnswers201WithTheItemIdAndItsLocation() {
    Reply r = server.post("/v1/namespaces/enq/topics/jobs/items",
        "{\"payload\": \"hello\", \"priority\": 3, \"delayMs\": 0, \"leaseMs\": 20000, \"ttlMs\": 600000,"
            + " \"maxAttempts\": 2, \"atMostOnce\": false, \"groupKey\": \"g1\", \"metadata\": \"m\"}");
    assertEquals(201, r.status(), r::text);
    String id = r.json().get("id").asText();
    assertTrue(id.matches("\\d+-\\d+"), id);
    assertEquals("/v1/items/" + id, r.header("location"));

    JsonNode item = dequeue("enq", "jobs", 1).get(0);
    assertEquals(id, item.get("id").asText());
    assertEquals(3, item.get("priority").asInt());
    assertEquals("m", item.get("metadata").asText());
    assertEquals("g1", item.get("groupKey").asText());
    assertEquals(200, ack(item).status());
  }

  @Test
  void dequeueReturnsTheBestPrioritiesFirstWithEveryField() {
    // One group key: one partition, so one dequeue sees all three at once.
    enqueue("order", "jobs", "{\"payload\": \"five\", \"priority\": 5, \"groupKey\": \"same\"}");
    String first = enqueue("order", "jobs", "{\"payload\": \"one\", \"priority\": 1, \"groupKey\": \"same\"}");
    enqueue("order", "jobs", "{\"payload\": \"three\", \"priority\": 3, \"groupKey\": \"same\"}");
    List<JsonNode> items = dequeue("order", "jobs", 3);
    assertEquals(List.of("one", "three", "five"), items.stream().map(i -> i.get("payload").asText()).toList());

    JsonNode best = items.get(0);
    assertEquals(first, best.get("id").asText());
    for (String field : List.of("id", "lease", "namespace", "topic", "priority", "attempt", "payload", "metadata",
        "enqueuedAt", "leaseExpiresAt")) {
      assertTrue(best.has(field), () -> "field " + field + " in " + best);
    }
    assertEquals("order", best.get("namespace").asText());
    assertEquals("jobs", best.get("topic").asText());
    assertEquals(1, best.get("attempt").asInt());
    assertTrue(best.get("metadata").isNull());
    Instant enqueued = Instant.parse(best.get("enqueuedAt").asText());
    Instant expires = Instant.parse(best.get("leaseExpiresAt").asText());
    assertTrue(expires.isAfter(enqueued.plusSeconds(20)), "default lease of 30 s: " + best);
    items.forEach(i -> assertEquals(200, ack(i).status()));
  }

  @Test
  void payloadsThatAreNotUtf8TravelAsBase64() {
    byte[] bytes = {(byte) 0xff, (byte) 0xfe, 0, 1};
    String b64 = Base64.getEncoder().encodeToString(bytes);
    enqueue("bin", "blobs", "{\"payloadBase64\": \"" + b64 + "\", \"metadataBase64\": \"" + b64 + "\"}");
    JsonNode item = dequeue("bin", "blobs", 1).get(0);
    assertFalse(item.has("payload"), item::toString);
    assertEquals(b64, item.get("payloadBase64").asText());
    assertEquals(b64, item.get("metadataBase64").asText());
    assertEquals(200, ack(item).status());
  }

  @Test
  void aLongPollReturnsAnItemThatBecomesReadyDuringTheWait() throws Exception {
    long t0 = System.nanoTime();
    CompletableFuture<Reply> poll = CompletableFuture.supplyAsync(() -> server.post("/v1/namespaces/lp/dequeue",
        "{\"topics\": {\"*\": 5}, \"waitMs\": 15000}"));
    // Ready 1.5 s from now, well inside the wait.
    String id = enqueue("lp", "later", "{\"payload\": \"late\", \"delayMs\": 1500}");
    Reply r = poll.get(30, TimeUnit.SECONDS);
    long tookMs = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(200, r.status(), r::text);
    assertEquals(1, r.json().get("items").size(), r::text);
    JsonNode item = r.json().get("items").get(0);
    assertEquals(id, item.get("id").asText());
    assertEquals("later", item.get("topic").asText());
    assertTrue(tookMs >= 1400 && tookMs < 14_000, "returned once the item was ready, after " + tookMs + " ms");
    assertEquals(200, ack(item).status());
  }

  @Test
  void aDequeueWithNothingReadyAnswersAnEmptyListAfterItsWait() {
    long t0 = System.nanoTime();
    Reply r = server.post("/v1/namespaces/empty/dequeue", "{\"topics\": {\"none\": 3}, \"waitMs\": 400}");
    long tookMs = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(200, r.status(), r::text);
    assertEquals(0, r.json().get("items").size());
    assertTrue(tookMs >= 350, "waited " + tookMs + " ms");
  }

  @Test
  void ackIsAppliedOnceThenTheItemIsUnknown() {
    enqueue("acks", "jobs", "{\"payload\": \"a\"}");
    JsonNode item = dequeue("acks", "jobs", 1).get(0);
    Reply applied = ack(item);
    assertEquals(200, applied.status(), applied::text);
    assertEquals("APPLIED", applied.json().get("result").asText());
    assertEquals(item.get("id").asText(), applied.json().get("id").asText());

    Reply again = ack(item);
    assertEquals(404, again.status(), again::text);
    assertTrue(again.error().contains("unknown item " + item.get("id").asText()), again::text);
  }

  @Test
  void aStaleLeaseIsRefusedWith409AndTheItemStaysLeased() {
    enqueue("stale", "jobs", "{\"payload\": \"s\"}");
    JsonNode item = dequeue("stale", "jobs", 1).get(0);
    String path = "/v1/items/" + item.get("id").asText();
    for (String command : List.of("ack", "nack", "extend")) {
      String body = command.equals("extend") ? "{\"lease\": \"not-the-lease\", \"leaseMs\": 1000}"
          : "{\"lease\": \"not-the-lease\"}";
      Reply r = server.post(path + "/" + command, body);
      assertEquals(409, r.status(), () -> command + ": " + r.text());
      assertTrue(r.error().contains("stale lease"), r::text);
    }
    assertEquals(200, ack(item).status(), "the real lease still works");
  }

  @Test
  void commandsOnUnknownItemsAnswer404() {
    for (String command : List.of("ack", "nack", "extend")) {
      String body = command.equals("extend") ? "{\"lease\": \"x\", \"leaseMs\": 1000}" : "{\"lease\": \"x\"}";
      Reply never = server.post("/v1/items/0-999999999/" + command, body);
      assertEquals(404, never.status(), () -> command + ": " + never.text());
      Reply noPartition = server.post("/v1/items/77-1/" + command, body);
      assertEquals(404, noPartition.status(), () -> command + ": " + noPartition.text());
      assertTrue(noPartition.error().contains("no partition 77"), noPartition::text);
    }
  }

  @Test
  void nackMakesTheItemReadyAgainWithNewMetadataAndOneMoreAttempt() {
    enqueue("nacks", "jobs", "{\"payload\": \"n\", \"metadata\": \"v1\"}");
    JsonNode item = dequeue("nacks", "jobs", 1).get(0);
    long t0 = System.nanoTime();
    Reply r = server.post("/v1/items/" + item.get("id").asText() + "/nack",
        Map.of("lease", item.get("lease").asText(), "delayMs", 500, "metadata", "v2"));
    assertEquals(200, r.status(), r::text);
    assertEquals("APPLIED", r.json().get("result").asText());

    JsonNode again = dequeue("nacks", "jobs", 1).get(0);
    assertTrue((System.nanoTime() - t0) / 1_000_000 >= 450, "ready again only after the nack's delay");
    assertEquals(item.get("id").asText(), again.get("id").asText());
    assertEquals(2, again.get("attempt").asInt());
    assertEquals("v2", again.get("metadata").asText());
    assertEquals(200, ack(again).status());
  }

  @Test
  void aNackCanDeadLetterTheItemAndTheAnswerSaysWhy() {
    enqueue("rejects", "jobs", "{\"payload\": \"r\"}");
    JsonNode item = dequeue("rejects", "jobs", 1).get(0);
    Reply r = server.post("/v1/items/" + item.get("id").asText() + "/nack",
        Map.of("lease", item.get("lease").asText(), "error", "bad input", "deadLetter", true));
    assertEquals(200, r.status(), r::text);
    assertEquals("APPLIED", r.json().get("result").asText());
    assertEquals("REJECTED", r.json().get("deadLetterReason").asText(), r::text);
    assertEquals(404, ack(item).status(), "the item left the queue");
  }

  @Test
  void extendPushesTheLeaseOutAndSaysUntilWhen() {
    enqueue("ext", "jobs", "{\"payload\": \"e\", \"leaseMs\": 5000}");
    JsonNode item = dequeue("ext", "jobs", 1).get(0);
    Instant before = Instant.parse(item.get("leaseExpiresAt").asText());
    Reply r = server.post("/v1/items/" + item.get("id").asText() + "/extend",
        Map.of("lease", item.get("lease").asText(), "leaseMs", 120_000));
    assertEquals(200, r.status(), r::text);
    Instant after = Instant.parse(r.json().get("leaseExpiresAt").asText());
    assertTrue(after.isAfter(before.plusSeconds(60)), before + " -> " + after);
    assertEquals(200, ack(item).status());
  }

  @Test
  void topicsListsTheNamespacesTopicsWithTheirCounts() {
    enqueue("stats", "a", "{\"payload\": \"1\"}");
    enqueue("stats", "a", "{\"payload\": \"2\", \"priority\": -1}");
    enqueue("stats", "b", "{\"payload\": \"3\", \"delayMs\": 600000}");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Reply r = server.get("/v1/namespaces/stats/topics");
      assertEquals(200, r.status(), r::text);
      JsonNode topics = r.json().get("topics");
      assertEquals(2, topics.size(), r::text);
      JsonNode a = topics.get(0);
      assertEquals("a", a.get("topic").asText());
      assertEquals(2, a.get("ready").asInt(), r::text);
      assertEquals(0, a.get("delayed").asInt());
      assertEquals(0, a.get("leased").asInt());
      assertEquals(-1, a.get("headPriority").asInt());
      assertTrue(a.get("oldestReadyAgeMs").asLong() >= 0);
      JsonNode b = topics.get(1);
      assertEquals("b", b.get("topic").asText());
      assertEquals(0, b.get("ready").asInt());
      assertEquals(1, b.get("delayed").asInt() + b.get("parked").asInt(), r::text);
    });
    assertEquals(0, server.get("/v1/namespaces/nothing-here/topics").json().get("topics").size());
  }

  @Test
  void anItemsStateIsReadFromItsPartitionsStore() {
    String id = enqueue("state", "jobs", "{\"payload\": \"look\", \"priority\": 4, \"maxAttempts\": 3,"
        + " \"metadata\": \"md\", \"ttlMs\": 3600000}");
    await().atMost(Duration.ofSeconds(30)).until(() -> server.get("/v1/items/" + id).status() == 200);
    Reply ready = server.get("/v1/items/" + id);
    JsonNode s = ready.json();
    assertEquals(id, s.get("id").asText());
    assertEquals("READY", s.get("state").asText());
    assertEquals("state", s.get("namespace").asText());
    assertEquals("jobs", s.get("topic").asText());
    assertEquals(4, s.get("priority").asInt());
    assertEquals(0, s.get("attempts").asInt());
    assertEquals(3, s.get("maxAttempts").asInt());
    assertEquals("look", s.get("payload").asText());
    assertEquals("md", s.get("metadata").asText());
    assertNotNull(Instant.parse(s.get("expiresAt").asText()));
    assertEquals(server.address().getHost() + ":" + server.address().getPort(), ready.header("ordo-served-by"));

    JsonNode item = dequeue("state", "jobs", 1).get(0);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      JsonNode leased = server.get("/v1/items/" + id).json();
      assertEquals("LEASED", leased.get("state").asText(), leased::toString);
      assertEquals(1, leased.get("attempts").asInt());
      assertEquals(item.get("leaseExpiresAt").asText(), leased.get("leaseExpiresAt").asText());
      assertTrue(leased.has("leaseHolder"));
      assertFalse(leased.toString().contains(item.get("lease").asText()), "the lease id is not shown: " + leased);
    });

    assertEquals(200, ack(item).status());
    await().atMost(Duration.ofSeconds(10)).until(() -> server.get("/v1/items/" + id).status() == 404);
    Reply gone = server.get("/v1/items/" + id);
    assertTrue(gone.error().startsWith("unknown item " + id), gone::text);
    assertEquals(404, server.get("/v1/items/9-0").status());
    assertEquals(400, server.get("/v1/items/not-an-id").status());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "malformed JSON          | `{\"payload\": `                              | not valid JSON",
      "trailing garbage        | `{\"payload\": \"x\"} x`                      | not valid JSON",
      "not an object           | `[\"x\"]`                                     | must be a JSON object",
      "missing payload         | `{\"priority\": 1}`                           | payload is missing",
      "both payloads           | `{\"payload\": \"x\", \"payloadBase64\": \"eA==\"}` | not both",
      "bad base64              | `{\"payloadBase64\": \"@@\"}`                 | payloadBase64 is not valid base64",
      "payload not a string    | `{\"payload\": 5}`                            | payload must be a string",
      "priority as text        | `{\"payload\": \"x\", \"priority\": \"high\"}` | priority must be a whole number",
      "fractional priority     | `{\"payload\": \"x\", \"priority\": 1.5}`     | priority must be a whole number",
      "priority too large      | `{\"payload\": \"x\", \"priority\": 3000000000}` | priority is out of range",
      "negative delay          | `{\"payload\": \"x\", \"delayMs\": -1}`       | delayMs must not be negative",
      "zero lease              | `{\"payload\": \"x\", \"leaseMs\": 0}`        | leaseMs must be at least 1",
      "negative ttl            | `{\"payload\": \"x\", \"ttlMs\": -5}`         | ttlMs must be at least 1",
      "zero max attempts       | `{\"payload\": \"x\", \"maxAttempts\": 0}`    | maxAttempts must be at least 1",
      "atMostOnce not boolean  | `{\"payload\": \"x\", \"atMostOnce\": \"yes\"}` | atMostOnce must be true or false",
      "bad group key           | `{\"payload\": \"x\", \"groupKey\": \"a/b\"}` | groupKey",
      "unknown field           | `{\"payload\": \"x\", \"priorty\": 1}`        | unknown field 'priorty'",
  })
  void badEnqueueBodiesAre400sNamingTheFieldAndEnqueueNothing(String name, String body, String expected) {
    Reply r = server.post("/v1/namespaces/refused/topics/jobs/items", body);
    assertEquals(400, r.status(), r::text);
    assertTrue(r.error().contains(expected), () -> "want '" + expected + "' in " + r.text());
    assertNothingEnqueued("refused");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "slash in namespace     | a%2Fb       | jobs   | namespace 'a/b'",
      "control char in topic  | refused     | x%01y  | topic",
      "reserved topic         | refused     | *      | topic '*' is reserved",
  })
  void badNamesAre400s(String name, String ns, String topic, String expected) {
    Reply r = server.post("/v1/namespaces/" + ns + "/topics/" + topic + "/items", "{\"payload\": \"x\"}");
    assertEquals(400, r.status(), r::text);
    assertTrue(r.error().contains(expected), () -> "want '" + expected + "' in " + r.text());
    assertNothingEnqueued("refused");
  }

  @Test
  void aPayloadOverTheLimitIs413AndEnqueuesNothing() {
    String big = "x".repeat(10 * 1024 + 1);
    Reply r = server.post("/v1/namespaces/refused/topics/jobs/items", Map.of("payload", big));
    assertEquals(413, r.status(), r::text);
    assertTrue(r.error().contains("over the limit of 10240 bytes"), r::text);
    assertEquals(201, server.post("/v1/namespaces/limit/topics/jobs/items",
        Map.of("payload", "x".repeat(10 * 1024))).status(), "exactly the limit is fine");
    assertNothingEnqueued("refused");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "no topics              | `{}`                                          | topics is missing",
      "empty topics           | `{\"topics\": {}}`                            | topics is missing",
      "topics not an object   | `{\"topics\": [\"a\"]}`                       | topics must be an object",
      "zero count             | `{\"topics\": {\"a\": 0}}`                    | topics.a must be at least 1",
      "count as text          | `{\"topics\": {\"a\": \"2\"}}`                | topics.a must be a whole number",
      "negative wait          | `{\"topics\": {\"a\": 1}, \"waitMs\": -1}`    | waitMs must not be negative",
      "wait over the maximum  | `{\"topics\": {\"a\": 1}, \"waitMs\": 20001}` | waitMs must be at most 20000",
      "too many items         | `{\"topics\": {\"a\": 1001}}`                 | at most 1000 items",
      "unknown field          | `{\"topics\": {\"a\": 1}, \"wait\": 5}`       | unknown field 'wait'",
      "malformed              | `{\"topics\"`                                 | not valid JSON",
  })
  void badDequeueBodiesAre400s(String name, String body, String expected) {
    Reply r = server.post("/v1/namespaces/refused/dequeue", body);
    assertEquals(400, r.status(), r::text);
    assertTrue(r.error().contains(expected), () -> "want '" + expected + "' in " + r.text());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "ack without lease        | 0-1    | ack    | `{}`                                        | lease is missing",
      "ack with numeric lease   | 0-1    | ack    | `{\"lease\": 5}`                            | lease must be a string",
      "ack malformed            | 0-1    | ack    | `{lease}`                                   | not valid JSON",
      "nack negative delay      | 0-1    | nack   | `{\"lease\": \"l\", \"delayMs\": -1}`       | delayMs must not be negative",
      "nack unknown field       | 0-1    | nack   | `{\"lease\": \"l\", \"delay\": 5}`          | unknown field 'delay'",
      "extend without leaseMs   | 0-1    | extend | `{\"lease\": \"l\"}`                        | leaseMs is missing",
      "extend zero leaseMs      | 0-1    | extend | `{\"lease\": \"l\", \"leaseMs\": 0}`        | leaseMs must be at least 1",
      "bad item id              | 3x     | ack    | `{\"lease\": \"l\"}`                        | not an item ID",
  })
  void badCommandsAre400s(String name, String id, String command, String body, String expected) {
    Reply r = server.post("/v1/items/" + id + "/" + command, body);
    assertEquals(400, r.status(), r::text);
    assertTrue(r.error().contains(expected), () -> "want '" + expected + "' in " + r.text());
  }

  @Test
  void healthStillAnswersAndNamesTheHttpApi() {
    Reply r = server.get("/health");
    assertEquals(200, r.status(), r::text);
    assertEquals("UP", r.json().get("components").get("http-api").asText());
  }

  /** Nothing of namespace {@code ns} can be dequeued: refused requests left nothing behind. */
  private static void assertNothingEnqueued(String ns) {
    Reply r = server.post("/v1/namespaces/" + ns + "/dequeue", "{\"topics\": {\"*\": 10}, \"waitMs\": 300}");
    assertEquals(200, r.status(), r::text);
    assertEquals(0, r.json().get("items").size(), () -> "nothing enqueued in " + ns + ": " + r.text());
    assertNull(r.json().get("error"));
  }
}
