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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deduplication IDs over HTTP on a real cluster (decisions D57): the duplicate's answer names the first item. */
@KafkaCluster
class DedupHttpTest {
  @TempDir
  static Path tmp;

  private static TestServer server;
  private static final String NS = "/v1/namespaces/shop";

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.start(kafka, "deduphttp", tmp.resolve("s"));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static List<String> drain(String topic) {
    List<String> payloads = new ArrayList<>();
    while (true) {
      Reply r = server.post(NS + "/dequeue", Map.of("topics", Map.of(topic, 10), "waitMs",
          payloads.isEmpty() ? 5_000 : 1_000));
      assertEquals(200, r.status(), r::text);
      if (r.json().get("items").isEmpty()) {
        return payloads;
      }
      for (JsonNode i : r.json().get("items")) {
        payloads.add(i.get("payload").asText());
        assertEquals(200, server.post("/v1/items/" + i.get("id").asText() + "/ack",
            Map.of("lease", i.get("lease").asText())).status());
      }
    }
  }

  @Test
  void theSecondEnqueueWithAnIdAnswers200DuplicateWithTheFirstItemsIdAndNothingIsEnqueued() {
    Reply first = server.post(NS + "/topics/orders/items", Map.of("payload", "first", "dedupId", "order-1"));
    assertEquals(201, first.status(), first::text);
    assertEquals(false, first.json().get("duplicate").asBoolean());
    String id = first.json().get("id").asText();

    Reply again = server.post(NS + "/topics/orders/items", Map.of("payload", "again", "dedupId", "order-1"));
    assertEquals(200, again.status(), again::text);
    assertTrue(again.json().get("duplicate").asBoolean(), again::text);
    assertEquals(id, again.json().get("id").asText(), "the first item's ID");
    assertEquals("/v1/items/" + id, again.header("Location"));

    Reply batch = server.post(NS + "/items", Map.of("items", List.of(
        Map.of("topic", "orders", "payload", "batched", "dedupId", "order-1"),
        Map.of("topic", "orders", "payload", "new", "dedupId", "order-2"))));
    assertEquals(200, batch.status(), batch::text);
    JsonNode results = batch.json().get("results");
    assertEquals("DUPLICATE", results.get(0).get("result").asText(), batch::text);
    assertEquals(id, results.get(0).get("id").asText());
    assertEquals(200, results.get(0).get("status").asInt());
    assertEquals("ENQUEUED", results.get(1).get("result").asText(), batch::text);

    assertEquals(List.of("first", "new"), drain("orders").stream().sorted().toList());
    await().atMost(Duration.ofSeconds(10)).until(() -> server.get("/metrics").text().lines()
        .filter(l -> l.startsWith("ordo_items_duplicate_total{namespace=\"shop\",topic=\"orders\"}"))
        .anyMatch(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) == 2.0));
    assertTrue(server.get("/metrics").text().contains("ordo_dedup_entries"), "the window's size is on /metrics");
  }

  @Test
  void aBadIdIsA400NamingTheField() {
    Reply tooLong = server.post(NS + "/topics/orders/items", Map.of("payload", "x", "dedupId", "d".repeat(129)));
    assertEquals(400, tooLong.status(), tooLong::text);
    assertTrue(tooLong.error().contains("dedupId is longer than 128"), tooLong::text);
    Reply space = server.post(NS + "/topics/orders/items", Map.of("payload", "x", "dedupId", "a b"));
    assertEquals(400, space.status(), space::text);
    assertTrue(space.error().contains("dedupId"), space::text);
    Reply notText = server.post(NS + "/topics/orders/items", Map.of("payload", "x", "dedupId", 7));
    assertEquals(400, notText.status(), notText::text);
  }

  @Test
  void theNamespacePolicySetsTheWindowAndZeroTurnsItOff() {
    Reply set = server.put("/v1/namespaces/quick/policy", "{\"dedupWindowMs\": 0}");
    assertEquals(200, set.status(), set::text);
    assertEquals(0, server.get("/v1/namespaces/quick/policy").json().get("dedupWindowMs").asLong());
    assertEquals(400, server.put("/v1/namespaces/quick/policy", "{\"dedupWindowMs\": -1}").status());
    assertEquals(400, server.put("/v1/namespaces/quick/policy", "{\"dedupWindowMs\": 86400001}").status());
    // The partitions read the policy within about a second: a pair with one ID until both are taken in.
    int[] pair = {0};
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
      String id = "same-" + pair[0]++;
      Reply r = server.post("/v1/namespaces/quick/topics/t/items", Map.of("payload", "x", "dedupId", id));
      assertEquals(201, r.status(), r::text);
      Reply again = server.post("/v1/namespaces/quick/topics/t/items", Map.of("payload", "y", "dedupId", id));
      return again.status() == 201 && !again.json().get("duplicate").asBoolean();
    });
    Reply third = server.post("/v1/namespaces/quick/topics/t/items", Map.of("payload", "z", "dedupId", "same-0"));
    assertEquals(201, third.status(), "deduplication is off: " + third.text());
  }
}
