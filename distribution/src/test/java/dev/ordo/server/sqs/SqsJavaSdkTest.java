package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.ListMessageMoveTasksResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.ReceiptHandleIsInvalidException;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;
import software.amazon.awssdk.services.sqs.model.TooManyEntriesInBatchRequestException;

/**
 * The AWS SDK for Java v2 (JSON protocol, checking every MD5 it is given) against a real server's SQS
 * endpoint: queues, messages with attributes, long polls, visibility, batches and SQS's errors. One
 * partition, so that priority order is exact.
 */
@KafkaCluster
class SqsJavaSdkTest {
  @TempDir
  static Path tmp;

  private static TestServer server;
  private static SqsClient sqs;

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.startWithSqs(kafka, "sqsjava", tmp.resolve("server"), Map.of(), OptionalInt.of(1));
    sqs = client(server.sqsAddress());
  }

  static SqsClient client(URI endpoint) {
    return SqsClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("any", "any")))
        .build();
  }

  @AfterAll
  static void stop() {
    if (sqs != null) {
      sqs.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static String queue(String name, Map<String, String> attributes) {
    return sqs.createQueue(b -> b.queueName(name).attributesWithStrings(attributes)).queueUrl();
  }

  /** Receives until {@code n} messages came (each call long-polls up to 2 s), within 30 s. */
  private static List<Message> receive(String url, int n) {
    List<Message> got = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (got.size() < n && System.nanoTime() < deadline) {
      got.addAll(sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(Math.min(10, n - got.size()))
          .waitTimeSeconds(2).messageAttributeNames("All").messageSystemAttributeNames(MessageSystemAttributeName.ALL))
          .messages());
    }
    assertEquals(n, got.size(), "messages received: " + got);
    return got;
  }

  @Test
  void aQueueIsCreatedFoundListedChangedTaggedAndDeleted() {
    String url = queue("life", Map.of("VisibilityTimeout", "45", "DelaySeconds", "0"));
    assertTrue(url.endsWith("/sqs/life"), url);
    assertEquals(url, queue("life", Map.of("VisibilityTimeout", "45")), "the same attributes: the same queue");
    SqsException clash = assertThrows(SqsException.class, () -> queue("life", Map.of("VisibilityTimeout", "46")));
    assertEquals("QueueAlreadyExists", clash.awsErrorDetails().errorCode());
    assertEquals(url, sqs.getQueueUrl(b -> b.queueName("life")).queueUrl());
    assertTrue(sqs.listQueues(b -> b.queueNamePrefix("li")).queueUrls().contains(url));
    assertTrue(sqs.listQueues(b -> b.queueNamePrefix("zz")).queueUrls().isEmpty());

    Map<String, String> attributes = sqs.getQueueAttributes(b -> b.queueUrl(url)
        .attributeNames(QueueAttributeName.ALL)).attributesAsStrings();
    assertEquals("45", attributes.get("VisibilityTimeout"));
    assertEquals("262144", attributes.get("MaximumMessageSize"), "SQS's default");
    assertEquals("arn:aws:sqs:us-east-1:sqs:life", attributes.get("QueueArn"));
    assertEquals("0", attributes.get("ApproximateNumberOfMessages"));

    sqs.setQueueAttributes(b -> b.queueUrl(url).attributesWithStrings(Map.of("VisibilityTimeout", "60")));
    assertEquals("60", sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("VisibilityTimeout"))
        .attributesAsStrings().get("VisibilityTimeout"));
    SqsException bad = assertThrows(SqsException.class, () -> sqs.setQueueAttributes(b -> b.queueUrl(url)
        .attributesWithStrings(Map.of("VisibilityTimeout", "99999"))));
    assertEquals("InvalidAttributeValue", bad.awsErrorDetails().errorCode());

    sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("team", "a", "env", "test")));
    sqs.untagQueue(b -> b.queueUrl(url).tagKeys("env"));
    assertEquals(Map.of("team", "a"), sqs.listQueueTags(b -> b.queueUrl(url)).tags());

    sqs.deleteQueue(b -> b.queueUrl(url));
    assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("life")));
    assertThrows(QueueDoesNotExistException.class, () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x")));
  }

  @Test
  void purgeQueueDeletesEveryMessageInFlightOnesTooAndASecondOneWithinAMinuteIsRefused() {
    String url = queue("purged", Map.of("VisibilityTimeout", "300"));
    String kept = queue("kept", Map.of());
    for (int i = 0; i < 6; i++) {
      int n = i;
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("m" + n));
    }
    sqs.sendMessage(b -> b.queueUrl(kept).messageBody("stays"));
    List<Message> inFlight = receive(url, 2);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> "4".equals(sqs.getQueueAttributes(b ->
        b.queueUrl(url).attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).attributesAsStrings()
        .get("ApproximateNumberOfMessages")));

    sqs.purgeQueue(b -> b.queueUrl(url));
    SqsException again = assertThrows(SqsException.class, () -> sqs.purgeQueue(b -> b.queueUrl(url)));
    assertEquals("AWS.SimpleQueueService.PurgeQueueInProgress", again.awsErrorDetails().errorCode());
    assertThrows(QueueDoesNotExistException.class,
        () -> sqs.purgeQueue(b -> b.queueUrl(url.replace("/purged", "/never-made"))));

    // Asynchronous, as SQS's: the queue's partition deletes every message, the received ones too.
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
      Map<String, String> a = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(
          QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
          .attributesAsStrings();
      return "0".equals(a.get("ApproximateNumberOfMessages")) && "0".equals(a.get("ApproximateNumberOfMessagesNotVisible"));
    });
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(1)).messages().isEmpty());
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(inFlight.get(0).receiptHandle())); // gone: succeeds, as SQS's
    assertEquals("stays", receive(kept, 1).get(0).body(), "another queue is untouched");
  }

  @Test
  void aMessageComesWithItsAttributesAndChecksumsAndIsGoneOnceDeleted() {
    String url = queue("attrs", Map.of());
    Map<String, MessageAttributeValue> attributes = Map.of(
        "kind", MessageAttributeValue.builder().dataType("String").stringValue("report ü").build(),
        "size", MessageAttributeValue.builder().dataType("Number.int").stringValue("42").build(),
        "blob", MessageAttributeValue.builder().dataType("Binary")
            .binaryValue(SdkBytes.fromByteArray(new byte[] {0, 1, 2, (byte) 255})).build());
    // The SDK recomputes MD5OfMessageBody and MD5OfMessageAttributes and fails the call if they differ.
    SendMessageResponse sent = sqs.sendMessage(b -> b.queueUrl(url).messageBody("hello\r\n<sqs> & ordo")
        .messageAttributes(attributes));
    assertEquals(MessageAttributes.md5Hex("hello\r\n<sqs> & ordo".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        sent.md5OfMessageBody());

    Message m = receive(url, 1).get(0);
    assertEquals(sent.messageId(), m.messageId());
    assertEquals("hello\r\n<sqs> & ordo", m.body());
    assertEquals(attributes, m.messageAttributes());
    assertEquals(sent.md5OfMessageAttributes(), m.md5OfMessageAttributes());
    assertEquals("1", m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
    assertEquals("anonymous", m.attributes().get(MessageSystemAttributeName.SENDER_ID), "the sending principal");
    long sentAt = Long.parseLong(m.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP));
    assertTrue(Math.abs(System.currentTimeMillis() - sentAt) < 60_000, "SentTimestamp " + sentAt);

    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()));
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(1)).messages().isEmpty(), "deleted");
    assertThrows(ReceiptHandleIsInvalidException.class, () -> sqs.deleteMessage(b -> b.queueUrl(url)
        .receiptHandle(m.receiptHandle().substring(3))), "a handle the endpoint never issued");
  }

  @Test
  void aLongPollReturnsWhenAMessageArrivesAndWaitsItsTimeWhenNoneDoes() throws Exception {
    String url = queue("poll", Map.of("ReceiveMessageWaitTimeSeconds", "2"));
    long t0 = System.nanoTime();
    ReceiveMessageResponse empty = sqs.receiveMessage(b -> b.queueUrl(url));
    long waited = System.nanoTime() - t0;
    assertTrue(empty.messages().isEmpty());
    assertTrue(waited >= Duration.ofMillis(1800).toNanos(), "the queue's ReceiveMessageWaitTimeSeconds (2 s) is"
        + " waited out, waited " + waited / 1_000_000 + " ms");

    CompletableFuture<ReceiveMessageResponse> polling = CompletableFuture.supplyAsync(() ->
        sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(20)));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("wake up"));
    ReceiveMessageResponse got = polling.get(15, TimeUnit.SECONDS);
    if (got.messages().isEmpty()) { // the poll may have started after the send's item was ready; then it is next
      got = sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(5));
    }
    assertEquals("wake up", got.messages().get(0).body());
  }

  @Test
  void aMessageMadeVisibleAgainIsReceivedAgainAndItsOldReceiptHandleIsStale() {
    String url = queue("visibility", Map.of());
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("again"));
    Message first = receive(url, 1).get(0);
    sqs.changeMessageVisibility(b -> b.queueUrl(url).receiptHandle(first.receiptHandle()).visibilityTimeout(0));
    Message second = receive(url, 1).get(0);
    assertEquals(first.messageId(), second.messageId());
    assertEquals("2", second.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));

    SqsException stale = assertThrows(SqsException.class, () -> sqs.changeMessageVisibility(
        ChangeMessageVisibilityRequest.builder().queueUrl(url).receiptHandle(first.receiptHandle())
            .visibilityTimeout(30).build()));
    assertEquals("AWS.SimpleQueueService.MessageNotInflight", stale.awsErrorDetails().errorCode());
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(first.receiptHandle()));
    sqs.changeMessageVisibility(b -> b.queueUrl(url).receiptHandle(second.receiptHandle()).visibilityTimeout(0));
    Message third = receive(url, 1).get(0);
    assertEquals(first.messageId(), third.messageId(), "a delete with a stale handle does not delete, as SQS documents");
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(third.receiptHandle()));
  }

  @Test
  void batchEntriesFailAloneAndABatchTooLargeIsRefused() {
    String url = queue("batch", Map.of());
    List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      int n = i;
      entries.add(SendMessageBatchRequestEntry.builder().id("m" + i).messageBody("body-" + i)
          .messageAttributes(Map.of("n", MessageAttributeValue.builder().dataType("Number").stringValue("" + n).build()))
          .build());
    }
    entries.add(SendMessageBatchRequestEntry.builder().id("bad").messageBody("x")
        .messageAttributes(Map.of("n", MessageAttributeValue.builder().dataType("Number").stringValue("many").build()))
        .build());
    SendMessageBatchResponse sent = sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entries));
    assertEquals(9, sent.successful().size(), sent.toString());
    BatchResultErrorEntry failed = sent.failed().get(0);
    assertEquals("bad", failed.id());
    assertEquals("InvalidParameterValue", failed.code());
    assertTrue(failed.senderFault());

    List<SendMessageBatchRequestEntry> eleven = new ArrayList<>();
    for (int i = 0; i < 11; i++) {
      eleven.add(SendMessageBatchRequestEntry.builder().id("e" + i).messageBody("x").build());
    }
    assertThrows(TooManyEntriesInBatchRequestException.class, () -> sqs.sendMessageBatch(b -> b.queueUrl(url)
        .entries(eleven)));

    List<Message> got = receive(url, 9);
    List<DeleteMessageBatchRequestEntry> deletes = new ArrayList<>();
    for (int i = 0; i < got.size(); i++) {
      deletes.add(DeleteMessageBatchRequestEntry.builder().id("d" + i).receiptHandle(got.get(i).receiptHandle()).build());
    }
    deletes.set(0, DeleteMessageBatchRequestEntry.builder().id("d0").receiptHandle("garbled").build());
    DeleteMessageBatchResponse deleted = sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(deletes));
    assertEquals(8, deleted.successful().size(), deleted.toString());
    assertEquals("ReceiptHandleIsInvalid", deleted.failed().get(0).code());
  }

  @Test
  void theOrdoPriorityAttributeOrdersDelivery() {
    String url = queue("priorities", Map.of("OrdoPriority", "5"));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("default"));
    for (int p : new int[] {9, 1, 3}) {
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("p" + p).messageAttributes(Map.of("ordo.priority",
          MessageAttributeValue.builder().dataType("Number").stringValue("" + p).build())));
    }
    List<String> order = new ArrayList<>();
    for (Message m : receive(url, 4)) {
      order.add(m.body());
    }
    assertEquals(List.of("p1", "p3", "default", "p9"), order, "lower priority first, the queue's 5 between");
  }

  @Test
  void aMessageReceivedMaxReceiveCountTimesGoesToOrdosDeadLettersAndAMoveTaskBringsItBack() {
    String dead = queue("dead", Map.of());
    String deadArn = sqs.getQueueAttributes(b -> b.queueUrl(dead).attributeNames(QueueAttributeName.QUEUE_ARN))
        .attributesAsStrings().get("QueueArn");
    String url = queue("redriven", Map.of("RedrivePolicy",
        "{\"deadLetterTargetArn\":\"" + deadArn + "\",\"maxReceiveCount\":\"2\"}"));
    assertEquals(List.of(url), sqs.listDeadLetterSourceQueues(b -> b.queueUrl(dead)).queueUrls());
    SqsException noTarget = assertThrows(SqsException.class, () -> queue("orphan", Map.of("RedrivePolicy",
        "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:sqs:nowhere\",\"maxReceiveCount\":2}")));
    assertEquals("InvalidAttributeValue", noTarget.awsErrorDetails().errorCode());

    MessageAttributeValue kind = MessageAttributeValue.builder().dataType("String").stringValue("poison").build();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("poison").messageAttributes(Map.of("kind", kind)));
    for (int i = 1; i <= 2; i++) {
      Message m = receive(url, 1).get(0);
      assertEquals("" + i, m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
      sqs.changeMessageVisibility(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    }
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(1)).messages().isEmpty(),
        "received twice, not deleted: dead-lettered");
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
      TestServer.Reply r = server.get("/v1/dlq?namespace=sqs&topic=redriven");
      return r.status() == 200 && r.json().get("deadLetters").size() == 1;
    });

    String task = sqs.startMessageMoveTask(b -> b.sourceArn(deadArn)).taskHandle();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
      ListMessageMoveTasksResultEntry t = sqs.listMessageMoveTasks(b -> b.sourceArn(deadArn)).results().get(0);
      return "COMPLETED".equals(t.status()) && t.approximateNumberOfMessagesMoved() == 1;
    });
    SqsException notCancellable = assertThrows(SqsException.class, () -> sqs.cancelMessageMoveTask(b -> b
        .taskHandle(task)));
    assertEquals("AWS.SimpleQueueService.UnsupportedOperation", notCancellable.awsErrorDetails().errorCode());
    Message back = receive(url, 1).get(0);
    assertEquals("poison", back.body(), "moved back to its source queue");
    assertEquals("1", back.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT), "attempts anew");
    assertEquals(Map.of("kind", kind), back.messageAttributes(), "its attributes moved with it");
    SqsException notADlq = assertThrows(SqsException.class, () -> sqs.startMessageMoveTask(b -> b.sourceArn(
        deadArn.replace(":dead", ":redriven"))));
    assertEquals("InvalidParameterValue", notADlq.awsErrorDetails().errorCode());
  }

  /**
   * CancelMessageMoveTask on a slow task (1 message a second) once it moved some: it answers what was
   * moved, ListMessageMoveTasks shows it CANCELLED (without a handle), the moved messages stay in the
   * source queue and the rest stay dead, so a new task moves exactly those. Cancelling it again is
   * UnsupportedOperation (only a RUNNING task can be), a handle that names no task ResourceNotFoundException.
   */
  @Test
  void aRunningMoveTaskIsCancelledMovedMessagesStayAndTheRestMoveWithTheNextTask() {
    String dead = queue("dead-slow", Map.of());
    String deadArn = sqs.getQueueAttributes(b -> b.queueUrl(dead).attributeNames(QueueAttributeName.QUEUE_ARN))
        .attributesAsStrings().get("QueueArn");
    String url = queue("slow", Map.of("RedrivePolicy",
        "{\"deadLetterTargetArn\":\"" + deadArn + "\",\"maxReceiveCount\":\"1\"}"));
    int n = 20;
    for (int i = 0; i < n; i++) {
      int k = i;
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("slow-" + k));
    }
    for (Message m : receive(url, n)) {
      sqs.changeMessageVisibility(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    }
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
      TestServer.Reply r = server.get("/v1/dlq?namespace=sqs&topic=slow&limit=1000");
      return r.status() == 200 && r.json().get("deadLetters").size() == n;
    });

    String task = sqs.startMessageMoveTask(b -> b.sourceArn(deadArn).maxNumberOfMessagesPerSecond(1)).taskHandle();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
      ListMessageMoveTasksResultEntry t = sqs.listMessageMoveTasks(b -> b.sourceArn(deadArn)).results().get(0);
      return "RUNNING".equals(t.status()) && t.approximateNumberOfMessagesMoved() >= 1;
    });
    long answered = sqs.cancelMessageMoveTask(b -> b.taskHandle(task)).approximateNumberOfMessagesMoved();
    assertTrue(answered >= 1 && answered < n, "moved when cancelled: " + answered);
    ListMessageMoveTasksResultEntry[] last = new ListMessageMoveTasksResultEntry[1];
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
      last[0] = sqs.listMessageMoveTasks(b -> b.sourceArn(deadArn)).results().get(0);
      return !Set.of("RUNNING", "CANCELLING").contains(last[0].status());
    });
    assertEquals("CANCELLED", last[0].status(), last[0]::toString);
    assertEquals(null, last[0].taskHandle(), "only a RUNNING task shows its handle");
    long moved = last[0].approximateNumberOfMessagesMoved();
    assertTrue(moved >= answered && moved < n, "at most the batch under way after the answer: " + last[0]);

    SqsException again = assertThrows(SqsException.class, () -> sqs.cancelMessageMoveTask(b -> b.taskHandle(task)));
    assertEquals("AWS.SimpleQueueService.UnsupportedOperation", again.awsErrorDetails().errorCode());
    String noTask = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
        "sqs\ndead-slow\nr-000000000000".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    SqsException unknown = assertThrows(SqsException.class, () -> sqs.cancelMessageMoveTask(b -> b.taskHandle(noTask)));
    assertEquals("ResourceNotFoundException", unknown.awsErrorDetails().errorCode());

    TestServer.Reply stillDead = server.get("/v1/dlq?namespace=sqs&topic=slow&limit=1000");
    assertEquals(n - moved, stillDead.json().get("deadLetters").size(), "the rest are still dead letters");
    sqs.startMessageMoveTask(b -> b.sourceArn(deadArn));
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() ->
        "COMPLETED".equals(sqs.listMessageMoveTasks(b -> b.sourceArn(deadArn)).results().get(0).status()));
    ListMessageMoveTasksResultEntry next = sqs.listMessageMoveTasks(b -> b.sourceArn(deadArn).maxResults(2)).results().get(0);
    assertEquals(n - moved, next.approximateNumberOfMessagesMoved(), "the next task moves the rest: " + next);
    assertEquals("CANCELLED", sqs.listMessageMoveTasks(b -> b.sourceArn(deadArn).maxResults(2)).results().get(1).status(),
        "the cancelled task is listed after it, still CANCELLED");
    List<String> bodies = receive(url, n).stream().map(Message::body).sorted().toList();
    assertEquals(n, new java.util.TreeSet<>(bodies).size(), "each message back once: " + bodies);
  }

  /**
   * A FIFO queue (docs/sqs.md, "FIFO queues"; decisions D60): each message group handed out one message at
   * a time in the order sent, a message made visible again staying its group's first, the groups in
   * parallel; a MessageDeduplicationId or the body's SHA-256 (ContentBasedDeduplication) drops a duplicate,
   * answered with the first message's ID; SQS's errors for what a FIFO queue does not take.
   */
  @Test
  void aFifoQueueHandsOutEachGroupInOrderOneAtATimeAndDropsDuplicates() {
    String url = queue("orders.fifo", Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true"));
    Map<String, String> attributes = sqs.getQueueAttributes(b -> b.queueUrl(url)
        .attributeNamesWithStrings("All")).attributesAsStrings();
    assertEquals("true", attributes.get("FifoQueue"), attributes::toString);
    assertEquals("true", attributes.get("ContentBasedDeduplication"), attributes::toString);

    SqsException noGroup = assertThrows(SqsException.class, () -> sqs.sendMessage(b -> b.queueUrl(url)
        .messageBody("x")));
    assertEquals("MissingParameter", noGroup.awsErrorDetails().errorCode());
    SqsException delayed = assertThrows(SqsException.class, () -> sqs.sendMessage(b -> b.queueUrl(url)
        .messageBody("x").messageGroupId("a").delaySeconds(5)));
    assertEquals("InvalidParameterValue", delayed.awsErrorDetails().errorCode());
    String plain = queue("no-dedup.fifo", Map.of("FifoQueue", "true"));
    SqsException noId = assertThrows(SqsException.class, () -> sqs.sendMessage(b -> b.queueUrl(plain)
        .messageBody("x").messageGroupId("a")));
    assertEquals("InvalidParameterValue", noId.awsErrorDetails().errorCode());
    assertTrue(noId.getMessage().contains("ContentBasedDeduplication"), noId.getMessage());
    String standard = queue("standard", Map.of());
    SqsException notFifo = assertThrows(SqsException.class, () -> sqs.sendMessage(b -> b.queueUrl(standard)
        .messageBody("x").messageDeduplicationId("d")));
    assertEquals("InvalidParameterValue", notFifo.awsErrorDetails().errorCode());

    List<String> a = new ArrayList<>();
    List<String> bs = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      final int n = i;
      SendMessageResponse sent = sqs.sendMessage(b -> b.queueUrl(url).messageBody("a" + n).messageGroupId("a")
          .messageDeduplicationId("a-" + n));
      assertTrue(sent.sequenceNumber() != null && !sent.sequenceNumber().isEmpty(), sent::toString);
      a.add(sent.messageId());
      if (i <= 2) {
        bs.add(sqs.sendMessage(b -> b.queueUrl(url).messageBody("b" + n).messageGroupId("b")).messageId());
      }
    }
    assertEquals(a.get(1), sqs.sendMessage(b -> b.queueUrl(url).messageBody("a2, sent again").messageGroupId("a")
        .messageDeduplicationId("a-2")).messageId(), "a duplicate is answered with the first message's ID");
    assertEquals(bs.get(0), sqs.sendMessage(b -> b.queueUrl(url).messageBody("b1").messageGroupId("b")).messageId(),
        "the same body again: a duplicate by its content");

    List<Message> first = receive(url, 2);
    assertEquals(List.of(a.get(0), bs.get(0)), first.stream().map(Message::messageId).sorted(
        java.util.Comparator.comparing(id -> id.equals(a.get(0)) ? 0 : 1)).toList(), "each group's first, in parallel");
    assertEquals(List.of(), sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
        .messages(), "nothing more while both groups' first messages are in flight");
    Message a1 = first.stream().filter(m -> m.messageId().equals(a.get(0))).findFirst().orElseThrow();
    Message b1 = first.stream().filter(m -> m.messageId().equals(bs.get(0))).findFirst().orElseThrow();
    assertEquals("a", a1.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID));
    assertEquals("a-1", a1.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
    assertTrue(a1.attributes().containsKey(MessageSystemAttributeName.SEQUENCE_NUMBER), a1::toString);

    sqs.changeMessageVisibility(b -> b.queueUrl(url).receiptHandle(a1.receiptHandle()).visibilityTimeout(0));
    Message again = receive(url, 1).get(0);
    assertEquals(a.get(0), again.messageId(), "visible again: still its group's first, before a2");
    assertEquals("2", again.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(again.receiptHandle()));
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(b1.receiptHandle()));

    List<String> rest = new ArrayList<>();
    while (rest.size() < 3) {
      List<Message> got = receive(url, 1);
      for (Message m : got) {
        rest.add(m.body());
        sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()));
      }
    }
    assertEquals(List.of("a2", "a3"), rest.stream().filter(x -> x.startsWith("a")).toList(), "group a in order");
    assertEquals(List.of("b2"), rest.stream().filter(x -> x.startsWith("b")).toList(), "no duplicate delivered");
    assertEquals(List.of(), sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
        .messages());
  }

  @Test
  void sqsErrorsAreTheOnesTheSdkKnows() {
    assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("never-made")));
    SqsException fifo = assertThrows(SqsException.class, () -> queue("orders", Map.of("FifoQueue", "true")));
    assertEquals("InvalidParameterValue", fifo.awsErrorDetails().errorCode());
    assertTrue(fifo.getMessage().contains(".fifo"), fifo.getMessage());
    String url = queue("errors", Map.of());
    SqsException unsupported = assertThrows(SqsException.class, () -> sqs.addPermission(b -> b.queueUrl(url)
        .label("l").awsAccountIds("1").actions("SendMessage")));
    assertEquals("AWS.SimpleQueueService.UnsupportedOperation", unsupported.awsErrorDetails().errorCode());
    SqsException tooLong = assertThrows(SqsException.class, () -> sqs.receiveMessage(b -> b.queueUrl(url)
        .waitTimeSeconds(21)));
    assertEquals("InvalidParameterValue", tooLong.awsErrorDetails().errorCode());
    assertNull(sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("Policy"))
        .attributesAsStrings().get("Policy"));
  }

  @Test
  void itemsEnqueuedOverOrdosHttpApiAreMessagesOfTheQueueEvenWhenNotUtf8() {
    String url = queue("mixed", Map.of());
    assertEquals(201, server.post("/v1/namespaces/sqs/topics/mixed/items", "{\"payload\": \"from http\", \"priority\": 1}")
        .status());
    assertEquals(201, server.post("/v1/namespaces/sqs/topics/mixed/items", "{\"payloadBase64\": \"//4=\", \"priority\": 2}")
        .status());
    List<Message> got = receive(url, 2); // the SDK checks each MD5OfBody against the text it read
    assertEquals("from http", got.get(0).body());
    assertEquals("\uFFFD\uFFFD", got.get(1).body(), "bytes that are not UTF-8 read as replacement characters");
    assertTrue(got.get(0).messageAttributes().isEmpty());
  }

  @Test
  void garbageGetsAnSqsErrorInTheProtocolItCameIn() throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpResponse<String> json = http.send(java.net.http.HttpRequest.newBuilder(server.sqsAddress())
        .header("X-Amz-Target", "AmazonSQS.SendMessage").header("Content-Type", "application/x-amz-json-1.0")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{not json")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(400, json.statusCode());
    assertTrue(json.body().startsWith("{\"__type\":\"com.amazonaws.sqs#InvalidParameterValue\""), json.body());
    assertEquals("InvalidParameterValue;Sender", json.headers().firstValue("x-amzn-query-error").orElse(null));
    java.net.http.HttpResponse<String> query = http.send(java.net.http.HttpRequest.newBuilder(server.sqsAddress())
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("Action=Frobnicate&MessageAttribute.1.Name=%ZZ")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(400, query.statusCode());
    assertTrue(query.body().contains("<Code>InvalidParameterValue</Code>"), query.body());
    java.net.http.HttpResponse<String> unknown = http.send(java.net.http.HttpRequest.newBuilder(server.sqsAddress())
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("Action=Frobnicate")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(400, unknown.statusCode());
    assertTrue(unknown.body().contains("<Code>AWS.SimpleQueueService.UnsupportedOperation</Code>"), unknown.body());
    String metrics = server.get("/metrics").text();
    assertTrue(metrics.contains("ordo_sqs_requests_seconds_count{action=\"unsupported\",status=\"400\"}"), metrics);
    assertTrue(metrics.contains("ordo_sqs_requests_seconds_count{action=\"SendMessage\",status=\"400\"}"), metrics);
  }
}
