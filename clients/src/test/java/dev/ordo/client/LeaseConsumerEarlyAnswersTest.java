package dev.ordo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ordo.reply.early.all} (decisions D49): a lease consumer's deliveries and outcomes go outside the
 * stream thread's transaction, so under exactly-once they reach it with no commit at all. The queues
 * here commit every two minutes and never for an answer, so an answer seen within seconds went early.
 *
 * <p>And why all of a consumer's answers: a {@code read_committed} reader reads a partition only up to
 * the oldest transaction still open on it, so an early answer on a reply partition where a lease
 * consumer's answer rides the open transaction waits for its commit all the same. A second queue,
 * with the setting off, shows it for a {@code QueueClient} beside a lease consumer.
 */
@KafkaCluster
class LeaseConsumerEarlyAnswersTest extends LeaseConsumerTestBase {
  private static TestQueue answersInTransaction;
  private static QueueProducer producerOfThatQueue;

  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    queue = TestQueue.start(kafka, "lce", rareCommits(), Map.of(QueueConfig.REPLY_EARLY_ALL_CONFIG, true,
        QueueConfig.REPLY_COMMIT_GAP_CONFIG, -1L));
    producer = new QueueProducer(queue.producerConfig());
    answersInTransaction = TestQueue.start(kafka, "lcx", rareCommits(), Map.of(QueueConfig.REPLY_EARLY_ALL_CONFIG, false,
        QueueConfig.REPLY_COMMIT_GAP_CONFIG, -1L));
    producerOfThatQueue = new QueueProducer(answersInTransaction.producerConfig());
  }

  @AfterAll
  static void stopTheOtherQueue() throws Exception {
    producerOfThatQueue.close();
    answersInTransaction.close();
  }

  /** Exactly-once, a commit every two minutes (a transaction that long needs a longer timeout than Kafka Streams' 10 s). */
  private static Map<String, Object> rareCommits() {
    return Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2,
        StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 120_000L,
        StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 300_000);
  }

  @Test
  void aLeaseConsumersItemsReachItBeforeAnyCommit() {
    Set<ItemId> handled = ConcurrentHashMap.newKeySet();
    LeaseConsumer c = consumer("early-group", "early", Map.of());
    c.start(item -> handled.add(item.id()));
    awaitAssigned(c);
    Set<ItemId> ids = enqueue("early", 40, i -> item("early", "e-" + i));

    // Well inside the two minutes before the first regular commit.
    await().atMost(Duration.ofSeconds(30)).until(() -> handled.containsAll(ids));
    await().atMost(Duration.ofSeconds(10)).until(() -> c.stats().acked() == ids.size());
    assertEquals(ids, handled);
    assertTrue(queue.metrics().get(QueueMetrics.EARLY_ANSWERS) >= 1, "the deliveries went early");
    assertEquals(0, queue.metrics().get(QueueMetrics.COMMITTED_ANSWERS), "nothing for the consumer waited for a commit");
  }

  @Test
  void aQueueClientBesideALeaseConsumerIsAnsweredAtOnceOnlyWhenTheConsumersAnswersGoEarlyToo() throws Exception {
    // Setting off: the lease consumer's delivery rides the open transaction on its reply partition,
    // and the client's early answer, written after it on the same partition, is held behind it. A commit the test does
    // not control (a follow-up rebalance of the new queue commits its tasks) would show both: the
    // consumer then gets its item too, and the try starts again.
    Set<ItemId> holderGot = ConcurrentHashMap.newKeySet();
    startHolder(answersInTransaction, "off", holderGot);
    ItemId held = null;
    for (int attempt = 1; attempt <= 3 && held == null; attempt++) {
      ItemId leased = leaseToHolder(answersInTransaction, producerOfThatQueue, "off");
      // The delivery reaches the broker when the queue's producer sends its batch (it lingers).
      await().atMost(Duration.ofSeconds(20)).until(() -> openTransactionOn(answersInTransaction, leased.partition()));
      long early = answersInTransaction.metrics().get(QueueMetrics.EARLY_ANSWERS);
      try (QueueClient client = new QueueClient(clientOn(answersInTransaction, leased.partition()))) {
        String ns = "off-http-" + attempt;
        producerOfThatQueue.enqueue(item(ns, "x").build()).get(10, TimeUnit.SECONDS);
        List<QueueItem> got = client.dequeue(ns, "t", 1, Duration.ofSeconds(3)).get(30, TimeUnit.SECONDS);
        assertTrue(answersInTransaction.metrics().get(QueueMetrics.EARLY_ANSWERS) > early, "the answer went early");
        if (!got.isEmpty()) {
          // Seen: only a commit may have shown it, and then the consumer sees its own item too.
          await().atMost(Duration.ofSeconds(10)).until(() -> holderGot.contains(leased));
          continue;
        }
        assertTrue(!holderGot.contains(leased), "the consumer's delivery is still uncommitted");
        held = leased;
      }
    }
    assertTrue(held != null, "three tries, each with a commit the test did not ask for");

    // The same queue answers a client at once on a partition where no transaction is open.
    int other = (held.partition() + 1) % TestQueue.PARTITIONS;
    try (QueueClient client = new QueueClient(clientOn(answersInTransaction, other))) {
      ItemId wanted = producerOfThatQueue.enqueue(item("off-other", "x").build()).get(10, TimeUnit.SECONDS);
      List<QueueItem> got = client.dequeue("off-other", "t", 1, Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
      assertEquals(List.of(wanted.toString()), got.stream().map(i -> i.id().toString()).toList(),
          "what held the first answer was its partition's open transaction");
    }

    // Setting on: nothing of the consumer's rides the transaction, and the client is answered at once.
    Set<ItemId> onHolderGot = ConcurrentHashMap.newKeySet();
    startHolder(queue, "on", onHolderGot);
    ItemId alongside = leaseToHolder(queue, producer, "on");
    await().atMost(Duration.ofSeconds(20)).until(() -> onHolderGot.contains(alongside));
    try (QueueClient client = new QueueClient(clientOn(queue, alongside.partition()))) {
      ItemId wanted = producer.enqueue(item("on-http", "x").build()).get(10, TimeUnit.SECONDS);
      List<QueueItem> got = client.dequeue("on-http", "t", 1, Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
      assertEquals(List.of(wanted.toString()), got.stream().map(i -> i.id().toString()).toList());
    }
  }

  /** A lease consumer of namespace {@code ns} that notes each item it gets in {@code got} and holds it. */
  private void startHolder(TestQueue q, String ns, Set<ItemId> got) {
    Map<String, Object> config = q.consumerConfig(ns + "-group", ns);
    config.put(LeaseConsumerConfig.WORKERS_CONFIG, 4);
    LeaseConsumer c = new LeaseConsumer(config);
    consumers.add(c);
    c.start(item -> {
      got.add(item.id());
      new java.util.concurrent.CountDownLatch(1).await(); // until the close interrupts it
    });
    await().atMost(Duration.ofSeconds(20)).until(() -> c.assignment().size() == TestQueue.PARTITIONS);
  }

  /** Enqueues an item of {@code ns} and waits until the queue leased it (to the holder of {@code ns}). */
  private static ItemId leaseToHolder(TestQueue q, QueueProducer p, String ns) throws Exception {
    long dispatched = q.metrics().get(QueueMetrics.DISPATCHED);
    ItemId id = p.enqueue(item(ns, "held").build()).get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(20)).until(() -> q.metrics().get(QueueMetrics.DISPATCHED) > dispatched);
    return id;
  }

  /** Whether a transaction with records is open on {@code p} of deliveries: its last stable offset is behind its end. */
  private static boolean openTransactionOn(TestQueue q, int p) throws Exception {
    TopicPartition tp = new TopicPartition(q.topics.deliveries(), p);
    try (Admin admin = q.kafka.admin()) {
      return end(admin, tp, IsolationLevel.READ_COMMITTED) < end(admin, tp, IsolationLevel.READ_UNCOMMITTED);
    }
  }

  private static long end(Admin admin, TopicPartition tp, IsolationLevel isolation) throws Exception {
    return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
        .partitionResult(tp).get(10, TimeUnit.SECONDS).offset();
  }

  private static Map<String, Object> clientOn(TestQueue q, int replyPartition) {
    Map<String, Object> config = new HashMap<>(q.clientConfig());
    config.put(QueueClientConfig.REPLY_PARTITION_CONFIG, replyPartition);
    return config;
  }
}
