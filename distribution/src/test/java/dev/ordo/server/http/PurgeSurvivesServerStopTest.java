package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A purge job whose server stops half-way: another instance, with none of the first one's state,
 * finishes it from the progress the partitions committed with their deletions. Every item enqueued
 * before the cutoff is purged exactly once (the counts are exact), leased ones are left alone, newer
 * items and other topics are untouched.
 */
@KafkaCluster
class PurgeSurvivesServerStopTest {
  @TempDir
  static Path tmp;

  private static final String NS = "/v1/namespaces/shop";
  /** Half an item a second per partition: a bucket of one, then one every 2 s; the job takes a while. */
  private static final Map<String, String> SLOW = Map.of(QueueConfig.PURGE_RATE_CONFIG, "0.5");

  private static void enqueue(TestServer s, String topic, String payload) {
    Reply r = s.post(NS + "/topics/" + topic + "/items", Map.of("payload", payload, "leaseMs", 120_000));
    assertEquals(201, r.status(), r::text);
  }

  private static long count(TestServer s, String topic, String field) {
    for (JsonNode t : s.get(NS + "/topics").json().get("topics")) {
      if (t.get("topic").asText().equals(topic)) {
        return t.get(field).asLong();
      }
    }
    return 0;
  }

  @Test
  void aPurgeAServerStoppedMidJobIsFinishedByAnotherInstanceWithExactCounts(RealKafka kafka) {
    String cluster = "purgestop";
    String jobPath;
    try (TestServer first = TestServer.startWithSettings(kafka, cluster, tmp.resolve("first"), SLOW)) {
      for (int i = 0; i < 30; i++) {
        enqueue(first, "old", "old-" + i);
      }
      for (int i = 0; i < 3; i++) {
        enqueue(first, "other", "other-" + i);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> count(first, "old", "ready") == 30);
      Reply leased = first.post(NS + "/dequeue", Map.of("topics", Map.of("old", 2), "waitMs", 5_000));
      assertEquals(2, leased.json().get("items").size(), leased::text);
      Instant cutoff = Instant.now();
      await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(cutoff.plusMillis(5)));
      for (int i = 0; i < 5; i++) {
        enqueue(first, "old", "new-" + i);
      }

      assertEquals(404, first.post(NS + "/topics/nope/purge", "{}").status(), "a topic without items");
      Reply bad = first.post(NS + "/topics/old/purge", "{\"enqueuedBefore\": \"yesterday\"}");
      assertEquals(400, bad.status(), bad::text);
      assertTrue(bad.error().contains("enqueuedBefore"), bad::text);
      assertEquals(400, first.post(NS + "/topics/old/purge", "{\"includeLeased\": 1}").status());

      Reply started = first.post(NS + "/topics/old/purge", Map.of("enqueuedBefore", cutoff.toString()));
      assertEquals(202, started.status(), started::text);
      assertEquals("PENDING", started.json().get("status").asText(), started::text);
      jobPath = started.header("Location");
      assertTrue(jobPath.endsWith("/purges/" + started.json().get("job").asText()), jobPath);
      await().atMost(Duration.ofSeconds(30)).until(() -> first.get(jobPath).json().get("purgedTotal").asLong() >= 2);
      JsonNode midway = first.get(jobPath).json();
      assertEquals("RUNNING", midway.get("status").asText(), midway::toString);
      assertTrue(midway.get("purgedTotal").asLong() < 28, midway::toString);
    }

    // Another instance, from nothing but Kafka: the tasks restore their stores, the jobs go on.
    try (TestServer second = TestServer.startWithSettings(kafka, cluster, tmp.resolve("second"), SLOW)) {
      JsonNode[] done = new JsonNode[1];
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> {
        done[0] = second.get(jobPath).json();
        return "DONE".equals(done[0].get("status").asText());
      });
      assertEquals(28, done[0].get("purgedTotal").asLong(), done[0]::toString);
      assertEquals(28, done[0].get("purged").get("READY").asLong(), done[0]::toString);
      assertEquals(2, done[0].get("leasedLeft").asLong(), "the two leased items were left alone");
      assertEquals(4, done[0].get("partitionsDone").asInt());

      await().atMost(Duration.ofSeconds(30)).until(() -> count(second, "old", "ready") == 5);
      assertEquals(2, count(second, "old", "leased"));
      List<String> left = new ArrayList<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        second.post(NS + "/dequeue", Map.of("topics", Map.of("old", 10), "waitMs", 1_000)).json().get("items")
            .forEach(i -> left.add(i.get("payload").asText()));
        return left.size() >= 5;
      });
      assertEquals(new TreeSet<>(List.of("new-0", "new-1", "new-2", "new-3", "new-4")), new TreeSet<>(left));
      assertEquals(3, count(second, "other", "ready"), "another topic is untouched");
      assertTrue(second.get("/metrics").text().contains("ordo_items_purged_total{"), "purges are on /metrics");
      assertEquals(404, second.get(NS + "/topics/old/purges/t-000000000000").status());
    }
  }
}
