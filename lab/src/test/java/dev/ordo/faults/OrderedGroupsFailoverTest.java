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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Ordered groups across a failover (docs/queue.md, "Ordered groups"; decisions D60): an {@code ordo
 * server} process holds four ordered groups with one head acked, one nacked with a delay, two leased,
 * and the next item of the acked group leased, and is killed with SIGKILL. Another instance, with none
 * of its state, rebuilds the partitions' item tables and indexes from Kafka and serves the rest: at most
 * one item of a group per dequeue, each group in enqueue order from where it stood (the leased heads
 * come back first when their leases run out, the nacked head when its delay ends), every item acked.
 */
@KafkaCluster
class OrderedGroupsFailoverTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "/v1/namespaces/fifo";
  private static final int GROUPS = 4;
  private static final int PER_GROUP = 5;

  @Test
  void eachGroupStaysInOrderWhenTheServerHoldingItsHeadsIsKilled(RealKafka kafka) throws Exception {
    String cluster = "orderkill";
    Path dir = Files.createTempDirectory("ordo-order-kill");
    Map<String, String> settings = Map.of("ordo.cluster", cluster, "ordo.server.partitions", "2",
        "ordo.server.http.port", "0", "ordo.server.state.dir", dir.resolve("victim").toString());
    Map<String, List<String>> enqueued = new LinkedHashMap<>();
    Set<String> ackedBefore = new HashSet<>();
    try (ServerProcess victim = ServerProcess.start("victim", kafka.bootstrapServers(), TestJvm.SERVER, settings,
        dir, Duration.ofSeconds(120))) {
      URI at = victim.httpAddress();
      assertEquals(200, send(at, "PUT", NS + "/policy", Map.of("ordered", true)).get("status").asInt());
      awaitOrdered(at);

      for (int i = 0; i < PER_GROUP; i++) { // interleaved: g0 g1 g2 g3 g0 g1 ...
        for (int g = 0; g < GROUPS; g++) {
          JsonNode r = send(at, "POST", NS + "/topics/t/items",
              Map.of("payload", "g" + g + "-" + i, "groupKey", "g" + g, "leaseMs", 2_000, "priority", i % 2 * 5));
          assertEquals(201, r.get("status").asInt(), r::toString);
          enqueued.computeIfAbsent("g" + g, k -> new ArrayList<>()).add(r.get("body").get("id").asText());
        }
      }
      Map<String, JsonNode> heads = new HashMap<>();
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (heads.size() < GROUPS && System.nanoTime() < until) { // a dequeue may end with some of them
        for (JsonNode item : dequeue(at, GROUPS - heads.size(), 2_000)) {
          assertEquals(null, heads.put(item.get("groupKey").asText(), item), "a second item of a group: " + item);
        }
      }
      for (int g = 0; g < GROUPS; g++) {
        assertEquals(enqueued.get("g" + g).get(0), heads.get("g" + g).get("id").asText(), "group g" + g + "'s head alone");
      }
      assertEquals(GROUPS, heads.size());
      JsonNode g0 = heads.get("g0");
      assertEquals(200, send(at, "POST", "/v1/items/" + g0.get("id").asText() + "/ack",
          Map.of("lease", g0.get("lease").asText())).get("status").asInt());
      JsonNode g1 = heads.get("g1");
      assertEquals(200, send(at, "POST", "/v1/items/" + g1.get("id").asText() + "/nack",
          Map.of("lease", g1.get("lease").asText(), "delayMs", 3_000)).get("status").asInt());
      List<JsonNode> next = new ArrayList<>();
      until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (next.isEmpty() && System.nanoTime() < until) {
        next.addAll(dequeue(at, 2, 1_000));
      }
      next.addAll(dequeue(at, 2, 500));
      assertEquals(List.of(enqueued.get("g0").get(1)), next.stream().map(i -> i.get("id").asText()).toList(),
          "g0's second (its head was acked); g1 waits for its nacked head, g2 and g3 for their leased heads");
      // The ack committed before the kill (a look-up reads committed state): else it may be lost with it.
      await().atMost(Duration.ofSeconds(10)).until(() ->
          send(at, "GET", "/v1/items/" + g0.get("id").asText(), null).get("status").asInt() == 404);
      ackedBefore.add(g0.get("id").asText());
      victim.kill();
    }

    try (TestServer survivor = TestServer.startWithPartitions(kafka, cluster, dir.resolve("survivor"), 2)) {
      Map<String, List<String>> served = new HashMap<>();
      Set<String> acked = new HashSet<>(ackedBefore);
      int total = GROUPS * PER_GROUP;
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (acked.size() < total && System.nanoTime() < deadline) {
        Reply r = survivor.post(NS + "/dequeue", Map.of("topics", Map.of("t", GROUPS), "waitMs", 500));
        if (r.status() != 200) {
          continue; // a partition not yet running here
        }
        Set<String> groupsNow = new HashSet<>();
        for (JsonNode item : r.json().get("items")) {
          String group = item.get("groupKey").asText();
          assertTrue(groupsNow.add(group), "two items of " + group + " leased at once: " + r.text());
          String id = item.get("id").asText();
          List<String> seen = served.computeIfAbsent(group, k -> new ArrayList<>());
          if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(id)) {
            seen.add(id);
          }
          Reply ack = survivor.post("/v1/items/" + id + "/ack", Map.of("lease", item.get("lease").asText()));
          assertEquals(200, ack.status(), ack::text);
          acked.add(id);
        }
      }
      assertEquals(total, acked.size(), "every item acked; served after the kill: " + served);
      for (int g = 0; g < GROUPS; g++) {
        List<String> order = enqueued.get("g" + g);
        List<String> expected = new ArrayList<>(order);
        expected.removeAll(ackedBefore);
        assertEquals(expected, served.get("g" + g), "group g" + g + " in enqueue order from where it stood");
      }
    }
  }

  /**
   * Waits until the victim's partitions read the policy: two items of one group key in a probe topic,
   * and a dequeue of both gets one (the second waits for the first). Each probe uses a new group key.
   */
  private static void awaitOrdered(URI at) throws Exception {
    for (int probe = 0; ; probe++) {
      String group = "probe-" + probe;
      for (int i = 0; i < 2; i++) {
        assertEquals(201, send(at, "POST", NS + "/topics/probe/items", Map.of("payload", "p", "groupKey", group))
            .get("status").asInt());
      }
      List<JsonNode> items = dequeueFrom(at, "probe", 2, 300); // both at once unless ordered
      items.forEach(i -> ack(at, i));
      if (items.size() == 1) {
        dequeueFrom(at, "probe", 1, 5_000).forEach(i -> ack(at, i)); // the second, after the first's ack
        return;
      }
    }
  }

  private static void ack(URI at, JsonNode item) {
    try {
      send(at, "POST", "/v1/items/" + item.get("id").asText() + "/ack", Map.of("lease", item.get("lease").asText()));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<JsonNode> dequeue(URI at, int n, int waitMs) throws Exception {
    return dequeueFrom(at, "t", n, waitMs);
  }

  private static List<JsonNode> dequeueFrom(URI at, String topic, int n, int waitMs) throws Exception {
    JsonNode r = send(at, "POST", NS + "/dequeue", Map.of("topics", Map.of(topic, n), "waitMs", waitMs));
    assertEquals(200, r.get("status").asInt(), r::toString);
    List<JsonNode> out = new ArrayList<>();
    r.get("body").get("items").forEach(out::add);
    return out;
  }

  /** {"status", "body"} of a JSON request to the server process. */
  private static JsonNode send(URI at, String method, String path, Object body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(at.resolve(path)).timeout(Duration.ofSeconds(30));
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    }
    HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    Map<String, Object> out = new HashMap<>();
    out.put("status", r.statusCode());
    out.put("body", r.body().isEmpty() ? null : JSON.readTree(r.body()));
    return JSON.valueToTree(out);
  }
}
