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
 * The bench's sqs scenario as {@code ordo bench} runs it: a real {@code ordo server}'s SQS endpoint,
 * worked by the AWS SDK for Java v2 with SendMessageBatch, then ReceiveMessage(10) +
 * DeleteMessageBatch. Tiny sizes; both figures must be measured and reach the table and the JSON.
 */
@KafkaCluster
class BenchSqsScenarioTest {
  @Test
  void theSqsScenarioMeasuresSendingAndWorkingThroughTheAwsSdk(RealKafka kafka, @TempDir Path dir) throws Exception {
    Path json = dir.resolve("bench.json");
    BenchOptions options = BenchOptions.parse("--quick", "--rounds", "1", "--items", "400", "--partitions", "2",
        "--warm-up-seconds", "0", "--scenarios", "sqs", "--json", json.toString());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    BenchReport report = Bench.run(kafka.bootstrapServers(), options,
        new PrintStream(printed, true, StandardCharsets.UTF_8), BenchCommand::httpServer);

    assertTrue(report.notes().stream().noneMatch(n -> n.contains("failed")), () -> "notes: " + report.notes());
    BenchReport.Sqs sqs = report.sqs();
    assertTrue(sqs.sendPerSec().median() > 0 && sqs.workPerSec().median() > 0 && sqs.http10PerSec().median() > 0
        && sqs.workVsHttp10() > 0, () -> "not measured: " + sqs);
    assertTrue(Double.isNaN(sqs.workVsHttp()), "no http scenario in this run, no ratio");
    String table = printed.toString(StandardCharsets.UTF_8);
    for (String row : new String[] {"Ordo over SQS, SendMessageBatch, 8 threads", "ReceiveMessage(10) + DeleteMessageBatch",
        "Ordo's HTTP, dequeue(10) + batch ack", "SQS worker loop / HTTP dequeue(10)"}) {
      assertTrue(table.contains(row), () -> "the table lacks '" + row + "':\n" + table);
    }
    JsonNode root = new ObjectMapper().readTree(Files.readString(json));
    assertTrue(root.path("sqs").path("receiveAndDeleteBatch").path("itemsPerSec").isNumber(),
        () -> "sqs.receiveAndDeleteBatch in " + root);
  }
}
