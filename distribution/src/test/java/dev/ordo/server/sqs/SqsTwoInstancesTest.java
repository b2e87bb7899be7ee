package dev.ordo.server.sqs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Two instances of one cluster answer for the same queues: a queue made on one is found, changed and
 * used on the other within a poll of {@code <cluster>.sqs.queues}, a message sent to one is received
 * from the other, and a receipt handle from one deletes on the other.
 */
@KafkaCluster
class SqsTwoInstancesTest {
  @Test
  void aQueueMadeOnOneInstanceIsUsedOnTheOther(RealKafka kafka, @TempDir Path state) {
    try (TestServer a = TestServer.startWithSqs(kafka, "twosqs", state.resolve("a"), Map.of(), OptionalInt.of(2));
        TestServer b = TestServer.startWithSqs(kafka, "twosqs", state.resolve("b"), Map.of(), OptionalInt.of(2));
        SqsClient onA = SqsJavaSdkTest.client(a.sqsAddress());
        SqsClient onB = SqsJavaSdkTest.client(b.sqsAddress())) {
      String urlA = onA.createQueue(r -> r.queueName("shared").attributesWithStrings(Map.of("VisibilityTimeout", "40")))
          .queueUrl();
      String urlB = await().atMost(Duration.ofSeconds(10)).ignoreException(QueueDoesNotExistException.class)
          .until(() -> onB.getQueueUrl(r -> r.queueName("shared")).queueUrl(), u -> u != null);
      assertEquals(urlA.replace(a.sqsAddress().toString(), b.sqsAddress().toString()), urlB,
          "the same queue, addressed through the instance asked");

      onB.setQueueAttributes(r -> r.queueUrl(urlB).attributesWithStrings(Map.of("DelaySeconds", "0",
          "VisibilityTimeout", "50")));
      await().atMost(Duration.ofSeconds(10)).until(() -> "50".equals(onA.getQueueAttributes(r -> r.queueUrl(urlA)
          .attributeNamesWithStrings("VisibilityTimeout")).attributesAsStrings().get("VisibilityTimeout")));

      onB.sendMessage(r -> r.queueUrl(urlB).messageBody("across"));
      Message m = await().atMost(Duration.ofSeconds(30)).until(() -> {
        List<Message> got = onA.receiveMessage(r -> r.queueUrl(urlA).waitTimeSeconds(2)).messages();
        return got.isEmpty() ? null : got.get(0);
      }, java.util.Objects::nonNull);
      assertEquals("across", m.body());
      onB.deleteMessage(r -> r.queueUrl(urlB).receiptHandle(m.receiptHandle()));
      SqsException gone = assertThrows(SqsException.class, () -> onA.changeMessageVisibility(r -> r.queueUrl(urlA)
          .receiptHandle(m.receiptHandle()).visibilityTimeout(0)), "the delete through B took");
      assertEquals("InvalidParameterValue", gone.awsErrorDetails().errorCode(), gone.getMessage());
    }
  }
}
