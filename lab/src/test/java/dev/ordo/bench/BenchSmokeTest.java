package dev.ordo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the whole bench with tiny sizes against a real in-JVM Kafka and checks that every scenario
 * produced its figures, that the table and the JSON have the structure scripts rely on, and that
 * the run deleted every topic it made. One run checks all three: a second run would only repeat the
 * cluster start-ups and the warm-up round. No figure is compared with anything: timings on a shared
 * machine prove nothing here.
 */
@KafkaCluster
class BenchSmokeTest {

  @Test
  void everyScenarioReportsItsFiguresInTheTableAndTheJsonAndLeavesNoTopicsBehind(RealKafka kafka, @TempDir Path dir)
      throws Exception {
    Path json = dir.resolve("out/bench.json");
    BenchOptions options = BenchOptions.parse("--quick", "--rounds", "1", "--items", "300", "--backlog", "500",
            "--latency-seconds", "1", "--partitions", "2", "--max-in-flight", "20", "--warm-up-seconds", "0",
            "--json", json.toString())
        .withDelays(20, 1_000, "100ms,200ms");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    BenchReport report = Bench.run(kafka.bootstrapServers(), options, new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertTrue(report.notes().stream().noneMatch(n -> n.contains("failed")), () -> "notes: " + report.notes());
    assertTrue(report.notes().stream().anyMatch(n -> n.startsWith("warm-up: 1 uncounted Ordo rounds")),
        () -> "--warm-up-seconds 0 runs exactly one warm-up round: " + report.notes());
    assertMeasured(report.rawKafka().median());
    assertMeasured(report.shareGroups().median());
    assertTrue(report.rawKafka().median() > 0 && report.shareGroups().median() > 0,
        () -> "a baseline received nothing: raw " + report.rawKafka().median() + ", share " + report.shareGroups().median());
    for (BenchReport.Ordo ordo : new BenchReport.Ordo[] {report.exactlyOnce(), report.atLeastOnce()}) {
      assertMeasured(ordo.itemsPerSec().median());
      assertMeasured(ordo.latencyMs().p50());
      assertMeasured(ordo.latencyMs().p99());
      assertEquals(1, ordo.itemsPerSec().rounds().size());
    }
    assertMeasured(report.backlog().emptyItemsPerSec().median());
    assertMeasured(report.backlog().backlogItemsPerSec().median());
    assertMeasured(report.delays().latenessMs().max());
    assertMeasured(report.ratios().ordoVsRawKafka());
    assertMeasured(report.ratios().ordoVsShareGroups());
    assertMeasured(report.ratios().backlogVsEmpty());

    String table = printed.toString(StandardCharsets.UTF_8);
    for (String row : new String[] {"Kafka producer -> consumer", "Kafka share group", "Ordo end to end, exactly_once_v2",
        "Ordo end to end, at_least_once", "Ordo dequeue, empty queue", "Ordo dequeue, 500 items standing",
        "Ordo delays", "Ordo e2e (exactly-once) / raw Kafka", "Ordo e2e (exactly-once) / share groups",
        "backlog / empty"}) {
      assertTrue(table.contains(row), () -> "the table lacks '" + row + "':\n" + table);
    }
    // The embedded broker's request meters are read in this JVM: the items' produce requests show.
    assertTrue(table.matches("(?s).*broker requests per item: [^\n]*Produce \\d.*"),
        () -> "no broker requests per item, or no Produce among them:\n" + table);

    JsonNode root = new ObjectMapper().readTree(Files.readString(json));
    for (String key : new String[] {"ordoVsRawKafka", "ordoVsShareGroups", "backlogVsEmpty"}) {
      assertTrue(root.path("ratios").path(key).isNumber(), () -> "ratios." + key + " in " + root);
    }
    for (String guarantee : new String[] {"exactlyOnce", "atLeastOnce"}) {
      JsonNode g = root.path("ordo").path(guarantee);
      assertTrue(g.path("itemsPerSec").isNumber(), () -> guarantee + ".itemsPerSec in " + root);
      assertTrue(g.path("latencyMs").path("p50").isNumber(), () -> guarantee + ".latencyMs.p50 in " + root);
      assertTrue(g.path("latencyMs").path("p99").isNumber(), () -> guarantee + ".latencyMs.p99 in " + root);
    }
    assertTrue(root.path("delays").path("latenessMs").path("p99").isNumber());

    // The bench leaves no topics behind: every scenario above deleted its own (no --keep-topics).
    try (Admin admin = kafka.admin()) {
      Set<String> left = admin.listTopics().names().get();
      assertFalse(left.stream().anyMatch(t -> t.startsWith("bench-")), () -> "topics left: " + left);
    }
  }

  private static void assertMeasured(double v) {
    assertFalse(Double.isNaN(v), "a figure was not measured");
    assertTrue(v >= 0, () -> "a figure is negative: " + v);
  }
}
