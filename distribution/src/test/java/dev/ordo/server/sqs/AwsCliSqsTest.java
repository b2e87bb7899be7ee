package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Debian's aws CLI runs docs/sqs.md's {@code aws sqs} commands verbatim (the block between its
 * markers, as a bash script that stops at the first failing command) against a real server: create,
 * send with an Ordo priority, attributes, a long-polled receive, a delete by receipt handle, list and
 * delete the queue.
 */
@KafkaCluster
class AwsCliSqsTest {
  static String docsBlock() throws Exception {
    String doc = Files.readString(SqsClientPrograms.repoRoot().resolve("docs/sqs.md"));
    String begin = "<!-- aws cli example: AwsCliSqsTest runs this block -->\n```sh\n";
    int from = doc.indexOf(begin);
    int to = doc.indexOf("```\n<!-- end of aws cli example -->");
    assertTrue(from >= 0 && to > from, "docs/sqs.md has the aws CLI block between its markers");
    return doc.substring(from + begin.length(), to);
  }

  @Test
  void theAwsCliCommandsOfTheDocsWorkAsWritten(RealKafka kafka, @TempDir Path state) throws Exception {
    SqsClientPrograms.install();
    String script = docsBlock();
    assertTrue(script.contains("aws --endpoint-url \"$ORDO_SQS\" sqs receive-message"), script);
    try (TestServer server = TestServer.startWithSqs(kafka, "awscli", state.resolve("server"), Map.of(),
        OptionalInt.empty())) {
      SqsClientPrograms.Run run = SqsClientPrograms.run(List.of("bash", "-euo", "pipefail", "-c", script),
          Map.of("ORDO_SQS", server.sqsAddress().toString(), "HOME", state.toString()), state, Duration.ofMinutes(3));
      assertTrue(run.ok(), run::toString);
      String queue = server.sqsAddress() + "/sqs/reports";
      assertTrue(run.out().startsWith(queue + "\n"), "create-queue printed the URL: " + run);
      assertTrue(run.out().contains("\"MD5OfMessageBody\": \"" + MessageAttributes.md5Hex("monthly report".getBytes())
          + "\""), run::toString);
      assertTrue(run.out().contains("\"VisibilityTimeout\": \"60\""), "get-queue-attributes: " + run);
      assertTrue(run.out().contains("\"QueueUrls\": [\n        \"" + queue + "\""), "list-queues: " + run);
      try (SqsClient sqs = SqsJavaSdkTest.client(server.sqsAddress())) {
        assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("reports")),
            "delete-queue ran last");
      }
      SqsClientPrograms.Run garbled = SqsClientPrograms.run(List.of("bash", "-euo", "pipefail", "-c",
          script.replace("--receipt-handle \"$HANDLE\"", "--receipt-handle \"x$HANDLE\"")),
          Map.of("ORDO_SQS", server.sqsAddress().toString(), "HOME", state.toString()), state, Duration.ofMinutes(3));
      assertEquals(254, garbled.exit(), "a receipt handle the endpoint never issued fails the script: " + garbled);
      assertTrue(garbled.err().contains("ReceiptHandleIsInvalid"), garbled::toString);
    }
  }
}
