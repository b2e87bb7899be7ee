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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench's http scenario as {@code ordo bench} runs it: real {@code ordo server}s on a real
 * cluster, worked over HTTP with batch acks and single acks, and the single-ack phase (issue 45),
 * which must ack every item with a request of its own (--quick: on 4 partitions only, the 16 of a
 * full run would cost another server's 5-7 s). Tiny sizes; every figure must be measured and reach
 * the table and the JSON, none is compared with anything.
 */
@KafkaCluster
class BenchHttpScenarioTest {
  @Test
  void theHttpScenarioMeasuresThroughputAtBothPartitionCountsAndTheRoundTrips(RealKafka kafka, @TempDir Path dir)
      throws Exception {
    Path json = dir.resolve("bench.json");
    BenchOptions options = BenchOptions.parse("--quick", "--rounds", "1", "--items", "200", "--latency-seconds", "1",
        "--partitions", "2", "--max-in-flight", "20", "--warm-up-seconds", "0", "--scenarios", "eos,http",
        "--json", json.toString());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    BenchReport report = Bench.run(kafka.bootstrapServers(), options,
        new PrintStream(printed, true, StandardCharsets.UTF_8), BenchCommand::httpServer);

    assertTrue(report.notes().stream().noneMatch(n -> n.contains("failed")), () -> "notes: " + report.notes());
    assertTrue(report.notes().contains("--warm-up-seconds 0: no http warm-up; the first http round includes the JIT"
        + " compiler's work"), () -> "the smoke test spends no time warming the http path: " + report.notes());
    BenchReport.Http http = report.http();
    for (double v : new double[] {http.itemsPerSec().median(), http.wideItemsPerSec().median(), http.dequeueMs().p50(),
        http.ackMs().p50(), http.ackMs().p99(), http.offeredPerSec().median(), http.vsLeaseConsumers(),
        http.wideVsNarrow()}) {
      assertTrue(!Double.isNaN(v) && v > 0, () -> "a figure was not measured: " + http);
    }
    assertEquals(32, http.widePartitions());
    BenchReport.SingleAcks each = http.singleAcks();
    assertTrue(each.narrowItemsPerSec().median() > 0, () -> "the single-ack phase was not measured: " + each);
    assertTrue(Double.isNaN(each.wideItemsPerSec().median()), () -> "--quick runs no 16-partition side: " + each);
    assertEquals(List.of(20, 4, 16), List.of(each.dequeueCount(), each.narrowPartitions(), each.widePartitions()));
    assertTrue(report.notes().contains("--quick: the http single-ack phase ran on 4 partitions only; --full adds 16"
        + " and their ratio"), () -> "notes: " + report.notes());
    String table = printed.toString(StandardCharsets.UTF_8);
    for (String row : new String[] {"Ordo over HTTP, 8 workers, 2 partitions", "the same, 32 partitions",
        "dequeue(50) of ready items", "HTTP workers / lease consumers",
        // every item acked, each by a request of its own
        "dequeue 20 and ack one by one: ", "items/s with 4 partitions (acked 200 of 200 items in 200 ack requests)",
        "dequeue(20), ack one by one, 4 partitions", "HTTP single acks, 16 / 4 partitions"}) {
      assertTrue(table.contains(row), () -> "the table lacks '" + row + "':\n" + table);
    }
    JsonNode root = new ObjectMapper().readTree(Files.readString(json));
    assertTrue(root.path("http").path("ackMs").path("p99").isNumber(), () -> "http.ackMs.p99 in " + root);
    assertTrue(root.path("http").path("wideVsNarrow").isNumber(), () -> "http.wideVsNarrow in " + root);
    JsonNode single = root.path("http").path("singleAcks");
    for (JsonNode n : new JsonNode[] {single.path("dequeueCount"), single.path("narrowPartitions"),
        single.path("widePartitions"), single.path("narrow").path("itemsPerSec"), single.path("narrow").path("rounds").path(0)}) {
      assertTrue(n.isNumber(), () -> "http.singleAcks lacks a figure: " + single);
    }
    assertTrue(single.path("wide").path("itemsPerSec").isNull() && single.path("wideVsNarrow").isNull(),
        () -> "http.singleAcks: the side --quick does not run is null: " + single);
  }
}
