package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's boto3 (the query protocol: form requests, XML answers) against a real server's SQS endpoint:
 * docs/examples/sqs/boto3_check.py, which checks every MD5 with its own implementation of SQS's
 * algorithm, receipt handles old and garbled, long polls, batches and errors, and a FIFO queue: order
 * within a group, a message made visible again first, duplicates by ID and by content.
 */
@KafkaCluster
class Boto3SqsTest {
  @Test
  void boto3DrivesEveryMessageAndQueueActionOverTheQueryProtocol(RealKafka kafka, @TempDir Path state) throws Exception {
    SqsClientPrograms.install();
    try (TestServer server = TestServer.startWithSqs(kafka, "boto", state, Map.of(), OptionalInt.empty())) {
      SqsClientPrograms.Run run = SqsClientPrograms.run(List.of(SqsClientPrograms.PYTHON,
          SqsClientPrograms.repoRoot().resolve("docs/examples/sqs/boto3_check.py").toString(),
          server.sqsAddress().toString()), Map.of(), null, Duration.ofMinutes(2));
      assertTrue(run.ok(), run::toString);
      List<String> lines = Arrays.stream(run.out().split("\n")).filter(l -> !l.isBlank()).toList();
      assertEquals("done", lines.get(lines.size() - 1), run::toString);
      assertEquals(36, lines.stream().filter(l -> l.startsWith("ok ")).count(), "every check passed: " + run);
    }
  }
}
