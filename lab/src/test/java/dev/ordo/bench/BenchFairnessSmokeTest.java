package dev.ordo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the fairness scenario of issue 14 end to end with tiny sizes against a real in-JVM Kafka:
 * every item of every group was delivered, the dispatch order was read back whole, Alice's and
 * Bob's keys share a partition, and the table and the JSON carry the figures. No figure is compared
 * with a target: timings prove nothing here.
 */
@KafkaCluster
class BenchFairnessSmokeTest {

  @Test
  void fairnessReportsEveryPartInTheTableAndTheJson(RealKafka kafka, @TempDir Path dir) throws Exception {
    Path json = dir.resolve("bench.json");
    BenchOptions options = BenchOptions.parse("--quick", "--rounds", "1", "--scenarios", "fairness",
        "--fair-backlog", "1000", "--fair-baseline", "3", "--fair-weighted", "40", "--fair-keys", "10",
        "--items", "300", "--latency-seconds", "1", "--partitions", "2", "--max-in-flight", "20",
        "--warm-up-seconds", "0", "--json", json.toString());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    BenchReport report = Bench.run(kafka.bootstrapServers(), options, new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertTrue(report.notes().stream().noneMatch(n -> n.contains("failed")), () -> "notes: " + report.notes());
    assertTrue(report.notes().stream().anyMatch(n -> n.startsWith("fairness warm-up: 1 uncounted rounds")),
        () -> "--warm-up-seconds 0 runs exactly one uncounted fairness round: " + report.notes());
    assertNull(report.exactlyOnce(), "only the named scenario ran");
    assertNull(report.surge());
    BenchReport.FairQueue q = report.fairness().queue();
    assertEquals(1_000, q.bobEnqueued());
    assertEquals(q.bobEnqueued(), q.bobDelivered(), "every item of Bob was delivered");
    assertEquals(3, q.aliceAloneItems(), "every item of Alice alone was delivered");
    assertTrue(q.aliceEnqueued() >= 1, "Alice enqueued behind Bob");
    assertEquals(q.aliceEnqueued(), q.aliceDelivered(), "every item of Alice behind Bob was delivered");
    assertTrue(q.aliceBehindItems() <= q.aliceEnqueued());
    assertTrue(q.dispatchesRead() >= q.bobEnqueued() + q.aliceEnqueued(), "the dispatch order was read whole");
    assertEquals(2, q.activeGroups());
    assertEquals(1, q.roundRatios().size());
    assertTrue(q.pingAloneRecords() >= 1 && q.pingBehindRecords() >= 1,
        () -> "a plain Kafka record went beside each of Alice's parts: " + q);
    assertTrue(q.pingAloneMs().p50() > 0 && q.pingBehindMs().p50() > 0, q::toString);
    assertEquals(1, q.pingRoundRatios().size());
    assertFalse(q.bobKey().equals(q.aliceKey()));

    BenchReport.FairWeights w = report.fairness().weights();
    assertEquals(40, w.heavyDelivered(), "every heavy item was delivered");
    assertEquals(40, w.lightDelivered(), "every light item was delivered");
    assertTrue(w.heavyServed() == 40 || w.lightServed() == 40, "the share runs until one group's last item");
    assertTrue(w.heavyServed() + w.lightServed() <= 80);
    assertEquals(3.0, w.heavyWeight() / w.lightWeight(), 1e-12);

    BenchReport.FairCost cost = report.fairness().cost();
    assertEquals(10, cost.groupKeys());
    for (BenchReport.Ordo side : new BenchReport.Ordo[] {cost.withoutGroupKeys(), cost.withGroupKeys()}) {
      assertEquals("at_least_once", side.guarantee());
      assertTrue(side.itemsPerSec().median() > 0);
      assertEquals(1, side.itemsPerSec().rounds().size());
    }
    assertFalse(Double.isNaN(cost.throughputWithOverWithout()));
    BenchReport.KeySlices slices = cost.slices();
    assertEquals(4, slices.pairRatios().size(), "one round of 4 pairs of alternating slices");
    assertTrue(slices.pairRatios().stream().allMatch(v -> v > 0 && Double.isFinite(v)), slices::toString);
    assertTrue(slices.withPerSec() > 0 && slices.withoutPerSec() > 0, slices::toString);

    String table = printed.toString(StandardCharsets.UTF_8);
    for (String row : new String[] {"Fairness: Bob 1,000 items (group bob)", "Alice alone, enqueue -> handler",
        "Alice behind Bob's backlog", "dispatched before her, after she arrived", "dispatched before her, since her enqueue",
        "weights 3:1, 40 items each", "Ordo e2e at_least_once, no group keys", "Ordo e2e at_least_once, 10 group keys",
        "fairness: Alice p99 behind Bob / alone", "fairness: the same, a plain Kafka record",
        "plain Kafka record beside her, alone", "plain Kafka record beside her, behind Bob",
        "fairness: heavy / light served (goal 3)",
        "fairness: e2e with group keys / without", "fairness: the same, alternating slices"}) {
      assertTrue(table.contains(row), () -> "the table lacks '" + row + "':\n" + table);
    }

    JsonNode root = new ObjectMapper().readTree(Files.readString(json));
    JsonNode fq = root.path("fairness").path("queue");
    assertEquals(1_000, fq.path("bobDelivered").asInt(), () -> "fairness.queue in " + root);
    assertTrue(fq.path("aliceAloneMs").has("p99"));
    assertTrue(fq.path("aliceBehindMs").has("p99"));
    assertTrue(fq.path("aliceAloneAckedMs").path("p99").isNumber(), () -> "fairness.queue in " + root);
    assertTrue(fq.path("aliceBehindAckedMs").has("p99"), () -> "fairness.queue in " + root);
    assertTrue(fq.has("afterArrivalMax"));
    assertEquals(40, root.path("fairness").path("weights").path("heavyDelivered").asInt());
    assertTrue(root.path("fairness").path("cost").path("withGroupKeys").path("itemsPerSec").isNumber());
    assertTrue(root.path("ratios").path("groupKeyCostThroughput").isNumber());
    assertTrue(root.path("ratios").has("fairnessAliceP99BehindOverAlone"));
    assertTrue(root.path("ratios").has("fairnessPingP99BehindOverAlone"));
    assertTrue(fq.path("pingBehindMs").path("p99").isNumber(), () -> "fairness.queue in " + root);
    assertTrue(root.path("ratios").path("fairnessWeightRatio").isNumber());
    assertEquals(1_000, root.path("options").path("fairBacklog").asInt());
  }
}
