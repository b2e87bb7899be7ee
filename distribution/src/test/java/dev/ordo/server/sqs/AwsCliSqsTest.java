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
    return docsBlock("aws cli example");
  }

  /** The shell block of docs/sqs.md between {@code <!-- NAME: ... -->} and {@code <!-- end of NAME -->}. */
  static String docsBlock(String name) throws Exception {
    String doc = Files.readString(SqsClientPrograms.repoRoot().resolve("docs/sqs.md"));
    String begin = "<!-- " + name + ": AwsCliSqsTest runs this block -->\n```sh\n";
    int from = doc.indexOf(begin);
    int to = doc.indexOf("```\n<!-- end of " + name + " -->");
    assertTrue(from >= 0 && to > from, "docs/sqs.md has the " + name + " block between its markers");
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

  @Test
  void theAwsCliFifoCommandsOfTheDocsKeepOrderAndDropDuplicates(RealKafka kafka, @TempDir Path state) throws Exception {
    SqsClientPrograms.install();
    // The FIFO block runs in the environment the first block exports.
    String first = docsBlock();
    String setup = first.substring(0, first.indexOf("QUEUE="));
    String script = setup + docsBlock("aws cli fifo example");
    try (TestServer server = TestServer.startWithSqs(kafka, "awsfifo", state.resolve("server"), Map.of(),
        OptionalInt.empty())) {
      SqsClientPrograms.Run run = SqsClientPrograms.run(List.of("bash", "-euo", "pipefail", "-c", script),
          Map.of("ORDO_SQS", server.sqsAddress().toString(), "HOME", state.toString()), state, Duration.ofMinutes(3));
      assertTrue(run.ok(), run::toString);
      List<String> lines = run.out().lines().toList();
      assertTrue(lines.stream().anyMatch(l -> l.matches("invoice-1 again: a duplicate of \\S+")),
          "the duplicate send answered the first MessageId: " + run);
      assertTrue(lines.contains("received: invoice-1 "), "invoice-2 waited while invoice-1 was in flight: " + run);
      assertEquals("then: invoice-2", lines.get(lines.size() - 1), "the deletion let invoice-2 go, once: " + run);
      try (SqsClient sqs = SqsJavaSdkTest.client(server.sqsAddress())) {
        assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("invoices.fifo")),
            "delete-queue ran last");
      }
    }
  }
}
