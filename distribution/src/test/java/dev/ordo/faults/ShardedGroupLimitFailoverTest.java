package dev.ordo.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.api.ItemId;
import dev.ordo.api.Shards;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shuffle sharding's concurrency limit across instances and a failover (docs/queue.md, "Shuffle
 * sharding"; decisions D62): {@code shards: 2, groupConcurrency: 3} on a queue of 4 partitions served by
 * two instances; a group's items spread over its two shards by the HTTP producer, each shard holding its
 * part of the limit (2 and 1). Dequeues over both instances, acks in between, one instance closed midway
 * (its partitions move to the other, their leases restored there): the group never has more than 3 items
 * out at once (counting every lease not yet acked, so more than the queue's own count), and has 3 out.
 */
@KafkaCluster
class ShardedGroupLimitFailoverTest {
  private static final String NS = "/v1/namespaces/sharded";
  private static final int PARTITIONS = 4;
  private static final int ITEMS = 30;
  private static final int PROBES = 40;

  @TempDir
  Path tmp;

  @Test
  void aShardedGroupNeverHasMoreThanItsLimitOutAcrossInstancesAndAFailover(RealKafka kafka) {
    String cluster = "shardlimit";
    TestServer a = TestServer.startWithPartitions(kafka, cluster, tmp.resolve("a"), PARTITIONS);
    boolean failedOver = false;
    try (TestServer b = TestServer.startWithPartitions(kafka, cluster, tmp.resolve("b"), PARTITIONS)) {
      StringBuilder probes = new StringBuilder();
      for (int i = 0; i < PROBES; i++) {
        probes.append(i == 0 ? "" : ", ").append("\"probe-").append(i).append("\": 1");
      }
      Reply put = a.put(NS + "/policy", "{\"shards\": 2, \"groupConcurrency\": 3, \"groupConcurrencyOverrides\": {"
          + probes + "}}");
      assertEquals(200, put.status(), put::text);
      awaitLimitsEverywhere(a);

      int[] shards = Shards.of("g", 2, PARTITIONS);
      Map<Integer, Integer> perPartition = new LinkedHashMap<>();
      for (int i = 0; i < ITEMS; i++) {
        Reply r = a.post(NS + "/topics/t/items", Map.of("payload", "g-" + i, "groupKey", "g", "leaseMs", 60_000));
        assertEquals(201, r.status(), r::text);
        perPartition.merge(ItemId.parse(r.json().get("id").asText()).partition(), 1, Integer::sum);
      }
      assertEquals(Set.of(shards[0], shards[1]), perPartition.keySet(), "the group's items on its two shards: " + perPartition);

      Map<String, String> out = new LinkedHashMap<>(); // item -> lease, not yet acked
      Set<String> acked = new HashSet<>();
      int most = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      for (int round = 0; acked.size() < ITEMS && System.nanoTime() < deadline; round++) {
        TestServer at = failedOver || round % 2 == 0 ? b : a;
        Reply r = at.post(NS + "/dequeue", Map.of("topics", Map.of("t", 3), "waitMs", 300));
        if (r.status() == 200) {
          for (JsonNode item : r.json().get("items")) {
            out.put(item.get("id").asText(), item.get("lease").asText());
          }
        }
        assertTrue(out.size() <= 3, "the group has " + out.size() + " items out, over its limit of 3: " + out.keySet());
        most = Math.max(most, out.size());
        if (out.size() == 3 || r.status() != 200 || r.json().get("items").isEmpty()) {
          String id = out.keySet().iterator().next();
          Reply ack = b.post("/v1/items/" + id + "/ack", Map.of("lease", out.get(id)));
          assertEquals(200, ack.status(), ack::text);
          out.remove(id);
          acked.add(id);
        }
        if (!failedOver && acked.size() >= ITEMS / 3 && out.size() >= 2) {
          a.close(); // with leases out: its partitions and their leases move to b
          failedOver = true;
        }
      }
      assertTrue(failedOver);
      assertEquals(ITEMS, acked.size(), "every item served and acked");
      assertEquals(3, most, "the whole limit usable across the two shards");
    } finally {
      if (!failedOver) {
        a.close();
      }
    }
  }

  /**
   * Waits until every partition applies the policy: groups probe-0..39 each have a limit of 1 (so one
   * shard, their home): two items of one, and a dequeue of both gets one. Until each partition has
   * shown it for some probe.
   */
  private static void awaitLimitsEverywhere(TestServer a) {
    Set<Integer> shown = new HashSet<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (int probe = 0; shown.size() < PARTITIONS && System.nanoTime() < deadline; probe = (probe + 1) % PROBES) {
      String group = "probe-" + probe;
      int home = Shards.home(group, PARTITIONS);
      if (shown.contains(home)) {
        continue;
      }
      for (int i = 0; i < 2; i++) {
        assertEquals(201, a.post(NS + "/topics/probe/items", Map.of("payload", "p", "groupKey", group)).status());
      }
      int got = 0;
      for (int tries = 0; got < 2 && tries < 3; tries++) {
        Reply r = a.post(NS + "/dequeue", Map.of("topics", Map.of("probe", 2), "waitMs", 300));
        if (r.status() != 200) {
          continue;
        }
        for (JsonNode item : r.json().get("items")) {
          got++;
          a.post("/v1/items/" + item.get("id").asText() + "/ack", Map.of("lease", item.get("lease").asText()));
        }
        if (got == 1) {
          break;
        }
      }
      if (got == 1) {
        shown.add(home);
      }
      // drain what is left of the probe (its second item after the first's ack)
      for (int tries = 0; tries < 3; tries++) {
        Reply r = a.post(NS + "/dequeue", Map.of("topics", Map.of("probe", 2), "waitMs", 200));
        if (r.status() == 200) {
          for (JsonNode item : r.json().get("items")) {
            a.post("/v1/items/" + item.get("id").asText() + "/ack", Map.of("lease", item.get("lease").asText()));
          }
        }
      }
    }
    assertEquals(PARTITIONS, shown.size(), "every partition applies the policy's limits");
  }
}
