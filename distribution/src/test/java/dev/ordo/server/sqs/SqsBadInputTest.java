package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Bad input gets an SQS error and nothing else: random query parameters and JSON bodies, built from the
 * names the endpoint reads and junk values (a seeded generator, so a failure replays), go through the
 * request model and the pure checks (attributes, message attributes, receipt handles, queue URLs and
 * ARNs, SigV4 headers); each either passes or throws {@link SqsException}, never anything else.
 */
class SqsBadInputTest {
  private static final long SEED = 4747;
  private static final List<String> NAMES = List.of("Action", "QueueUrl", "QueueName", "MessageBody", "DelaySeconds",
      "Attribute.1.Name", "Attribute.1.Value", "Attribute.x.Name", "MessageAttribute.1.Name",
      "MessageAttribute.1.Value.DataType", "MessageAttribute.1.Value.StringValue", "MessageAttribute.1.Value.BinaryValue",
      "SendMessageBatchRequestEntry.1.Id", "SendMessageBatchRequestEntry.99999999.Id", "Tag.1.Key", "Tag.1.Value",
      "AttributeName.1", "MessageAttributeName.2", "ReceiptHandle", "MaxNumberOfMessages", "..", ".", "a..b",
      "Entries", "Attributes", "MessageAttributes", "Tags");
  private static final List<String> VALUES = List.of("", "x", "0", "-1", "99999999999999999999", "1e3", "All",
      "String", "Number", "Binary", "Binary.x", "Date", "!!!", "\u0000", "\uD800", "http://h/ns/q", "http://h/",
      "arn:aws:sqs:r:ns:q", "arn:x", "{", "{\"deadLetterTargetArn\":1}", "MQ", "AQ==", "a.fifo", "[]", "null");

  @Test
  void randomRequestsAnswerSqsErrorsOnly() {
    Random random = new Random(SEED);
    ObjectMapper json = new ObjectMapper();
    for (int round = 0; round < 5_000; round++) {
      Map<String, String> form = new LinkedHashMap<>();
      int n = random.nextInt(8);
      for (int i = 0; i < n; i++) {
        form.put(pick(random, NAMES), pick(random, VALUES));
      }
      if (random.nextBoolean()) {
        form.put("Action", pick(random, List.of("SendMessage", "CreateQueue", "ReceiveMessage", "SendMessageBatch")));
      }
      exercise(() -> checks(SqsRequest.query(form)));
      String body = randomJson(random, 3);
      exercise(() -> checks(SqsRequest.json("AmazonSQS.SendMessage", body.getBytes(StandardCharsets.UTF_8))));
      String value = pick(random, VALUES);
      exercise(() -> ReceiptHandle.decode(value));
      exercise(() -> QueueRef.fromUrl(value));
      exercise(() -> QueueRef.fromArn(value));
      exercise(() -> QueueAttributes.of(Map.of(pick(random, List.of("VisibilityTimeout", "RedrivePolicy", "FifoQueue",
          "Policy", "QueueArn", "OrdoPriority")), value)));
      exercise(() -> SigV4.parse("AWS4-HMAC-SHA256 " + value + ", Credential=" + value));
      exercise(() -> MessageAttributes.parse(json.readTree(body)));
    }
  }

  private static void checks(SqsRequest r) throws SqsException {
    assertNotNull(r.action());
    r.string("QueueUrl");
    r.integer("DelaySeconds", 0, 900);
    r.integer("MaxNumberOfMessages", 1, 10);
    r.strings("AttributeNames");
    r.strings("MessageAttributeNames");
    QueueAttributes.of(r.stringMap("Attributes"));
    r.stringMap("Tags");
    MessageAttributes.parse(r.params().get("MessageAttributes"));
    for (var e : r.entries()) {
      SqsRequest.string(e, "Id");
      MessageAttributes.parse(e.get("MessageAttributes"));
    }
  }

  @FunctionalInterface
  private interface Check {
    void run() throws Exception;
  }

  private static void exercise(Check check) {
    try {
      check.run();
    } catch (SqsException e) {
      assertNotNull(e.error());
      assertNotNull(e.getMessage());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      // the test's own readTree of a body that is not JSON: SqsRequest.json answers those itself
    } catch (Exception e) {
      throw new AssertionError("not an SQS error: " + e, e);
    }
  }

  private static String randomJson(Random random, int depth) {
    return switch (depth <= 0 ? random.nextInt(3) : random.nextInt(6)) {
      case 0 -> "\"" + pick(random, VALUES).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
      case 1 -> String.valueOf(random.nextInt(2000) - 1000);
      case 2 -> random.nextBoolean() ? "null" : "{";
      case 3 -> "[" + randomJson(random, depth - 1) + "]";
      default -> {
        StringBuilder b = new StringBuilder("{");
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          b.append(i == 0 ? "" : ",").append('"').append(pick(random, NAMES)).append("\":").append(randomJson(random,
              depth - 1));
        }
        yield b.append('}').toString();
      }
    };
  }

  private static String pick(Random random, List<String> from) {
    return from.get(random.nextInt(from.size()));
  }
}
