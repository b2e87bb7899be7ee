package dev.ordo.faults;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A partition whose owner hangs (decisions D58): two instances, one queue partition each; the owner of
 * one is an {@code ordo server} process stopped with SIGSTOP (as a long GC pause or a stuck process
 * would stop it) while its partition holds the best items. Dequeues over the other instance's HTTP API
 * are answered within their wait with the other partition's items, the breaker of the hung partition
 * shows open on {@code /metrics}; after SIGCONT its items are dequeued again and the breaker closes.
 * Without the breaker each dequeue that asked the hung partition would answer only after its wait.
 */
@KafkaCluster
class HungPartitionBreakerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "/v1/namespaces/shop";
  /** Longer than any answer from ready items here: a dequeue answered within it was not held. */
  private static final long WAIT_MS = 20_000;

  @Test
  void dequeuesAreServedByTheOtherPartitionWhileOneIsHungAndUseItAgainOnceItAnswers(RealKafka kafka)
      throws Exception {
    String cluster = "hung";
    Path dir = Files.createTempDirectory("ordo-hung-partition");
    Map<String, String> victimSettings = Map.of("ordo.cluster", cluster, "ordo.server.partitions", "2",
        "ordo.server.http.port", "0", "ordo.server.state.dir", dir.resolve("victim").toString());
    try (ServerProcess victim = ServerProcess.start("victim", kafka.bootstrapServers(), TestJvm.SERVER,
        victimSettings, dir, Duration.ofSeconds(120));
         TestServer server = TestServer.startWithSettings(kafka, cluster, dir.resolve("server"), Map.of(
             QueueClientConfig.BREAKER_TIMEOUTS_CONFIG, "1", QueueClientConfig.BREAKER_OPEN_CONFIG, "1000"))) {
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
          .until(() -> victim.activePartitions().size() == 1 && active(server).size() == 1);
      int hung = victim.activePartitions().iterator().next();
      int alive = active(server).iterator().next();
      assertFalse(hung == alive);

      // The hung partition holds the best items (priority 0), so every dequeue's plan asks it first.
      String hungKey = keyOn(server, hung);
      String aliveKey = keyOn(server, alive);
      for (int i = 0; i < 4; i++) {
        enqueue(server, hungKey, 0, "hung-" + i);
      }
      for (int i = 0; i < 10; i++) {
        enqueue(server, aliveKey, 5, "alive-" + i);
      }
      // The topic stats show every item (the finders' too), the hung partition's among them.
      await().atMost(Duration.ofSeconds(30)).until(() -> ready(server) == enqueued);

      signal(victim, "STOP");
      try {
        for (int round = 0; round < 3; round++) {
          JsonNode items = dequeue(server, 2); // fails if not answered within its wait
          assertFalse(items.isEmpty(), "round " + round + ": served by the partition that answers");
          for (JsonNode item : items) {
            assertTrue(item.get("id").asText().startsWith(alive + "-"), item::toString);
          }
        }
        String metrics = server.get("/metrics").text();
        assertTrue(sample(metrics, "ordo_client_partition_breaker_state", hung) >= 1, "open or probing:\n"
            + lines(metrics, "ordo_client_partition_breaker"));
        assertTrue(sample(metrics, "ordo_client_partition_breaker_opens_total", hung) >= 1);
        assertEquals(0, sample(metrics, "ordo_client_partition_breaker_state", alive));
      } finally {
        signal(victim, "CONT");
      }

      // Answering again: a probe finds it, its items are dequeued, its breaker closes.
      List<String> fromHung = new ArrayList<>();
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
        for (JsonNode item : dequeue(server, 2)) {
          if (item.get("id").asText().startsWith(hung + "-")) {
            fromHung.add(item.get("payload").asText());
          }
        }
        return !fromHung.isEmpty();
      });
      assertTrue(fromHung.get(0).startsWith("hung-"), fromHung::toString);
      await().atMost(Duration.ofSeconds(30))
          .until(() -> sample(server.get("/metrics").text(), "ordo_client_partition_breaker_state", hung) == 0);
    }
  }

  private static Set<Integer> active(TestServer s) {
    Set<Integer> out = new java.util.TreeSet<>();
    for (JsonNode instance : s.get("/v1/cluster").json().path("instances")) {
      if (instance.path("self").asBoolean()) {
        instance.path("activePartitions").forEach(p -> out.add(p.asInt()));
      }
    }
    return out;
  }

  /** A group key whose items go to {@code partition}: tried by enqueuing one item (priority 9) per key. */
  private static String keyOn(TestServer s, int partition) {
    for (int i = 0; i < 64; i++) {
      String key = "k" + i;
      String id = enqueue(s, key, 9, "finder");
      if (id.startsWith(partition + "-")) {
        return key;
      }
    }
    throw new AssertionError("no group key of 64 went to partition " + partition);
  }

  /** Items enqueued so far, finders included. */
  private static int enqueued;

  private static String enqueue(TestServer s, String groupKey, int priority, String payload) {
    var r = s.post(NS + "/topics/jobs/items", Map.of("payload", payload, "groupKey", groupKey, "priority", priority,
        "leaseMs", 120_000));
    assertEquals(201, r.status(), r::text);
    enqueued++;
    return r.json().get("id").asText();
  }

  private static long ready(TestServer s) {
    for (JsonNode t : s.get(NS + "/topics").json().get("topics")) {
      if (t.get("topic").asText().equals("jobs")) {
        return t.get("ready").asLong();
      }
    }
    return -1;
  }

  /** A dequeue of {@code count} jobs waiting up to WAIT_MS; the request fails if not answered within it. */
  private static JsonNode dequeue(TestServer s, int count) throws IOException, InterruptedException {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(s.address() + NS + "/dequeue"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"topics\": {\"jobs\": " + count + "}, \"waitMs\": " + WAIT_MS + "}"))
        .timeout(Duration.ofMillis(WAIT_MS)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body()).get("items");
  }

  private static void signal(ServerProcess p, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + signal);
  }

  /** The value of {@code name}'s sample for {@code partition} (any client); -1 when absent. */
  private static double sample(String metrics, String name, int partition) {
    for (String line : metrics.split("\n")) {
      if (line.startsWith(name + "{") && line.contains("partition=\"" + partition + "\"")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return -1;
  }

  private static String lines(String metrics, String prefix) {
    StringBuilder b = new StringBuilder();
    for (String line : metrics.split("\n")) {
      if (line.startsWith(prefix)) {
        b.append(line).append('\n');
      }
    }
    return b.toString();
  }
}
