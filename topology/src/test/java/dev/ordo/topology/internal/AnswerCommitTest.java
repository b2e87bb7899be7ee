package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Under exactly-once an answer is visible only once committed: the processor asks for a commit when it
 * answers a requester, at most once per {@code ordo.reply.commit.gap.ms}, and never for work nobody waits on.
 * With early answers (decisions D39) what a requester waits for goes at once outside the transaction,
 * unless it hands out an at-most-once item or the producer cannot take it at once.
 */
class AnswerCommitTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final ClusterTopics TOPICS = new ClusterTopics("ordo");
  private static final Requester ALICE = new Requester("alice", 0);

  private final QueueMetrics metrics = new QueueMetrics();
  private MockProcessorContext<Out, byte[]> context;
  private QueueProcessor processor;
  private long offset;

  private void start(long gapMs) {
    start(gapMs, EarlyAnswers.NONE);
  }

  private void start(long gapMs, EarlyAnswers early) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-answer-commit");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    context = new MockProcessorContext<>(props);
    context.setCurrentSystemTimeMs(T0);
    for (String name : new String[] {PriorityStore.STATE_STORE_NAME, PriorityStore.STORE_NAME, PriorityStore.INDEX_STORE_NAME,
        NamespaceStore.NAME, PurgeJobs.STORE, DedupWindow.STORE}) {
      KeyValueStore<Bytes, byte[]> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
          Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
      store.init(context.getStateStoreContext(), store);
      context.addStateStore(store);
    }
    Map<String, Object> config = new HashMap<>();
    config.put(QueueConfig.CLUSTER_CONFIG, "ordo");
    config.put(QueueConfig.REPLY_COMMIT_GAP_CONFIG, gapMs);
    processor = new QueueProcessor(new QueueConfig(config), metrics, dev.ordo.topology.TopicMeters.NONE, 1, early, new CommitPacer(),
        (partition, app) -> dev.ordo.store.ItemSource.NONE);
    processor.init(context);
  }

  @AfterEach
  void close() {
    if (processor != null) {
      processor.close();
    }
  }

  @Test
  void answeringARequesterAsksForACommitAndSilentWorkDoesNot() {
    start(5);
    enqueue();
    assertFalse(context.committed(), "an enqueue answers nobody: the regular commit interval is soon enough");

    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L));
    assertEquals(1, context.forwarded().stream().filter(f -> f.record().key().topic().equals(TOPICS.deliveries()))
        .count(), "the item was leased to alice");
    assertTrue(context.committed(), "alice waits for the item, visible only once committed");
  }

  @Test
  void answersAskForAtMostOneCommitPerGap() {
    start(5);
    enqueue();
    command(ALICE, new Ack("0-0", "not-the-lease"));
    assertTrue(context.committed(), "the stale-lease outcome is an answer too");
    context.resetCommit();

    context.setCurrentSystemTimeMs(T0 + 4);
    command(ALICE, new Ack("0-0", "still-not-the-lease"));
    assertFalse(context.committed(), "4 ms after the last ask: the commit asked for then covers this answer");

    context.setCurrentSystemTimeMs(T0 + 5);
    command(ALICE, new Ack("0-0", "again-not-the-lease"));
    assertTrue(context.committed(), "the gap passed");
  }

  @Test
  void aNegativeGapNeverAsksAndACommandWithoutRequesterNeither() {
    start(-1);
    enqueue();
    command(ALICE, new Ack("0-0", "not-the-lease"));
    assertFalse(context.committed(), "-1: answers wait for the regular commit");

    close();
    start(5);
    enqueue();
    command(null, new Release("0-0", "not-the-lease", null));
    assertFalse(context.committed(), "nobody waits for a quiet release");
  }

  @Test
  void aPipeliningRequesterIsAnsweredAtTheRegularCommit() {
    start(5);
    enqueue();
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L), false);
    assertEquals(1, context.forwarded().stream().filter(f -> f.record().key().topic().equals(TOPICS.deliveries()))
        .count(), "the item was leased to alice");
    assertFalse(context.committed(), "a lease consumer's demand is not urgent: its items ride the next commit");
    command(ALICE, new Ack("0-0", "not-the-lease"), false);
    assertFalse(context.committed(), "nor its acks");
  }

  @Test
  void itemsArrivingForAnUrgentDemandAskForACommit() {
    start(5);
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L));
    assertFalse(context.committed(), "nothing to hand out yet: nothing to commit for alice");
    enqueue();
    assertEquals(1, context.forwarded().stream().filter(f -> f.record().key().topic().equals(TOPICS.deliveries()))
        .count(), "the arriving item went to the waiting demand");
    assertTrue(context.committed(), "alice's dequeue waits for it");
  }

  @Test
  void anUrgentAnswerGoesAtOnceOutsideTheTransactionAndAsksNoCommit() {
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    start(5, new EarlyAnswers(producer, metrics));
    enqueue();
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L));
    assertEquals(0, deliveriesForwarded(), "nothing for alice goes with the transaction");
    assertEquals(1, producer.history().size(), "the leased item went to alice at once");
    ProducerRecord<byte[], byte[]> sent = producer.history().get(0);
    assertEquals(TOPICS.deliveries(), sent.topic());
    assertEquals(ALICE.getReplyPartition(), sent.partition());
    Delivery delivery = OrdoSerdes.DELIVERY.decode(sent.value());
    assertEquals("alice", delivery.getRequesterId());
    assertInstanceOf(DeliveredItem.class, delivery.getBody());
    assertFalse(context.committed(), "an answer already visible needs no commit");

    command(ALICE, new Ack("0-0", ((DeliveredItem) delivery.getBody()).getLeaseId()));
    assertEquals(2, producer.history().size(), "the ack's outcome too");
    assertInstanceOf(Outcome.class, OrdoSerdes.DELIVERY.decode(producer.history().get(1).value()).getBody());
    assertEquals(2, metrics.get(QueueMetrics.EARLY_ANSWERS));
    assertEquals(0, metrics.get(QueueMetrics.COMMITTED_ANSWERS));
  }

  @Test
  void aRefusalOnTheTasksStateWaitsForTheCommit() {
    // An owner that lost the partition unknowingly refuses on state it will never commit; its early
    // refusal would race the new owner's answer (decisions D68).
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    start(5, new EarlyAnswers(producer, metrics));
    enqueue();
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L));
    assertEquals(1, producer.history().size(), "the leased item went at once");
    command(ALICE, new Ack("0-0", "not-the-lease"));
    assertEquals(1, producer.history().size(), "the stale lease's refusal did not go early");
    assertEquals(1, deliveriesForwarded(), "it rides the transaction");
    Outcome refused = (Outcome) OrdoSerdes.DELIVERY.decode(context.forwarded().get(context.forwarded().size() - 1)
        .record().value()).getBody();
    assertEquals(OutcomeResult.STALE_LEASE, refused.getResult());
    assertTrue(context.committed(), "and asks for the commit alice waits for");
    command(ALICE, new Ack("0-7", "a1-x"));
    assertEquals(2, deliveriesForwarded(), "an unknown item's refusal too");
  }

  @Test
  void anAnswerHandingOutAnAtMostOnceItemWaitsForTheCommit() {
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    start(5, new EarlyAnswers(producer, metrics));
    enqueue(DeliverySemantics.AT_MOST_ONCE);
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L));
    assertEquals(List.of(), producer.history(), "a crash before the commit would hand it out twice");
    assertEquals(1, deliveriesForwarded(), "it goes with the transaction");
    assertTrue(context.committed(), "and asks for the commit alice waits for");
    assertEquals(1, metrics.get(QueueMetrics.COMMITTED_ANSWERS));
  }

  @Test
  void aPipeliningRequestersAnswersKeepTheTransaction() {
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    start(5, new EarlyAnswers(producer, metrics));
    enqueue();
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L), false);
    command(ALICE, new Ack("0-0", "not-the-lease"), false);
    assertEquals(List.of(), producer.history(), "a lease consumer's demands and acks are not urgent");
    assertEquals(2, deliveriesForwarded());
  }

  @Test
  void withEveryAnswerEarlyAPipeliningRequestersAnswersGoAtOnceButNotAnAtMostOnceItem() {
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    start(5, new EarlyAnswers(producer, metrics, true));
    enqueue();
    command(ALICE, new Demand("ns", Map.of("t", 2), 10_000L, true, false, false, -1L, 0L), false);
    command(ALICE, new Ack("0-0", ((DeliveredItem) OrdoSerdes.DELIVERY.decode(producer.history().get(0).value())
        .getBody()).getLeaseId()), false);
    assertEquals(0, deliveriesForwarded(), "ordo.reply.early.all: nothing for the lease consumer rides the transaction");
    assertEquals(2, producer.history().size(), "its leased item and its ack's outcome went at once");
    assertInstanceOf(DeliveredItem.class, OrdoSerdes.DELIVERY.decode(producer.history().get(0).value()).getBody());
    assertInstanceOf(Outcome.class, OrdoSerdes.DELIVERY.decode(producer.history().get(1).value()).getBody());
    assertFalse(context.committed(), "nobody waits, and what went is already visible: no commit asked");

    enqueue(DeliverySemantics.AT_MOST_ONCE);
    assertEquals(2, producer.history().size(), "an at-most-once item is never handed out early");
    assertEquals(1, deliveriesForwarded(), "it went with the transaction, to the demand still open");
    assertFalse(context.committed(), "and, nobody waiting, rides the regular commit");
  }

  @Test
  void anAnswerTheProducerCannotTakeAtOnceGoesWithTheTransaction() {
    // As KafkaProducer does with max.block.ms 0 and no metadata yet: the callback fails in send.
    MockProducer<byte[], byte[]> refusing = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()) {
      @Override
      public synchronized java.util.concurrent.Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record,
          Callback callback) {
        TimeoutException e = new TimeoutException("Topic not present in metadata after 0 ms.");
        callback.onCompletion(null, e);
        return java.util.concurrent.CompletableFuture.failedFuture(e);
      }
    };
    start(5, new EarlyAnswers(refusing, metrics));
    enqueue();
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L));
    assertEquals(1, deliveriesForwarded(), "alice's item went the transaction's way");
    assertTrue(context.committed());
    assertEquals(1, metrics.get(QueueMetrics.EARLY_ANSWER_REFUSED));
    assertEquals(0, metrics.get(QueueMetrics.EARLY_ANSWERS));
    assertEquals(0, metrics.get(QueueMetrics.EARLY_ANSWER_FAILED), "refused at once, not lost");
  }

  @Test
  void anEarlyAnswerTheBrokerRefusesLaterIsCountedAsLost() throws InterruptedException {
    MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    start(5, new EarlyAnswers(producer, metrics));
    enqueue();
    command(ALICE, new Demand("ns", Map.of("t", 1), 10_000L, true, false, false, -1L, 0L));
    assertEquals(0, deliveriesForwarded());
    assertEquals(1, metrics.get(QueueMetrics.EARLY_ANSWERS));
    // The producer's network thread reports it.
    Thread network = new Thread(() -> producer.errorNext(new TimeoutException("expired")));
    network.start();
    network.join();
    assertEquals(1, metrics.get(QueueMetrics.EARLY_ANSWER_FAILED));
  }

  private long deliveriesForwarded() {
    return context.forwarded().stream().filter(f -> f.record().key().topic().equals(TOPICS.deliveries())).count();
  }

  private void enqueue() {
    enqueue(null);
  }

  private void enqueue(DeliverySemantics semantics) {
    Item item = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(0).setDeliverySemantics(semantics)
        .setPayload(ByteBuffer.wrap("p".getBytes(StandardCharsets.UTF_8))).build();
    context.setRecordMetadata(TOPICS.items(), 0, offset++);
    processor.process(new Record<>(null, OrdoSerdes.ITEM.encode(item), context.currentSystemTimeMs()));
  }

  private void command(Requester requester, Object body) {
    command(requester, body, true);
  }

  private void command(Requester requester, Object body, boolean urgent) {
    context.setRecordMetadata(TOPICS.commands(), 0, offset++);
    byte[] value = OrdoSerdes.COMMAND.encode(new Command(requester, context.currentSystemTimeMs(), body, urgent, null));
    processor.process(new Record<>("0-0".getBytes(StandardCharsets.UTF_8), value, context.currentSystemTimeMs()));
  }
}
