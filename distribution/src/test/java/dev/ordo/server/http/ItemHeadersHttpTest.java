package dev.ordo.server.http;

import static dev.ordo.server.http.DeadLetterFixtures.awaitJob;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item headers over HTTP, against a server (with its dead-letter job runner) on a real Kafka
 * cluster: enqueue takes them, dequeue, the item look-up, the peek and the dead letters show them,
 * and they come back after a nack and after a redrive; bad ones are refused with 400.
 */
@KafkaCluster
class ItemHeadersHttpTest {
  private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @TempDir
  static Path tmp;

  private static TestServer server;

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.startWithDlqJobs(kafka, "hdrhttp", tmp.resolve("server"),
        Map.of("ordo.headers.max.bytes", "256"));
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

  private static JsonNode dequeueOne(String ns, String topic) {
    List<JsonNode> got = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Reply r = server.post("/v1/namespaces/" + ns + "/dequeue", Map.of("topics", Map.of(topic, 1), "waitMs", 2000));
      assertEquals(200, r.status(), r::text);
      r.json().get("items").forEach(got::add);
      return !got.isEmpty();
    });
    assertEquals(1, got.size());
    return got.get(0);
  }

  private static void assertHeaders(JsonNode item) {
    JsonNode h = item.get("headers");
    assertEquals(TRACEPARENT, h.get("traceparent").asText(), item::toString);
    assertEquals("zürich", h.get("place").asText());
    assertTrue(h.get("empty").isNull(), "a null value stays null");
    assertFalse(h.has("bin"), "a value that is not UTF-8 is not shown as text");
    assertEquals(Base64.getEncoder().encodeToString(new byte[] {(byte) 0xff, 0x00}),
        item.get("headersBase64").get("bin").asText());
  }

  private static final String BODY = "{\"payload\": \"traced\", \"maxAttempts\": 2,"
      + " \"headers\": {\"traceparent\": \"" + TRACEPARENT + "\", \"place\": \"zürich\", \"empty\": null},"
      + " \"headersBase64\": {\"bin\": \"/wA=\"}}";

  @Test
  void enqueuedHeadersAreReturnedByDequeueLookupAndPeekAndAgainAfterANack() {
    String id = enqueue("hh", "jobs", BODY);
    JsonNode[] peeked = new JsonNode[1];
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      peeked[0] = server.get("/v1/namespaces/hh/topics/jobs/peek?n=1").json();
      return peeked[0].get("items").size() == 1;
    });
    assertHeaders(peeked[0].get("items").get(0));

    JsonNode item = dequeueOne("hh", "jobs");
    assertEquals(id, item.get("id").asText());
    assertHeaders(item);
    assertHeaders(server.get("/v1/items/" + id).json());

    Reply nacked = server.post("/v1/items/" + id + "/nack", Map.of("lease", item.get("lease").asText(), "delayMs", 0));
    assertEquals(200, nacked.status(), nacked::text);
    JsonNode again = dequeueOne("hh", "jobs");
    assertEquals(2, again.get("attempt").asInt());
    assertHeaders(again);
    assertEquals(200, server.post("/v1/items/" + id + "/ack", Map.of("lease", again.get("lease").asText())).status());
  }

  @Test
  void anItemWithoutHeadersShowsNone() {
    enqueue("hn", "jobs", "{\"payload\": \"plain\"}");
    JsonNode item = dequeueOne("hn", "jobs");
    assertFalse(item.has("headers"), item::toString);
    assertFalse(item.has("headersBase64"), item::toString);
  }

  @Test
  void aDeadLetterShowsTheHeadersAndARedriveRestoresThem() {
    String id = enqueue("hd", "jobs", BODY);
    JsonNode item = dequeueOne("hd", "jobs");
    Reply nacked = server.post("/v1/items/" + id + "/nack",
        Map.of("lease", item.get("lease").asText(), "deadLetter", true, "error", "refused"));
    assertEquals(200, nacked.status(), nacked::text);
    List<JsonNode> dead = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      dead.clear();
      server.get("/v1/dlq?namespace=hd").json().get("deadLetters").forEach(dead::add);
      return dead.size() == 1;
    });
    String letter = dead.get(0).get("id").asText();
    assertHeaders(server.get("/v1/dlq/" + letter).json());

    Reply started = server.post("/v1/dlq/redrive", Map.of("ids", List.of(letter)));
    assertEquals(202, started.status(), started::text);
    awaitJob(server, "/v1/dlq/redrives/" + started.json().get("job").asText());
    JsonNode redriven = dequeueOne("hd", "jobs");
    assertEquals(1, redriven.get("attempt").asInt(), "a new item");
    assertHeaders(redriven);
    assertFalse(redriven.get("headers").has("ordo.redriven.from"), "Ordo's own link is not an item header");
  }

  @Test
  void badHeadersAreRefusedWith400NamingTheField() {
    String path = "/v1/namespaces/hb/topics/jobs/items";
    Reply big = server.post(path, "{\"payload\": \"x\", \"headers\": {\"h\": \"" + "v".repeat(300) + "\"}}");
    assertEquals(400, big.status(), big::text);
    assertTrue(big.error().contains("headers of 301 bytes are over the limit of 256"), big::text);

    Reply reserved = server.post(path, "{\"payload\": \"x\", \"headers\": {\"ordo.redriven.from\": \"1-1\"}}");
    assertEquals(400, reserved.status(), reserved::text);
    assertTrue(reserved.error().contains("'ordo.redriven.from' is reserved"), reserved::text);

    Reply number = server.post(path, "{\"payload\": \"x\", \"headers\": {\"n\": 5}}");
    assertEquals(400, number.status(), number::text);
    assertTrue(number.error().contains("headers.n must be a string"), number::text);

    Reply notAnObject = server.post(path, "{\"payload\": \"x\", \"headers\": [\"a\"]}");
    assertEquals(400, notAnObject.status(), notAnObject::text);
    assertTrue(notAnObject.error().contains("headers must be an object of strings"), notAnObject::text);

    Reply badBase64 = server.post(path, "{\"payload\": \"x\", \"headersBase64\": {\"b\": \"***\"}}");
    assertEquals(400, badBase64.status(), badBase64::text);
    assertTrue(badBase64.error().contains("headersBase64.b is not valid base64"), badBase64::text);
  }
}
