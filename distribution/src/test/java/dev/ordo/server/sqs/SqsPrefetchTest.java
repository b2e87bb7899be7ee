package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * The receive prefetch (docs/sqs.md "Receive prefetch") through the AWS SDK for Java v2: receives of
 * one message at a time, so that the endpoint leases more than it returns and holds the rest (a
 * prefetch held up to 20 s here, so that what is held stays held while a test looks). One partition.
 */
@KafkaCluster
class SqsPrefetchTest {
  private static final Map<String, String> PREFETCH = Map.of(SqsConfig.PREFETCH_ITEMS_CONFIG, "50",
      SqsConfig.PREFETCH_MAX_AGE_CONFIG, "20000");

  @TempDir
  static Path tmp;

  private static RealKafka kafka;
  private static TestServer server;
  private static SqsClient sqs;

  @BeforeAll
  static void start(RealKafka k) {
    kafka = k;
    server = TestServer.startWithSqs(kafka, "sqsprefetch", tmp.resolve("server"), PREFETCH, OptionalInt.of(1));
    sqs = SqsJavaSdkTest.client(server.sqsAddress());
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

  private static String queue(SqsClient client, String name, Map<String, String> attributes) {
    return client.createQueue(b -> b.queueName(name).attributesWithStrings(attributes)).queueUrl();
  }

  private static void send(SqsClient client, String url, int n) {
    for (int from = 0; from < n; from += 10) {
      List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
      for (int i = from; i < Math.min(n, from + 10); i++) {
        entries.add(SendMessageBatchRequestEntry.builder().id("m" + i).messageBody("m" + i).build());
      }
      assertEquals(List.of(), client.sendMessageBatch(b -> b.queueUrl(url).entries(entries)).failed());
    }
  }

  /** One receive of up to {@code max}, long-polling up to 2 s, with every system attribute. */
  private static List<Message> receiveOnce(SqsClient client, String url, int max, Integer visibility) {
    return client.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(max).waitTimeSeconds(2)
        .visibilityTimeout(visibility).messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
  }

  /** Receives (each of up to 10) until {@code n} messages came or {@code within} passed. */
  private static List<Message> receive(SqsClient client, String url, int n, Duration within) {
    List<Message> got = new ArrayList<>();
    long deadline = System.nanoTime() + within.toNanos();
    while (got.size() < n && System.nanoTime() < deadline) {
      got.addAll(receiveOnce(client, url, Math.min(10, n - got.size()), null));
    }
    return got;
  }

  private static String count(Message m) {
    return m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT);
  }

  private static Set<String> ids(List<Message> messages) {
    Set<String> out = new HashSet<>();
    messages.forEach(m -> out.add(m.messageId()));
    return out;
  }

  @Test
  void whatAClosingServerHeldIsGivenBackAndReceivedElsewhereWithItsReceiveUncounted() {
    String url = queue(sqs, "closing", Map.of("VisibilityTimeout", "600"));
    send(sqs, url, 30);
    List<Message> handed = new ArrayList<>();
    // Single receives on a second server: its prefetch ramps up (1, 2, 4, 8 asked) and holds the rest.
    try (TestServer other = TestServer.startWithSqs(kafka, "sqsprefetch", tmp.resolve("other"), PREFETCH,
        OptionalInt.of(1)); SqsClient onOther = SqsJavaSdkTest.client(other.sqsAddress())) {
      String there = org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .ignoreException(software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException.class)
          .until(() -> onOther.getQueueUrl(r -> r.queueName("closing")).queueUrl(), u -> u != null);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (handed.size() < 8 && System.nanoTime() < deadline) {
        handed.addAll(receiveOnce(onOther, there, 1, null));
      }
      assertEquals(8, handed.size());
    }
    // Not deleted, and invisible for 600 s: only what the closed server held can come now.
    List<Message> rest = receive(sqs, url, 22, Duration.ofSeconds(30));
    assertEquals(22, rest.size(), "every message the closed server did not hand out is ready again at once");
    Set<String> restIds = ids(rest);
    assertEquals(22, restIds.size());
    restIds.retainAll(ids(handed));
    assertEquals(Set.of(), restIds, "none of the 8 handed out (their visibility timeout holds)");
    for (Message m : rest) {
      assertEquals("1", count(m), "a message given back unseen was received once: " + m);
    }
    assertEquals(List.of(), receiveOnce(sqs, url, 10, null));
  }

  @Test
  void aReceivesVisibilityTimeoutHoldsForMessagesHandedOutFromThePrefetch() throws Exception {
    String url = queue(sqs, "visible", Map.of("VisibilityTimeout", "30")); // held up to 3 s
    send(sqs, url, 20);
    List<Message> handed = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (handed.size() < 8 && System.nanoTime() < deadline) {
      handed.addAll(receiveOnce(sqs, url, 1, 3)); // VisibilityTimeout 3 s, from the receive
    }
    assertEquals(8, handed.size());
    assertEquals(8, ids(handed).size(), "8 messages (received within their 3 s)");
    handed.forEach(m -> assertEquals("1", count(m)));
    // Receiving on until all 20 came: the 8 come back once their receives' 3 s ran out (the queue's 30 s
    // would not have let them within the 15 s), the 12 others at once.
    List<Message> all = receive(sqs, url, 20, Duration.ofSeconds(15));
    assertEquals(20, all.size(), "the 8 are visible again within 15 s, and the 12 others ready");
    Map<String, String> counts = new HashMap<>();
    all.forEach(m -> counts.put(m.messageId(), count(m)));
    for (Message m : handed) {
      assertEquals("2", counts.get(m.messageId()), "received twice: " + m.messageId());
    }
    assertEquals(12, counts.values().stream().filter("1"::equals).count(), "the others once: " + counts);
  }

  @Test
  void aFifoQueueHandsOutEachGroupInOrderThroughThePrefetchAndNothingAfterAHeadNotDeleted() {
    String url = queue(sqs, "ordered.fifo", Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true",
        "VisibilityTimeout", "600"));
    int groups = 4;
    int each = 5;
    for (int i = 0; i < each; i++) {
      for (int g = 0; g < groups; g++) {
        String group = "g" + g;
        String body = group + "-" + i;
        sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).messageGroupId(group));
      }
    }
    Map<String, List<String>> seen = new HashMap<>();
    Message keptHead = null;
    boolean kept = false;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    int received = 0;
    while (received < groups * each && System.nanoTime() < deadline) {
      List<Message> got = receiveOnce(sqs, url, received < 4 ? 1 : 10, null);
      Set<String> groupsOfThisReceive = new HashSet<>();
      for (Message m : got) {
        String group = m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
        assertTrue(groupsOfThisReceive.add(group), "one message of a group at a time: " + got);
        assertEquals("1", count(m), m.toString());
        List<String> bodies = seen.computeIfAbsent(group, x -> new ArrayList<>());
        assertEquals(group + "-" + bodies.size(), m.body(), "group " + group + " in order after " + bodies);
        bodies.add(m.body());
        received++;
        if (!kept && group.equals("g0")) {
          keptHead = m; // not deleted yet: nothing more of g0 may come
          kept = true;
        } else {
          sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()));
        }
      }
      if (keptHead != null && received == groups * each - (each - 1)) {
        assertEquals(List.of(), receiveOnce(sqs, url, 10, null), "g0's next waits for its head's delete");
        Message head = keptHead;
        sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(head.receiptHandle()));
        keptHead = null;
      }
    }
    assertEquals(groups * each, received, "every message once: " + seen);
    for (int g = 0; g < groups; g++) {
      assertEquals(each, seen.get("g" + g).size(), seen.toString());
    }
  }
}
