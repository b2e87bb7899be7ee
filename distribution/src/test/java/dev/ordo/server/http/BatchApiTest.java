package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The batch endpoints, release and cancel over HTTP, against a running server on a real Kafka cluster. */
@KafkaCluster
class BatchApiTest {
  @TempDir
  static Path tmp;

  private static TestServer server;

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.start(kafka, "batch", tmp.resolve("server"));
    // One round trip through the queue before the tests: in two full suite runs the first dequeue right
    // after the server started saw one of its leases given back (a known issue under study, see the
    // session notes of 2026-11-28); the tests here are about the batch endpoints.
    enqueue("warm", "t", "w");
    assertEquals(200, single("ack", dequeue("warm", "t", 1).get(0)).status());
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void batchEnqueueAnswersEachEntryAndSendsOnlyTheGoodOnes() {
    Reply r = server.post("/v1/namespaces/benq/items", "{\"items\": ["
        + "{\"topic\": \"a\", \"payload\": \"one\", \"priority\": 1},"
        + "{\"topic\": \"a\", \"payload\": \"two\", \"priorty\": 1},"
        + "{\"payload\": \"no topic\"},"
        + "{\"topic\": \"b\", \"payloadBase64\": \"//4=\"},"
        + "{\"topic\": \"a\", \"payload\": \"" + "x".repeat(10_241) + "\"}]}");
    assertEquals(200, r.status(), r::text);
    JsonNode results = r.json().get("results");
    assertEquals(5, results.size());
    assertEquals(201, results.get(0).get("status").asInt(), results::toString);
    assertTrue(results.get(0).get("id").asText().matches("\\d+-\\d+"));
    assertEquals(400, results.get(1).get("status").asInt());
    assertTrue(results.get(1).get("error").asText().contains("priorty"), results::toString);
    assertEquals(400, results.get(2).get("status").asInt());
    assertTrue(results.get(2).get("error").asText().contains("topic"), results::toString);
    assertEquals(201, results.get(3).get("status").asInt(), results::toString);
    assertEquals(413, results.get(4).get("status").asInt(), results::toString);

    List<JsonNode> a = dequeue("benq", "a", 1);
    assertEquals("one", a.get(0).get("payload").asText());
    assertEquals(results.get(0).get("id").asText(), a.get(0).get("id").asText());
    List<JsonNode> b = dequeue("benq", "b", 1);
    assertEquals("//4=", b.get(0).get("payloadBase64").asText(), "not UTF-8: base64 both ways");
    assertEquals(200, single("ack", a.get(0)).status());
    assertEquals(200, single("ack", b.get(0)).status());
    assertEquals(List.of(), server.post("/v1/namespaces/benq/dequeue", Map.of("topics", Map.of("a", 5), "waitMs", 500))
        .json().get("items").findValuesAsText("id"), "the refused entries were never enqueued");
  }

  @Test
  void batchAckAnswersEveryEntryAndTouchesNothingElse() {
    for (int i = 0; i < 4; i++) {
      enqueue("back", "t", "p" + i);
    }
    List<JsonNode> items = dequeue("back", "t", 4);
    JsonNode a = items.get(0);
    JsonNode b = items.get(1);
    JsonNode untouched = items.get(2);
    JsonNode staleTarget = items.get(3);
    Reply r = server.post("/v1/items/ack", Map.of("items", List.of(
        entry(a), entry(b),
        Map.of("id", staleTarget.get("id").asText(), "lease", "not-the-lease"),
        Map.of("id", "0-999999", "lease", "x"),
        Map.of("id", "not-an-id", "lease", "x"),
        Map.of("id", untouched.get("id").asText()))));
    assertEquals(200, r.status(), r::text);
    JsonNode results = r.json().get("results");
    assertEquals(6, results.size(), results::toString);
    assertEquals("APPLIED", results.get(0).get("result").asText(), results::toString);
    assertEquals(a.get("id").asText(), results.get(0).get("id").asText());
    assertEquals(200, results.get(1).get("status").asInt());
    assertEquals(409, results.get(2).get("status").asInt());
    assertEquals("STALE_LEASE", results.get(2).get("result").asText());
    assertEquals(404, results.get(3).get("status").asInt());
    assertEquals(400, results.get(4).get("status").asInt());
    assertEquals("not-an-id", results.get(4).get("id").asText());
    assertEquals(400, results.get(5).get("status").asInt(), "no lease: refused alone");
    assertTrue(results.get(5).get("error").asText().contains("lease"), results::toString);

    // Acked ones are gone; the entry without a lease and the stale one left their items leased.
    assertEquals(404, single("ack", a).status());
    // A look-up reads the store as of the stream thread's last commit (docs/http-api.md): right after the
    // dequeue it may still show the item READY; once it shows LEASED, the batch left it so (an ack would
    // make it 404, a release READY for good).
    Reply[] state = new Reply[1];
    await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
      state[0] = server.get("/v1/items/" + untouched.get("id").asText());
      return state[0].status() == 200 && "LEASED".equals(state[0].json().get("state").asText());
    });
    assertEquals("LEASED", state[0].json().get("state").asText(), () -> "dequeued " + items + "; now " + state[0].text());
    assertEquals(200, single("ack", untouched).status());
    assertEquals(200, single("ack", staleTarget).status());
  }

  @Test
  void batchNackExtendAndReleaseAnswerPerItem() {
    for (int i = 0; i < 3; i++) {
      enqueue("bmix", "t", "p" + i);
    }
    List<JsonNode> items = dequeue("bmix", "t", 3);
    Map<String, Object> extendOne = new LinkedHashMap<>(entry(items.get(0)));
    extendOne.put("leaseMs", 120_000);
    Reply extended = server.post("/v1/items/extend", Map.of("items", List.of(extendOne,
        Map.of("id", items.get(1).get("id").asText(), "lease", "stale", "leaseMs", 1000),
        Map.of("id", items.get(2).get("id").asText(), "lease", items.get(2).get("lease").asText()))));
    JsonNode er = extended.json().get("results");
    assertEquals(200, er.get(0).get("status").asInt(), er::toString);
    assertTrue(er.get(0).has("leaseExpiresAt"));
    assertEquals(409, er.get(1).get("status").asInt());
    assertTrue(er.get(2).get("error").asText().contains("leaseMs"), er::toString);

    Map<String, Object> nackOne = new LinkedHashMap<>(entry(items.get(0)));
    nackOne.put("delayMs", 0);
    nackOne.put("metadata", "retry me");
    Reply released = server.post("/v1/items/release", Map.of("items", List.of(entry(items.get(1)), entry(items.get(2)))));
    JsonNode rr = released.json().get("results");
    assertEquals(List.of(200, 200), List.of(rr.get(0).get("status").asInt(), rr.get(1).get("status").asInt()), rr::toString);
    Reply nacked = server.post("/v1/items/nack", Map.of("items", List.of(nackOne, entry(items.get(1)))));
    JsonNode nr = nacked.json().get("results");
    assertEquals(200, nr.get(0).get("status").asInt(), nr::toString);
    assertEquals(409, nr.get(1).get("status").asInt(), "released: the lease is no longer the item's");

    List<JsonNode> again = dequeue("bmix", "t", 3);
    for (JsonNode item : again) {
      String id = item.get("id").asText();
      int expected = id.equals(items.get(0).get("id").asText()) ? 2 : 1;
      assertEquals(expected, item.get("attempt").asInt(), "nacked counts an attempt, released does not: " + item);
      assertEquals(200, single("ack", item).status());
    }
  }

  @Test
  void aBatchThatIsNotAListOfEntriesIsRefusedWhole() {
    assertEquals(400, server.post("/v1/items/ack", "{\"items\": []}").status());
    assertEquals(400, server.post("/v1/items/ack", "{\"items\": {\"id\": \"0-1\"}}").status());
    assertEquals(400, server.post("/v1/items/ack", "{\"ids\": []}").status());
    List<Map<String, String>> many = new ArrayList<>();
    for (int i = 0; i <= BatchApi.MAX_ENTRIES; i++) {
      many.add(Map.of("id", "0-" + i, "lease", "x"));
    }
    Reply tooMany = server.post("/v1/items/ack", Map.of("items", many));
    assertEquals(400, tooMany.status());
    assertTrue(tooMany.error().contains("1000"), tooMany::text);
  }

  @Test
  void releaseMakesAnItemReadyAgainWithoutCountingAnAttempt() {
    String id = enqueue("rel", "t", "x");
    JsonNode first = dequeue("rel", "t", 1).get(0);
    Reply released = single("release", first);
    assertEquals(200, released.status(), released::text);
    assertEquals("APPLIED", released.json().get("result").asText());
    assertEquals(409, single("release", first).status(), "the lease ended with the release");
    JsonNode second = dequeue("rel", "t", 1).get(0);
    assertEquals(id, second.get("id").asText());
    assertEquals(1, second.get("attempt").asInt(), "a release is not an attempt");
    assertEquals(200, single("ack", second).status());
  }

  @Test
  void cancelDeletesAnItemInAnyStateAndItIsNeverDelivered() {
    String ready = enqueue("can", "t", "ready");
    String leasedId = enqueue("can", "u", "leased");
    JsonNode leased = dequeue("can", "u", 1).get(0);
    assertEquals(leasedId, leased.get("id").asText());
    await().atMost(Duration.ofSeconds(10)).until(() -> server.get("/v1/items/" + ready).status() == 200);

    Reply cancelled = server.post("/v1/items/" + ready + "/cancel", "");
    assertEquals(200, cancelled.status(), cancelled::text);
    assertEquals("APPLIED", cancelled.json().get("result").asText());
    Reply deleted = server.delete("/v1/items/" + leasedId);
    assertEquals(200, deleted.status(), deleted::text);

    assertEquals(404, single("ack", leased).status(), "the holder lost its lease: the item is gone");
    assertEquals(404, server.post("/v1/items/" + ready + "/cancel", "").status(), "cancelled already");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.get("/v1/items/" + ready).status() == 404);
    assertEquals(List.of(), server.post("/v1/namespaces/can/dequeue", Map.of("topics", Map.of("t", 1), "waitMs", 500))
        .json().get("items").findValuesAsText("id"), "a cancelled item is never delivered");
    assertEquals(400, server.post("/v1/items/" + ready + "/cancel", "{\"lease\": \"x\"}").status(),
        "cancel takes no fields");
  }

  // ---- helpers ----

  private static String enqueue(String ns, String topic, String payload) {
    Reply r = server.post("/v1/namespaces/" + ns + "/topics/" + topic + "/items", Map.of("payload", payload));
    assertEquals(201, r.status(), r::text);
    return r.json().get("id").asText();
  }

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

  private static Map<String, Object> entry(JsonNode item) {
    return Map.of("id", item.get("id").asText(), "lease", item.get("lease").asText());
  }

  private static Reply single(String command, JsonNode item) {
    return server.post("/v1/items/" + item.get("id").asText() + "/" + command,
        Map.of("lease", item.get("lease").asText()));
  }
}
