package dev.ordo.faults;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A purge job whose server is killed with SIGKILL half-way (mid-transaction, as a crashed machine):
 * another instance, with none of the first one's state, finishes it from the progress the partitions
 * committed with their deletions (decisions D56). The counts are exact, so nothing was purged twice
 * (a deletion redone after the kill would count again) and nothing missed; the leased items are left
 * alone; newer items and other topics are untouched. The API's refusals of bad purge requests are
 * checked on the second instance.
 */
@KafkaCluster
class PurgeSurvivesKillTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String NS = "/v1/namespaces/shop";
  /** Half an item a second per partition: a bucket of one, then one every 2 s; the job takes a while. */
  private static final String SLOW = "0.5";

  @Test
  void aPurgeWhoseServerIsKilledMidJobIsFinishedByAnotherInstanceWithExactCounts(RealKafka kafka) throws Exception {
    String cluster = "purgekill";
    Path dir = Files.createTempDirectory("ordo-purge-kill");
    Map<String, String> settings = Map.of("ordo.cluster", cluster, "ordo.server.partitions", "4",
        "ordo.server.http.port", "0", "ordo.server.state.dir", dir.resolve("victim").toString(),
        QueueConfig.PURGE_RATE_CONFIG, SLOW);
    String jobPath;
    try (ServerProcess victim = ServerProcess.start("victim", kafka.bootstrapServers(), TestJvm.SERVER, settings,
        dir, Duration.ofSeconds(120))) {
      for (int i = 0; i < 30; i++) {
        enqueue(victim, "old", "old-" + i);
      }
      for (int i = 0; i < 3; i++) {
        enqueue(victim, "other", "other-" + i);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> count(victim, "old", "ready") == 30);
      JsonNode leased = post(victim, NS + "/dequeue", "{\"topics\": {\"old\": 2}, \"waitMs\": 5000}");
      assertEquals(2, leased.get("items").size(), leased::toString);
      Instant cutoff = Instant.now();
      await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(cutoff.plusMillis(5)));
      for (int i = 0; i < 5; i++) {
        enqueue(victim, "old", "new-" + i);
      }

      JsonNode started = post(victim, NS + "/topics/old/purge", "{\"enqueuedBefore\": \"" + cutoff + "\"}");
      jobPath = NS + "/topics/old/purges/" + started.get("job").asText();
      await().atMost(Duration.ofSeconds(30)).until(() -> get(victim, jobPath).path("purgedTotal").asLong() >= 2);
      JsonNode midway = get(victim, jobPath);
      assertEquals("RUNNING", midway.get("status").asText(), midway::toString);
      assertTrue(midway.get("purgedTotal").asLong() < 28, midway::toString);
      victim.kill();
    }

    // The second instance purges at the default rate: the slow one was to kill the first mid-job; the rest
    // of the job, from the progress the partitions committed, is what is checked here.
    try (TestServer second = TestServer.startWithSettings(kafka, cluster, dir.resolve("second"), Map.of())) {
      JsonNode[] done = new JsonNode[1];
      // The killed member leaves the group at its session timeout; then its partitions run here.
      await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).until(() -> {
        Reply r = second.get(jobPath);
        done[0] = r.status() == 200 ? r.json() : null;
        return done[0] != null && "DONE".equals(done[0].get("status").asText());
      });
      assertEquals(28, done[0].get("purgedTotal").asLong(), done[0]::toString);
      assertEquals(28, done[0].get("purged").get("READY").asLong(), done[0]::toString);
      assertEquals(2, done[0].get("leasedLeft").asLong(), "the two leased items were left alone");
      assertEquals(4, done[0].get("partitionsDone").asInt());

      List<String> left = new ArrayList<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        second.post(NS + "/dequeue", Map.of("topics", Map.of("old", 10), "waitMs", 1_000)).json().get("items")
            .forEach(i -> left.add(i.get("payload").asText()));
        return left.size() >= 5;
      });
      assertEquals(new TreeSet<>(List.of("new-0", "new-1", "new-2", "new-3", "new-4")), new TreeSet<>(left),
          "exactly the items enqueued after the cutoff are left");
      assertEquals(0, second.post(NS + "/dequeue", Map.of("topics", Map.of("old", 10), "waitMs", 500)).json()
          .get("items").size(), "no item of before the cutoff came back");
      List<String> others = new ArrayList<>();
      second.post(NS + "/dequeue", Map.of("topics", Map.of("other", 10), "waitMs", 2_000)).json().get("items")
          .forEach(i -> others.add(i.get("payload").asText()));
      assertEquals(List.of("other-0", "other-1", "other-2"), others.stream().sorted().toList(),
          "another topic is untouched");
      assertTrue(second.get("/metrics").text().contains("ordo_items_purged_total{"), "purges are on /metrics");

      // The API's answers to bad and unknown requests, and a new job's first answer.
      assertEquals(404, second.post(NS + "/topics/nope/purge", "{}").status(), "a topic without items");
      Reply bad = second.post(NS + "/topics/old/purge", "{\"enqueuedBefore\": \"yesterday\"}");
      assertEquals(400, bad.status(), bad::text);
      assertTrue(bad.error().contains("enqueuedBefore"), bad::text);
      assertEquals(400, second.post(NS + "/topics/old/purge", "{\"includeLeased\": 1}").status());
      assertEquals(404, second.get(NS + "/topics/old/purges/t-000000000000").status());
      Reply next = second.post(NS + "/topics/old/purge", Map.of("enqueuedBefore", "2001-01-01T00:00:00Z"));
      assertEquals(202, next.status(), next::text);
      assertEquals("PENDING", next.json().get("status").asText(), next::text);
      assertTrue(next.header("Location").endsWith("/purges/" + next.json().get("job").asText()), next::text);
    }
  }

  private static void enqueue(ServerProcess s, String topic, String payload) throws Exception {
    post(s, NS + "/topics/" + topic + "/items", "{\"payload\": \"" + payload + "\", \"leaseMs\": 120000}");
  }

  private static long count(ServerProcess s, String topic, String field) throws Exception {
    for (JsonNode t : get(s, NS + "/topics").path("topics")) {
      if (t.get("topic").asText().equals(topic)) {
        return t.get(field).asLong();
      }
    }
    return 0;
  }

  private static JsonNode post(ServerProcess s, String path, String body) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(s.httpAddress().resolve(path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    assertTrue(r.statusCode() / 100 == 2, () -> path + ": " + r.statusCode() + " " + r.body());
    return JSON.readTree(r.body());
  }

  private static JsonNode get(ServerProcess s, String path) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(s.httpAddress().resolve(path))
        .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), () -> path + ": " + r.body());
    return JSON.readTree(r.body());
  }
}
