package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of the protocols: query parameters to the JSON shape, XML answers, receipt handles, queue attributes and names. */
class SqsProtocolTest {
  @Test
  void queryParametersTakeTheJsonProtocolsShape() throws SqsException {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("Action", "SendMessageBatch");
    form.put("Version", "2012-11-05");
    form.put("QueueUrl", "http://h/ns/q");
    form.put("SendMessageBatchRequestEntry.2.Id", "b");
    form.put("SendMessageBatchRequestEntry.2.MessageBody", "second");
    form.put("SendMessageBatchRequestEntry.1.Id", "a");
    form.put("SendMessageBatchRequestEntry.1.MessageBody", "first");
    form.put("SendMessageBatchRequestEntry.1.MessageAttribute.1.Name", "kind");
    form.put("SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType", "String");
    form.put("SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue", "k");
    SqsRequest r = SqsRequest.query(form);
    assertEquals("SendMessageBatch", r.action());
    assertEquals("{\"QueueUrl\":\"http://h/ns/q\",\"Entries\":[{\"Id\":\"a\",\"MessageBody\":\"first\",\"MessageAttributes\":"
        + "{\"kind\":{\"DataType\":\"String\",\"StringValue\":\"k\"}}},{\"Id\":\"b\",\"MessageBody\":\"second\"}]}",
        r.params().toString(), "entries in index order, attributes as a map");

    SqsRequest create = SqsRequest.query(Map.of("Action", "CreateQueue", "QueueName", "q", "Attribute.1.Name",
        "DelaySeconds", "Attribute.1.Value", "5", "Tag.1.Key", "team", "Tag.1.Value", "a"));
    assertEquals(Map.of("DelaySeconds", "5"), create.stringMap("Attributes"));
    assertEquals(Map.of("team", "a"), create.stringMap("Tags"));
    SqsRequest receive = SqsRequest.query(Map.of("Action", "ReceiveMessage", "AttributeName.1", "All",
        "MessageAttributeName.1", "a.*", "MaxNumberOfMessages", "10"));
    assertEquals(List.of("All"), receive.strings("AttributeNames"));
    assertEquals(List.of("a.*"), receive.strings("MessageAttributeNames"));
    assertEquals(10, receive.integer("MaxNumberOfMessages", 1, 10).orElseThrow());
    SqsException tooMany = assertThrows(SqsException.class, () -> receive.integer("MaxNumberOfMessages", 1, 5));
    assertEquals(SqsError.INVALID_PARAMETER_VALUE, tooMany.error());
    assertEquals(SqsError.MISSING_PARAMETER, assertThrows(SqsException.class, () -> SqsRequest.query(Map.of())).error());
    assertEquals(SqsError.INVALID_PARAMETER_VALUE, assertThrows(SqsException.class, () ->
        SqsRequest.json("AmazonSQS.SendMessage", "[1]".getBytes(StandardCharsets.UTF_8))).error());
  }

  @Test
  void xmlAnswersFlattenMapsAndListsAsSqsDoes() {
    Map<String, Object> message = new LinkedHashMap<>();
    message.put("MessageId", "0-1");
    message.put("Body", "a<b>&'\"\r");
    message.put("Attributes", Map.of("ApproximateReceiveCount", "1"));
    message.put("MessageAttributes", Map.of("kind", Map.of("StringValue", "k")));
    String xml = new String(SqsResponses.ok(SqsRequest.Protocol.QUERY, "ReceiveMessage",
        Map.of("Messages", List.of(message)), "rid").bytes(), StandardCharsets.UTF_8);
    assertTrue(xml.contains("<ReceiveMessageResult><Message><MessageId>0-1</MessageId>"
        + "<Body>a&lt;b&gt;&amp;&apos;&quot;&#xD;</Body><Attribute><Name>ApproximateReceiveCount</Name><Value>1</Value>"
        + "</Attribute><MessageAttribute><Name>kind</Name><Value><StringValue>k</StringValue></Value></MessageAttribute>"
        + "</Message></ReceiveMessageResult><ResponseMetadata><RequestId>rid</RequestId>"), xml);
    String error = new String(SqsResponses.error(SqsRequest.Protocol.QUERY, SqsError.QUEUE_DOES_NOT_EXIST, "gone", "r")
        .bytes(), StandardCharsets.UTF_8);
    assertTrue(error.contains("<Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>"
        + "<Message>gone</Message>"), error);
    String json = new String(SqsResponses.error(SqsRequest.Protocol.JSON, SqsError.QUEUE_DOES_NOT_EXIST, "gone", "r")
        .bytes(), StandardCharsets.UTF_8);
    assertEquals("{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\",\"message\":\"gone\"}", json);
    assertEquals("AWS.SimpleQueueService.NonExistentQueue;Sender", SqsResponses.queryErrorHeader(SqsError.QUEUE_DOES_NOT_EXIST));
  }

  @Test
  void receiptHandlesReadBackAndForgeriesAreInvalid() throws SqsException {
    ReceiptHandle h = new ReceiptHandle(new ItemId(3, 42), "lease-1", "team a", "jobs");
    assertEquals(h, ReceiptHandle.decode(h.encode()));
    for (String bad : new String[] {"", "garbled", h.encode().substring(2), "MQ", "x".repeat(3000)}) {
      assertEquals(SqsError.RECEIPT_HANDLE_IS_INVALID, assertThrows(SqsException.class, () -> ReceiptHandle.decode(bad))
          .error(), bad);
    }
  }

  @Test
  void queueAttributesAreCheckedAndMeanLeaseDelayTtlAndAttempts() throws SqsException {
    QueueAttributes a = QueueAttributes.of(Map.of("VisibilityTimeout", "45", "DelaySeconds", "3",
        "MessageRetentionPeriod", "60", "RedrivePolicy", "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:ns:dlq\","
            + "\"maxReceiveCount\":\"4\"}"));
    assertEquals(45, a.visibilityTimeout().toSeconds());
    assertEquals(3, a.delay().toSeconds());
    assertEquals(60, a.retention().toSeconds());
    assertEquals(new QueueRef("ns", "dlq"), a.redrivePolicy().orElseThrow().deadLetterTarget());
    assertEquals(4, a.redrivePolicy().orElseThrow().maxReceiveCount());
    assertEquals("0", a.all().get("ReceiveMessageWaitTimeSeconds"), "SQS's default");
    assertEquals(SqsError.INVALID_ATTRIBUTE_VALUE, assertThrows(SqsException.class, () -> a.with(Map.of(
        "VisibilityTimeout", "43201"))).error());
    assertEquals(SqsError.INVALID_ATTRIBUTE_VALUE, assertThrows(SqsException.class, () -> a.with(Map.of(
        "RedrivePolicy", "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:ns:dlq\",\"maxReceiveCount\":0}"))).error());
    assertEquals(SqsError.INVALID_ATTRIBUTE_NAME, assertThrows(SqsException.class, () -> a.with(Map.of(
        "QueueArn", "x"))).error(), "read-only");
    assertEquals(SqsError.INVALID_ATTRIBUTE_NAME, assertThrows(SqsException.class, () -> a.with(Map.of(
        "FifoQueue", "true"))).error(), "a standard queue stays one");
    assertEquals(SqsError.INVALID_ATTRIBUTE_NAME, assertThrows(SqsException.class, () -> a.with(Map.of(
        "ContentBasedDeduplication", "true"))).error(), "FIFO attributes are a FIFO queue's only");
    assertEquals(a, a.with(Map.of("FifoQueue", "false")));
    assertTrue(a.with(Map.of("RedrivePolicy", "")).redrivePolicy().isEmpty(), "an empty value removes it");
  }

  /** FIFO queues' attributes (docs/sqs.md, "FIFO queues"): their defaults, their values, and the name's say. */
  @Test
  void aFifoQueueHasItsAttributesWithSqsDefaultsAndTheNameDecidesFifoQueue() throws SqsException {
    QueueAttributes f = QueueAttributes.of(Map.of("ContentBasedDeduplication", "true"), true);
    assertTrue(f.fifo());
    assertTrue(f.contentBasedDeduplication());
    assertEquals("queue", f.all().get("DeduplicationScope"));
    assertEquals("perQueue", f.all().get("FifoThroughputLimit"));
    assertEquals("true", f.all().get("FifoQueue"));
    assertFalse(f.with(Map.of("ContentBasedDeduplication", "false")).contentBasedDeduplication());
    assertEquals("messageGroup", f.with(Map.of("DeduplicationScope", "messageGroup")).all().get("DeduplicationScope"));
    assertEquals(SqsError.INVALID_ATTRIBUTE_VALUE, assertThrows(SqsException.class, () -> f.with(Map.of(
        "DeduplicationScope", "everywhere"))).error());
    assertEquals(SqsError.INVALID_ATTRIBUTE_VALUE, assertThrows(SqsException.class, () -> f.with(Map.of(
        "FifoQueue", "false"))).error(), "a FIFO queue stays one");
    assertEquals(SqsError.INVALID_ATTRIBUTE_VALUE, assertThrows(SqsException.class, () -> QueueAttributes.of(Map.of(
        "FifoQueue", "false"), true)).error());
    assertEquals(SqsError.INVALID_PARAMETER_VALUE, assertThrows(SqsException.class, () -> QueueAttributes.of(Map.of(
        "FifoQueue", "true"), false)).error(), "FifoQueue true needs a .fifo name");
    assertFalse(QueueAttributes.of(Map.of(), false).all().containsKey("FifoQueue"), "a standard queue shows none");
    assertEquals("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
        MessageActions.sha256Hex("hello".getBytes(java.nio.charset.StandardCharsets.UTF_8)), "SQS's content-based ID");
  }

  @Test
  void queueUrlsAndArnsCarryTheNamespaceAsTheAccount() throws SqsException {
    QueueRef ref = new QueueRef("team a", "jobs");
    assertEquals("http://h:9324/team%20a/jobs", ref.url("http://h:9324"));
    assertEquals(ref, QueueRef.fromUrl(ref.url("http://elsewhere:1")));
    assertEquals("arn:aws:sqs:eu-west-1:team a:jobs", ref.arn("eu-west-1"));
    assertEquals(ref, QueueRef.fromArn(ref.arn("eu-west-1")));
    assertEquals(SqsError.QUEUE_DOES_NOT_EXIST, assertThrows(SqsException.class, () -> QueueRef.fromUrl("http://h/"))
        .error());
    QueueRef.checkName("a.fifo");
    assertTrue(new QueueRef("ns", "orders.fifo").fifo());
    assertEquals(new QueueRef("ns", "orders.fifo"), QueueRef.fromUrl("http://h/ns/orders.fifo"));
    assertEquals(SqsError.INVALID_PARAMETER_VALUE, assertThrows(SqsException.class, () -> QueueRef.checkName(".fifo"))
        .error(), "a name before the suffix");
    assertEquals(SqsError.INVALID_PARAMETER_VALUE, assertThrows(SqsException.class, () -> QueueRef.checkName("a.b.fifo"))
        .error());
    assertEquals(SqsError.INVALID_PARAMETER_VALUE, assertThrows(SqsException.class, () -> QueueRef.checkName(
        "x".repeat(76) + ".fifo")).error(), "80 characters, the suffix included");
    assertEquals(SqsError.INVALID_PARAMETER_VALUE, assertThrows(SqsException.class, () -> QueueRef.checkName("a b"))
        .error());
  }
}
