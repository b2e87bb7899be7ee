package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.dlq.DeadLetters;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.RealKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Dead letters made through a server's HTTP API, and what a redrive wrote, read back from Kafka. */
final class DeadLetterFixtures {
  private DeadLetterFixtures() {}

  /**
   * Enqueues {@code n} items (payloads {@code <prefix>-0..}), leases them and nacks each: with
   * {@code reject} they go to the dead letters as REJECTED, else they die of MAX_ATTEMPTS (one attempt
   * each). Returns the dead letters' IDs once all are listed.
   */
  static List<String> deadLetters(TestServer server, String ns, String topic, String prefix, int n, boolean reject) {
    List<Map<String, Object>> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      items.add(Map.of("topic", topic, "payload", prefix + "-" + i, "maxAttempts", 1, "metadata", "m-" + i,
          "priority", i % 3));
    }
    Reply enq = server.post("/v1/namespaces/" + ns + "/items", Map.of("items", items));
    assertEquals(200, enq.status(), enq::text);
    List<JsonNode> leased = new ArrayList<>();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      Reply r = server.post("/v1/namespaces/" + ns + "/dequeue", Map.of("topics", Map.of(topic, n - leased.size()),
          "waitMs", 2000));
      r.json().get("items").forEach(leased::add);
      return leased.size() >= n;
    });
    List<Map<String, Object>> nacks = new ArrayList<>();
    for (JsonNode item : leased) {
      Map<String, Object> nack = new LinkedHashMap<>();
      nack.put("id", item.get("id").asText());
      nack.put("lease", item.get("lease").asText());
      nack.put("error", "boom " + item.get("payload").asText());
      nack.put("deadLetter", reject);
      nacks.add(nack);
    }
    Reply nacked = server.post("/v1/items/nack", Map.of("items", nacks));
    assertEquals(200, nacked.status(), nacked::text);
    List<String> ids = new ArrayList<>();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      ids.clear();
      String cursor = null;
      do {
        Reply page = server.get("/v1/dlq?namespace=" + ns + "&topic=" + topic + "&limit=1000"
            + (cursor == null ? "" : "&cursor=" + cursor));
        page.json().get("deadLetters").forEach(d -> ids.add(d.get("id").asText()));
        cursor = page.json().get("nextCursor").isNull() ? null : page.json().get("nextCursor").asText();
      } while (cursor != null);
      return ids.size() >= n;
    });
    assertEquals(n, ids.size(), ids::toString);
    return ids;
  }

  /** Waits for a job to finish and returns its last view. */
  static JsonNode awaitJob(TestServer server, String path) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
      Reply r = server.get(path);
      assertEquals(200, r.status(), r::text);
      last[0] = r.json();
      return r.json().get("status").asText().equals("DONE") || r.json().get("status").asText().equals("FAILED");
    });
    assertEquals("DONE", last[0].get("status").asText(), last[0]::toString);
    return last[0];
  }

  /**
   * Every record of {@code <cluster>.items} that a redrive wrote, by the dead letter it came from
   * ({@value DeadLetters#REDRIVEN_FROM_HEADER}), as a reader at {@code isolation} sees them: one
   * entry per record, so a dead letter sent twice shows twice.
   */
  static Map<String, List<String>> redrivenItems(RealKafka kafka, String cluster, String isolation) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put("isolation.level", isolation);
    Map<String, List<String>> out = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> parts = consumer.partitionsFor(cluster + ".items").stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          Header from = r.headers().lastHeader(DeadLetters.REDRIVEN_FROM_HEADER);
          if (from != null) {
            out.computeIfAbsent(new String(from.value(), StandardCharsets.UTF_8), k -> new ArrayList<>())
                .add(r.partition() + "-" + r.offset());
          }
        }
        return parts.stream().allMatch(p -> consumer.position(p) >= end.get(p));
      });
    }
    return out;
  }

  /** Leases every ready item of a topic (up to {@code expected}, waiting for them) and returns their payloads. */
  static List<String> drain(TestServer server, String ns, String topic, int expected) {
    List<String> payloads = new ArrayList<>();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      Reply r = server.post("/v1/namespaces/" + ns + "/dequeue", Map.of("topics", Map.of(topic, 1000), "waitMs", 1000));
      r.json().get("items").forEach(i -> payloads.add(i.get("payload").asText()));
      return payloads.size() >= expected;
    });
    // Nothing more comes: a dequeue that waits finds none.
    Reply more = server.post("/v1/namespaces/" + ns + "/dequeue", Map.of("topics", Map.of(topic, 1000), "waitMs", 1500));
    more.json().get("items").forEach(i -> payloads.add(i.get("payload").asText()));
    return payloads;
  }
}
