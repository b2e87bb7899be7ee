package dev.ordo.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spare capacity on a real cluster (decisions D58): {@code /metrics} shows a consumer group's empty
 * dequeues rising on an empty topic, and its busy ratio over half while it holds an item with no worker
 * waiting, under half once it has been idle a window; a lease consumer's stats and meters do the same
 * while its one handler blocks on a latch the test holds. The window is 1 s here; no assertion is on
 * a time, only on which side of one half the ratio is once it got there.
 */
@KafkaCluster
class SpareCapacityScrapeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "/v1/namespaces/shop";
  private static final String CLUSTER = "spare";

  @TempDir
  static Path tmp;
  static TestServer server;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.startWithSettings(kafka, CLUSTER, tmp, Map.of(QueueClientConfig.BUSY_WINDOW_CONFIG, "1000"));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void theHttpPathShowsEmptyDequeuesAndABusyRatioByGroupAndTopic() throws Exception {
    String empty = "ordo_consumer_empty_dequeues_total{group=\"night-shift\",namespace=\"shop\",topic=\"jobs\"}";
    String busy = "ordo_consumer_busy_ratio{group=\"night-shift\",namespace=\"shop\",topic=\"jobs\"}";
    assertEquals(0, dequeue("jobs", 200).size(), "an empty topic");
    double first = metric(empty);
    assertTrue(first >= 1, "the empty dequeue counted: " + first);
    assertEquals(0, dequeue("jobs", 200).size());
    assertTrue(metric(empty) > first, "empty dequeues rise on an empty topic");
    assertTrue(metric(busy) < 0.5, "nothing held: " + metric(busy));
    HttpResponse<String> bad = HTTP.send(HttpRequest.newBuilder(URI.create(server.address() + NS + "/dequeue"))
        .header("X-Ordo-Consumer-Group", "night shift!").POST(HttpRequest.BodyPublishers.ofString(
            "{\"topics\": {\"jobs\": 1}}")).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(400, bad.statusCode(), "a group name is a metrics label: " + bad.body());
    assertEquals(0, server.post(NS + "/dequeue", Map.of("topics", Map.of("jobs", 1), "waitMs", 100)).json()
        .get("items").size());
    assertTrue(metric("ordo_consumer_empty_dequeues_total{group=\"anonymous\",namespace=\"shop\",topic=\"jobs\"}")
        >= 1, "without the header the caller's principal is the group");

    assertEquals(201, server.post(NS + "/topics/jobs/items", Map.of("payload", "work", "leaseMs", 120_000)).status());
    JsonNode[] held = new JsonNode[1];
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      var items = dequeue("jobs", 1_000);
      held[0] = items.isEmpty() ? null : items.get(0);
      return held[0] != null;
    });
    double before = metric(empty);
    // The group holds the item and no worker of it waits: busy, saturated.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> metric(busy) > 0.5);
    assertEquals(before, metric(empty), "holding an item is not an empty dequeue");

    assertEquals(200, server.post("/v1/items/" + held[0].get("id").asText() + "/ack",
        Map.of("lease", held[0].get("lease").asText())).status());
    // Acked, nothing held: the ratio falls under a half once a window has passed idle.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> metric(busy) < 0.5);
  }

  @Test
  void aLeaseConsumerWhoseHandlerBlocksIsBusyAndAfterwardsIdle(RealKafka kafka) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger handled = new AtomicInteger();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (LeaseConsumer consumer = new LeaseConsumer(consumerConfig(kafka))) {
      consumer.bindMetrics(registry);
      consumer.start(item -> {
        release.await();
        handled.incrementAndGet();
      });
      // Idle on an empty topic: polls bring nothing to a free slot.
      await().atMost(Duration.ofSeconds(60)).until(() -> consumer.stats().emptyDequeues() > 0);
      assertTrue(consumer.stats().busyRatio() < 0.5, consumer.stats()::toString);

      assertEquals(201, server.post(NS + "/topics/latched/items", Map.of("payload", "block")).status());
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> consumer.stats().busyRatio() > 0.5);
      double gauge = registry.get("ordo.consumer.busy.ratio").tags("namespace", "shop", "topic", "latched",
          "group", "spare-workers").gauge().value();
      assertTrue(gauge > 0.5, "the meter says what the stats say: " + gauge);
      long emptyWhileBusy = consumer.stats().emptyDequeues();

      release.countDown();
      await().atMost(Duration.ofSeconds(60)).until(() -> handled.get() == 1);
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> consumer.stats().busyRatio() < 0.5);
      await().atMost(Duration.ofSeconds(60)).until(() -> consumer.stats().emptyDequeues() > emptyWhileBusy);
      assertTrue(registry.get("ordo.consumer.empty.dequeues").tags("topic", "latched").functionCounter().count() > 0);
    }
  }

  private static Map<String, Object> consumerConfig(RealKafka kafka) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueClientConfig.CLUSTER_CONFIG, CLUSTER);
    c.put(QueueClientConfig.BUSY_WINDOW_CONFIG, 1_000L);
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, "spare-workers");
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, "shop");
    c.put(LeaseConsumerConfig.TOPICS_CONFIG, "latched");
    c.put(LeaseConsumerConfig.WORKERS_CONFIG, 1);
    c.put(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 1);
    return c;
  }

  /** A dequeue over HTTP as a worker of the group night-shift. */
  private static JsonNode dequeue(String topic, long waitMs) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.address() + NS + "/dequeue"))
        .header("Content-Type", "application/json").header("X-Ordo-Consumer-Group", "night-shift")
        .POST(HttpRequest.BodyPublishers.ofString("{\"topics\": {\"" + topic + "\": 1}, \"waitMs\": " + waitMs + "}"))
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body()).get("items");
  }

  /** The value of the sample {@code series} (name and labels as printed) on /metrics; NaN when absent. */
  private static double metric(String series) {
    for (String line : server.get("/metrics").text().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return Double.NaN;
  }
}
