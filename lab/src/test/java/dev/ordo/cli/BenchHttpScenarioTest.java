package dev.ordo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.bench.Bench;
import dev.ordo.bench.BenchOptions;
import dev.ordo.bench.BenchReport;
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
 * The bench's http scenario as {@code ordo bench} runs it: real {@code ordo server}s on a real
 * cluster, worked over HTTP with batch acks and single acks. Tiny sizes; every figure must be
 * measured and reach the table and the JSON, none is compared with anything.
 */
@KafkaCluster
class BenchHttpScenarioTest {
  @Test
  void theHttpScenarioMeasuresThroughputAtBothPartitionCountsAndTheRoundTrips(RealKafka kafka, @TempDir Path dir)
      throws Exception {
    Path json = dir.resolve("bench.json");
    BenchOptions options = BenchOptions.parse("--quick", "--rounds", "1", "--items", "400", "--latency-seconds", "1",
        "--partitions", "2", "--max-in-flight", "20", "--warm-up-seconds", "0", "--scenarios", "eos,http",
        "--json", json.toString());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    BenchReport report = Bench.run(kafka.bootstrapServers(), options,
        new PrintStream(printed, true, StandardCharsets.UTF_8), BenchCommand::httpServer);

    assertTrue(report.notes().stream().noneMatch(n -> n.contains("failed")), () -> "notes: " + report.notes());
    BenchReport.Http http = report.http();
    for (double v : new double[] {http.itemsPerSec().median(), http.wideItemsPerSec().median(), http.dequeueMs().p50(),
        http.ackMs().p50(), http.ackMs().p99(), http.offeredPerSec().median(), http.vsLeaseConsumers(),
        http.wideVsNarrow()}) {
      assertTrue(!Double.isNaN(v) && v > 0, () -> "a figure was not measured: " + http);
    }
    assertEquals(32, http.widePartitions());
    String table = printed.toString(StandardCharsets.UTF_8);
    for (String row : new String[] {"Ordo over HTTP, 8 workers, 2 partitions", "the same, 32 partitions",
        "dequeue(50) of ready items", "HTTP workers / lease consumers"}) {
      assertTrue(table.contains(row), () -> "the table lacks '" + row + "':\n" + table);
    }
    JsonNode root = new ObjectMapper().readTree(Files.readString(json));
    assertTrue(root.path("http").path("ackMs").path("p99").isNumber(), () -> "http.ackMs.p99 in " + root);
    assertTrue(root.path("http").path("wideVsNarrow").isNumber(), () -> "http.wideVsNarrow in " + root);
  }
}
