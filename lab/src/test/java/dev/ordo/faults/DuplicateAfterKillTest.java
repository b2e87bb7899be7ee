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
import org.junit.jupiter.api.Test;

/**
 * A deduplication ID outlives the server that took its first item in (decisions D57): an {@code ordo
 * server} process takes the first item and is killed with SIGKILL right after answering (maybe before
 * its transaction committed); another instance, with none of its state, restores the partition's
 * window from Kafka and refuses the duplicate with the first item's ID. One item is delivered.
 */
@KafkaCluster
class DuplicateAfterKillTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "/v1/namespaces/shop";

  @Test
  void aDuplicateSentAfterTheFirstItemsServerWasKilledIsRefusedWithTheFirstItemsId(RealKafka kafka) throws Exception {
    String cluster = "dedupkill";
    Path dir = Files.createTempDirectory("ordo-dedup-kill");
    Map<String, String> settings = Map.of("ordo.cluster", cluster, "ordo.server.partitions", "4",
        "ordo.server.http.port", "0", "ordo.server.state.dir", dir.resolve("victim").toString());
    String firstId;
    try (ServerProcess victim = ServerProcess.start("victim", kafka.bootstrapServers(), TestJvm.SERVER, settings,
        dir, Duration.ofSeconds(120))) {
      HttpResponse<String> first = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              victim.httpAddress().resolve(NS + "/topics/orders/items"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"payload\": \"first\", \"dedupId\": \"order-9\"}"))
          .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(201, first.statusCode(), first::body);
      firstId = JSON.readTree(first.body()).get("id").asText();
      victim.kill();
    }

    try (TestServer second = TestServer.startWithPartitions(kafka, cluster, dir.resolve("second"), 4)) {
      // The killed member leaves the group at its session timeout; then every partition runs here.
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
          .until(() -> activePartitions(second) == 4);
      Reply again = second.post(NS + "/topics/orders/items", Map.of("payload", "again", "dedupId", "order-9"));
      assertEquals(200, again.status(), again::text);
      assertTrue(again.json().get("duplicate").asBoolean(), again::text);
      assertEquals(firstId, again.json().get("id").asText(), "the first item's ID, taken in by the killed server");

      List<String> payloads = new ArrayList<>();
      while (true) {
        Reply r = second.post(NS + "/dequeue", Map.of("topics", Map.of("orders", 10), "waitMs",
            payloads.isEmpty() ? 5_000 : 1_000));
        if (r.json().get("items").isEmpty()) {
          break;
        }
        r.json().get("items").forEach(i -> payloads.add(i.get("payload").asText()));
      }
      assertEquals(List.of("first"), payloads, "the first item, once");
    }
  }

  private static int activePartitions(TestServer s) {
    int n = 0;
    for (JsonNode instance : s.get("/v1/cluster").json().path("instances")) {
      if (instance.path("self").asBoolean()) {
        n += instance.path("activePartitions").size();
      }
    }
    return n;
  }
}
