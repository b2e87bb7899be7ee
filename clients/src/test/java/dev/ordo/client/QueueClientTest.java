package dev.ordo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Outcome;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueMetrics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** QueueProducer and QueueClient against a real Kafka cluster and a running queue. */
@KafkaCluster
class QueueClientTest {
  /** Best first, as a dequeue hands items out ({@code Selection.ORDER} of what the queue sends). */
  private static final java.util.Comparator<QueueItem> ORDER = java.util.Comparator.comparingInt(QueueItem::priority)
      .thenComparing(QueueItem::enqueuedAt)
      .thenComparing(QueueItem::id, java.util.Comparator.comparingInt(ItemId::partition).thenComparingLong(ItemId::offset));

  private static TestQueue queue;
  private static QueueProducer producer;
  private static QueueClient client;

  @BeforeAll
  static void startQueue(RealKafka kafka) throws Exception {
    queue = TestQueue.start(kafka, "qc");
    producer = new QueueProducer(queue.producerConfig());
    client = new QueueClient(queue.clientConfig());
  }

  @AfterAll
  static void stopQueue() throws Exception {
    client.close();
    producer.close();
    queue.close();
  }

  @Test
  void enqueueReturnsTheItemsPartitionAndOffsetAndAGroupKeepsToOnePartition() throws Exception {
    List<EnqueueRequest> requests = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      requests.add(item("ids", "t", 0, "p" + i).groupKey("same").build());
    }
    List<ItemId> ids = producer.enqueueAll(requests).get(10, TimeUnit.SECONDS);
    assertEquals(6, new HashSet<>(ids).size(), "distinct IDs: " + ids);
    assertEquals(1, ids.stream().map(ItemId::partition).distinct().count(), "one partition for one group: " + ids);

    List<QueueItem> got = dequeueUntil("ids", "t", 6);
    assertEquals(Set.copyOf(ids), ids(got));
    ackAll(got);
  }

  @Test
  void dequeueReturnsTheItemsOfThePartitionsWithTheBestHeadsInPriorityOrder() throws Exception {
    int[] priorities = {7, 3, 9, 0, 5, 1, 8, 2};
    List<CompletableFuture<ItemId>> sends = new ArrayList<>();
    for (int i = 0; i < priorities.length; i++) {
      sends.add(producer.enqueue(item("prio", "t", priorities[i], "p" + priorities[i])
          .groupKey(keyFor(i % TestQueue.PARTITIONS)).build()));
    }
    Map<Integer, List<Integer>> byPartition = new java.util.TreeMap<>();
    for (int i = 0; i < priorities.length; i++) {
      byPartition.computeIfAbsent(sends.get(i).get(10, TimeUnit.SECONDS).partition(), p -> new ArrayList<>())
          .add(priorities[i]);
    }
    assertEquals(TestQueue.PARTITIONS, byPartition.size(), "items on every partition");
    // What the plan asks, at the grain of the stats: the partition with the best head for all it holds,
    // then the next best, until the three are covered (docs/queue.md, DemandPlan).
    List<List<Integer>> bestFirst = new ArrayList<>(byPartition.values());
    bestFirst.forEach(java.util.Collections::sort);
    bestFirst.sort(java.util.Comparator.comparingInt(l -> l.get(0)));
    List<Integer> expected = new ArrayList<>();
    for (List<Integer> held : bestFirst) {
      for (int p : held) {
        if (expected.size() < 3) {
          expected.add(p);
        }
      }
    }
    expected.sort(null);
    Map<String, Object> patientConfig = new HashMap<>(queue.clientConfig());
    patientConfig.put(QueueClientConfig.DEQUEUE_GATHER_CONFIG, 1_000L);
    try (QueueClient patient = new QueueClient(patientConfig)) {
      // The plan reads the stats: wait until they show every item.
      await().atMost(Duration.ofSeconds(15)).until(() -> patient.activeTopics("prio").get().stream()
          .anyMatch(t -> t.topic().equals("t") && t.ready() == priorities.length));
      List<QueueItem> best = patient.dequeue("prio", Map.of("t", 3), Duration.ofSeconds(2))
          .get(10, TimeUnit.SECONDS);
      assertEquals(expected, best.stream().map(QueueItem::priority).toList());
      assertEquals(0, best.get(0).priority(), "the best item of all first");
      assertEquals(Map.of(), nonZero(patient.givenBack()), "asked exactly what it took: nothing given back");

      List<QueueItem> rest = dequeueUntil("prio", "t", 5);
      assertEquals(5, rest.size());
      assertTrue(rest.stream().allMatch(i -> i.attempt() == 1), "nobody else had them");
      ackAll(best);
      ackAll(rest);
    }
  }

  private static Map<GiveBackReason, Long> nonZero(Map<GiveBackReason, Long> counts) {
    Map<GiveBackReason, Long> out = new HashMap<>(counts);
    out.values().removeIf(n -> n == 0);
    return out;
  }

  @Test
  void aDequeueOfReadyItemsLeasesOnlyWhatItReturnsAskingThePartitionsWithTheBestHeads() throws Exception {
    List<CompletableFuture<ItemId>> sends = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int partition = i % TestQueue.PARTITIONS;
      // Partition 2 holds the best head (priority 0 and 1); every other item has priority 5.
      int priority = partition == 2 && i < 8 ? i / 4 : 5;
      sends.add(producer.enqueue(item("lean", "t", priority, "p" + i).groupKey(keyFor(partition)).build()));
    }
    for (CompletableFuture<ItemId> f : sends) {
      f.get(10, TimeUnit.SECONDS);
    }
    String clientId = "lean-client";
    Map<String, Object> config = new HashMap<>(queue.clientConfig());
    config.put(QueueClientConfig.CLIENT_ID_CONFIG, clientId);
    try (QueueClient lean = new QueueClient(config)) {
      // The plan reads the per-partition stats: wait until they show every item.
      await().atMost(Duration.ofSeconds(15)).until(() -> lean.activeTopics("lean").get().stream()
          .anyMatch(t -> t.topic().equals("t") && t.ready() == 40));
      List<QueueItem> got = lean.dequeue("lean", Map.of("t", 5), Duration.ZERO).get(10, TimeUnit.SECONDS);
      assertEquals(5, got.size());
      got.sort(ORDER);
      assertEquals(List.of(0, 1, 5, 5, 5), got.stream().map(QueueItem::priority).toList(),
          "partition 2's whole head, the best of the cluster, was asked for first");

      // Every item leased to the client's dequeues, read from its reply partition: five, not five per partition.
      int leased = itemsDeliveredTo(clientId + "/", lean.replyPartition());
      assertEquals(5, leased, "a dequeue of 5 ready items leases 5, none to release");
      ackAll(got);
    }
    ackAll(dequeueUntil("lean", "t", 35));
  }

  @Test
  void theClockGivenInTheConfigTellsTheAgeOfTheOldestReadyItem() throws Exception {
    ManualTime time = new ManualTime(System.currentTimeMillis() + Duration.ofHours(1).toMillis());
    producer.enqueue(item("clock", "t", 0, "x").build()).get(10, TimeUnit.SECONDS);
    try (QueueClient clocked = new QueueClient(new QueueClientConfig(queue.clientConfig(), time))) {
      await().atMost(Duration.ofSeconds(20)).until(() -> clocked.activeTopics("clock").get().stream()
          .anyMatch(t -> t.ready() == 1));
      TopicActivity t = clocked.activeTopics("clock").get(10, TimeUnit.SECONDS).get(0);
      assertTrue(t.oldestReadyAge().compareTo(Duration.ofMinutes(59)) > 0, "an hour on by the client's clock: " + t);
      time.advance(Duration.ofHours(1).toMillis());
      TopicActivity later = clocked.activeTopics("clock").get(10, TimeUnit.SECONDS).get(0);
      assertTrue(later.oldestReadyAge().compareTo(Duration.ofMinutes(119)) > 0, "and one more: " + later);
    }
    ackAll(dequeueUntil("clock", "t", 1));
  }

  @Test
  void aDequeueItsCallerGivesUpEndsAndWhatItWasGrantedGoesToTheNextOnItsFirstAttempt() throws Exception {
    CompletableFuture<List<QueueItem>> cancelled = client.dequeue("gaveup", Map.of("t", 1), Duration.ofSeconds(30));
    assertTrue(cancelled.cancel(false));
    CompletableFuture<List<QueueItem>> timedOut = client.dequeue("gaveup", Map.of("t", 1), Duration.ofSeconds(30))
        .orTimeout(1, TimeUnit.MILLISECONDS);
    ExecutionException e = assertThrows(ExecutionException.class, () -> timedOut.get(10, TimeUnit.SECONDS));
    assertInstanceOf(TimeoutException.class, e.getCause());
    producer.enqueue(item("gaveup", "t", 0, "x").build()).get(10, TimeUnit.SECONDS);
    QueueItem got = dequeueUntil("gaveup", "t", 1).get(0);
    assertEquals(1, got.attempt(), "the dequeues given up hold nothing: it comes unseen");
    ackAll(List.of(got));
  }

  @Test
  void aClosedClientOrProducerFailsEveryCallWithClientClosedException() throws Exception {
    QueueClient closing = new QueueClient(queue.clientConfig());
    CompletableFuture<List<QueueItem>> waiting = closing.dequeue("closing", Map.of("t", 1), Duration.ofSeconds(30));
    closing.close();
    ExecutionException pending = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
    assertInstanceOf(ClientClosedException.class, pending.getCause(), "a dequeue open at the close");
    for (CompletableFuture<?> call : List.of(closing.dequeue("closing", "t", 1, Duration.ZERO),
        closing.ack(new ItemId(0, 1), "lease"), closing.cancel(new ItemId(0, 1)),
        closing.ackAll(List.of(Map.entry(new ItemId(0, 1), "lease"))).get(0))) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
      assertInstanceOf(ClientClosedException.class, e.getCause());
      assertTrue(e.getCause().getMessage().contains(closing.clientId() + " is closed"), e.getCause().getMessage());
    }
    QueueProducer closed = new QueueProducer(queue.producerConfig());
    closed.close();
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> closed.enqueue(item("closing", "t", 0, "x").build()).get(10, TimeUnit.SECONDS));
    assertInstanceOf(ClientClosedException.class, e.getCause());
  }

  @Test
  void ackNackExtendAndCancelAnswerAppliedStaleLeaseOrUnknownItem() throws Exception {
    producer.enqueue(item("outcomes", "t", 0, "x").lease(Duration.ofSeconds(5)).build()).get(10, TimeUnit.SECONDS);
    QueueItem item = dequeueUntil("outcomes", "t", 1).get(0);
    ItemId id = item.id();

    CommandOutcome extended = client.extend(item, Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS);
    assertEquals(CommandOutcome.Result.APPLIED, extended.result());
    assertTrue(extended.leaseExpiresAt().isAfter(item.leaseExpiresAt().plusSeconds(50)), "lease pushed out");

    assertEquals(CommandOutcome.Result.STALE_LEASE, client.ack(id, "not-the-lease").get(10, TimeUnit.SECONDS).result());
    assertEquals(CommandOutcome.Result.STALE_LEASE,
        client.nack(id, "not-the-lease", Duration.ZERO, null).get(10, TimeUnit.SECONDS).result());
    assertEquals(CommandOutcome.Result.STALE_LEASE,
        client.extend(id, "not-the-lease", Duration.ofSeconds(1)).get(10, TimeUnit.SECONDS).result());

    assertEquals(CommandOutcome.Result.APPLIED, client.ack(item).get(10, TimeUnit.SECONDS).result());
    assertEquals(CommandOutcome.Result.UNKNOWN_ITEM, client.ack(item).get(10, TimeUnit.SECONDS).result());
    assertEquals(CommandOutcome.Result.UNKNOWN_ITEM, client.extend(item, Duration.ofSeconds(1)).get(10, TimeUnit.SECONDS).result());
    assertEquals(CommandOutcome.Result.UNKNOWN_ITEM, client.cancel(new ItemId(0, 999_999)).get(10, TimeUnit.SECONDS).result());
    CommandOutcome noPartition = client.ack(new ItemId(99, 1), "lease").get(10, TimeUnit.SECONDS);
    assertEquals(CommandOutcome.Result.UNKNOWN_ITEM, noPartition.result());
    assertTrue(noPartition.detail().contains("no partition 99"), noPartition.detail());
  }

  @Test
  void answersToAWaitingCallerGoBeforeTheCommitUnlessTheyHandOutAnAtMostOnceItem() throws Exception {
    QueueMetrics m = queue.metrics();
    producer.enqueue(item("early", "t", 0, "x").build()).get(10, TimeUnit.SECONDS);
    long early = m.get(QueueMetrics.EARLY_ANSWERS);
    QueueItem item = dequeueUntil("early", "t", 1).get(0);
    assertEquals(CommandOutcome.Result.APPLIED, client.ack(item).get(10, TimeUnit.SECONDS).result());
    // The stream thread counts an early answer once the producer took it, so the client may have it first.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(m.get(QueueMetrics.EARLY_ANSWERS) >= early + 2,
        "the lease and the ack's outcome went outside the transaction (decisions D39)"));

    producer.enqueue(item("early", "once", 0, "y").atMostOnce().build()).get(10, TimeUnit.SECONDS);
    long committed = m.get(QueueMetrics.COMMITTED_ANSWERS);
    QueueItem once = dequeueUntil("early", "once", 1).get(0);
    assertEquals(Semantics.AT_MOST_ONCE, once.semantics());
    assertTrue(m.get(QueueMetrics.COMMITTED_ANSWERS) >= committed + 1,
        "an at-most-once item is handed out only once its lease is committed");
    assertEquals(CommandOutcome.Result.APPLIED, client.ack(once).get(10, TimeUnit.SECONDS).result());
    assertEquals(0, m.get(QueueMetrics.EARLY_ANSWER_FAILED));
  }

  @Test
  void aRedeliveredItemRefusesItsOldLease() throws Exception {
    producer.enqueue(item("stale", "t", 0, "x").build()).get(10, TimeUnit.SECONDS);
    QueueItem first = dequeueUntil("stale", "t", 1).get(0);
    assertEquals(CommandOutcome.Result.APPLIED, client.release(first).get(10, TimeUnit.SECONDS).result());
    QueueItem second = dequeueUntil("stale", "t", 1).get(0);
    assertEquals(first.id().toString(), second.id().toString());
    assertNotEquals(first.leaseId(), second.leaseId());
    assertEquals(CommandOutcome.Result.STALE_LEASE, client.ack(first).get(10, TimeUnit.SECONDS).result());
    assertEquals(CommandOutcome.Result.APPLIED, client.ack(second).get(10, TimeUnit.SECONDS).result());
  }

  @Test
  void nackWithDelayAndMetadataRedeliversTheItemLaterWithTheNewMetadata() throws Exception {
    producer.enqueue(item("nack", "t", 0, "x").metadata(bytes("m1")).build()).get(10, TimeUnit.SECONDS);
    QueueItem first = dequeueUntil("nack", "t", 1).get(0);
    assertEquals("m1", text(java.nio.ByteBuffer.wrap(first.metadata())));

    long nackedAt = System.currentTimeMillis();
    CommandOutcome nacked = client.nack(first.id(), first.leaseId(), Duration.ofMillis(1_500), bytes("m2"))
        .get(10, TimeUnit.SECONDS);
    assertEquals(CommandOutcome.Result.APPLIED, nacked.result());
    assertEquals(List.of(), client.dequeue("nack", Map.of("t", 1), Duration.ofMillis(300)).get(10, TimeUnit.SECONDS),
        "not ready during its delay");

    QueueItem second = client.dequeue("nack", Map.of("t", 1), Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS).get(0);
    assertTrue(System.currentTimeMillis() - nackedAt >= 1_400, "redelivered after the delay");
    assertEquals(2, second.attempt());
    assertEquals("m2", text(java.nio.ByteBuffer.wrap(second.metadata())));
    ackAll(List.of(second));
  }

  @Test
  void dequeueLongPollsAndReturnsAnItemEnqueuedDuringItsWait() throws Exception {
    long start = System.currentTimeMillis();
    CompletableFuture<List<QueueItem>> waiting = client.dequeue("longpoll", Map.of("t", 1), Duration.ofSeconds(20));
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
    ItemId id = producer.enqueue(item("longpoll", "t", 0, "late").build()).get(10, TimeUnit.SECONDS);

    List<QueueItem> got = waiting.get(10, TimeUnit.SECONDS);
    long took = System.currentTimeMillis() - start;
    assertEquals(List.of(id.toString()), got.stream().map(i -> i.id().toString()).toList());
    assertTrue(took < 10_000, "returned when the item came, not at the end of the wait: " + took + " ms");
    ackAll(got);
  }

  @Test
  void dequeueRefusesBadArgumentsNamingThem() {
    Map<String, Map<String, Integer>> bad = Map.of(
        "namespace", Map.of("t", 1),
        "topic", Map.of("a/b", 1),
        "count", Map.of("t", 0),
        "at most 1000", Map.of("t", 1001));
    bad.forEach((field, topics) -> {
      String namespace = field.equals("namespace") ? "" : "ns";
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> client.dequeue(namespace, topics, Duration.ZERO));
      assertTrue(e.getMessage().contains(field), field + ": " + e.getMessage());
    });
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> client.dequeue("ns", Map.of("t", 1), Duration.ofMillis(-1))).getMessage().contains("wait"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> client.extend(new ItemId(0, 1), "l", Duration.ZERO)).getMessage().contains("lease"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> client.nack(new ItemId(0, 1), "l", Duration.ofSeconds(-1), null)).getMessage().contains("delay"));
  }

  @Test
  void dequeueOfAnEmptyTopicReturnsNothingAfterItsWait() throws Exception {
    long start = System.currentTimeMillis();
    List<QueueItem> got = client.dequeue("empty", Map.of("t", 5), Duration.ofMillis(600)).get(10, TimeUnit.SECONDS);
    assertEquals(List.of(), got);
    assertTrue(System.currentTimeMillis() - start >= 600);
  }

  @Test
  void concurrentDequeuesShareTheItemsWithoutDuplicates() throws Exception {
    List<EnqueueRequest> requests = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      requests.add(item("shared", "t", i % 3, "p" + i).build());
    }
    Set<ItemId> ids = Set.copyOf(producer.enqueueAll(requests).get(10, TimeUnit.SECONDS));
    List<QueueItem> all = new ArrayList<>();
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      List<CompletableFuture<List<QueueItem>>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        calls.add(client.dequeue("shared", Map.of("t", 5), Duration.ofSeconds(1)));
      }
      for (CompletableFuture<List<QueueItem>> call : calls) {
        List<QueueItem> got = call.get(10, TimeUnit.SECONDS);
        assertTrue(got.size() <= 5, "at most the count: " + got.size());
        all.addAll(got);
        ackAll(got);
      }
      return all.size() >= ids.size();
    });
    assertEquals(all.size(), ids(all).size(), "no item handed out twice");
    assertEquals(ids, ids(all));
  }

  @Test
  void aDequeueReturnsWhatIsReadyWithoutWaitingForItsFullCount() throws Exception {
    producer.enqueue(item("partial", "t", 0, "only").build()).get(10, TimeUnit.SECONDS);
    long start = System.currentTimeMillis();
    List<QueueItem> got = client.dequeue("partial", "t", 10, Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
    assertEquals(1, got.size());
    assertTrue(System.currentTimeMillis() - start < 10_000, "no long poll while an item is ready");
    ackAll(got);
  }

  @Test
  void anyTopicDequeueServesTheNamespaceInPriorityOrder() throws Exception {
    producer.enqueueAll(List.of(item("any", "a", 5, "a5").build(), item("any", "b", 1, "b1").build(),
        item("any", "c", 3, "c3").build())).get(10, TimeUnit.SECONDS);
    List<QueueItem> got = client.dequeue("any", Map.of("*", 2), Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
    assertEquals(List.of("b", "c"), got.stream().map(QueueItem::topic).toList());
    ackAll(got);
    ackAll(dequeueUntil("any", "a", 1));
  }

  @Test
  void cancelDeletesALeasedItemAndItsLeaseNoLongerHolds() throws Exception {
    producer.enqueue(item("cancel", "t", 0, "x").build()).get(10, TimeUnit.SECONDS);
    QueueItem item = dequeueUntil("cancel", "t", 1).get(0);
    assertEquals(CommandOutcome.Result.APPLIED, client.cancel(item.id()).get(10, TimeUnit.SECONDS).result());
    assertEquals(CommandOutcome.Result.UNKNOWN_ITEM, client.ack(item).get(10, TimeUnit.SECONDS).result());
  }

  @Test
  void activeTopicsReportsReadyDelayedAndLeasedCountsPerTopic() throws Exception {
    producer.enqueueAll(List.of(item("stats", "a", 4, "a1").build(), item("stats", "a", 2, "a2").build(),
        item("stats", "a", 6, "a3").build(), item("stats", "b", 0, "b1").delay(Duration.ofMinutes(5)).build(),
        item("stats", "b", 0, "b2").delay(Duration.ofMinutes(5)).build())).get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(15)).until(() -> counts("stats").equals(Map.of("a", List.of(3L, 0L, 0L),
        "b", List.of(0L, 2L, 0L))));
    TopicActivity a = client.activeTopics("stats").get(10, TimeUnit.SECONDS).get(0);
    assertEquals(2, a.headPriority());
    assertNotNull(a.oldestReadyAt());

    List<QueueItem> one = client.dequeue("stats", Map.of("a", 1), Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(15)).until(() -> counts("stats").get("a").equals(List.of(2L, 0L, 1L)));
    ackAll(one);
    ackAll(dequeueUntil("stats", "a", 2));
    await().atMost(Duration.ofSeconds(15)).until(() -> !counts("stats").containsKey("a"));
  }

  @Test
  void aProducerRefusesANamespaceWhoseBacklogIsAtItsLimit() throws Exception {
    Map<String, Object> config = queue.producerConfig();
    config.put(QueueProducerConfig.BACKLOG_MAX_ITEMS_CONFIG, 3L);
    try (QueueProducer limited = new QueueProducer(config)) {
      limited.enqueueAll(List.of(item("full", "t", 0, "1").build(), item("full", "t", 0, "2").build(),
          item("full", "t", 0, "3").build())).get(10, TimeUnit.SECONDS);
      // Once the stats show the 3 waiting: refused after waiting its 300 ms for room (the plain
      // enqueue waits max.block.ms, 60 s by default).
      await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        ExecutionException e = assertThrows(ExecutionException.class,
            () -> limited.enqueue(item("full", "t", 0, "4").build(), Duration.ofMillis(300)).get(10, TimeUnit.SECONDS));
        assertInstanceOf(BacklogFullException.class, e.getCause());
      });
      limited.enqueue(item("other", "t", 0, "1").build()).get(10, TimeUnit.SECONDS);
    }
    ackAll(dequeueUntil("full", "t", 3));
    ackAll(dequeueUntil("other", "t", 1));
  }

  @Test
  void theNamespaceAdminSetsReplacesReadsAndDeletesAPolicy() {
    try (NamespaceAdmin admin = new NamespaceAdmin(Map.of("bootstrap.servers", queue.kafka.bootstrapServers()),
        queue.topics.cluster())) {
      NamespacePolicy first = new NamespacePolicy(new NamespacePolicy.Defaults(60_000L, null, 3, false, 1_024),
          new NamespacePolicy.Rate(50, 5), 1_000L, new NamespacePolicy.Rate(20, 2), Duration.ofSeconds(30),
          new NamespacePolicy.Groups(4, Map.of("big", 8), Map.of("big", 3.0)))
          .withTopicWeights(Map.of("urgent", 3.0));
      admin.set("admin-ns", first);
      assertEquals(java.util.Optional.of(first), admin.get("admin-ns"));
      NamespacePolicy second = new NamespacePolicy(null, null, 10L, null, null);
      admin.set("admin-ns", second);
      assertEquals(java.util.Optional.of(second), admin.get("admin-ns"), "a set replaces the whole policy");
      assertEquals(second, admin.all().get("admin-ns"));
      admin.delete("admin-ns");
      assertEquals(java.util.Optional.empty(), admin.get("admin-ns"));
      assertFalse(admin.all().containsKey("admin-ns"));
      assertThrows(IllegalArgumentException.class, () -> admin.set("admin-ns", null));
      assertThrows(IllegalArgumentException.class, () -> admin.set("bad\u0001name", second));
    }
  }

  @Test
  void aProducerWaitsMaxBlockMsAtAPolicysBacklogLimitThenThrowsAndGoesOnOnceThereIsRoom() throws Exception {
    try (NamespaceAdmin admin = new NamespaceAdmin(Map.of("bootstrap.servers", queue.kafka.bootstrapServers()),
        queue.topics.cluster())) {
      admin.set("capped", new NamespacePolicy(null, null, 2L, null, null));
    }
    Map<String, Object> shortWait = queue.producerConfig();
    shortWait.put("producer.max.block.ms", 1_500);
    Map<String, Object> longWait = queue.producerConfig();
    longWait.put("producer.max.block.ms", 60_000);
    Set<String> enqueued = new HashSet<>();
    try (QueueProducer impatient = new QueueProducer(shortWait);
         QueueProducer patient = new QueueProducer(longWait)) {
      impatient.enqueueAll(List.of(item("capped", "t", 0, "a").build(), item("capped", "t", 0, "b").build()))
          .get(10, TimeUnit.SECONDS);
      enqueued.addAll(List.of("a", "b"));
      // Once the producer has read the policy and the stats show the backlog at its limit, a plain
      // enqueue (no wait of its own) waits max.block.ms for room and then fails with
      // BacklogFullException. Until then enqueues still go through: they are counted.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      BacklogFullException refused = null;
      long waitedNanos = 0;
      while (refused == null) {
        assertTrue(System.nanoTime() < deadline, "no refusal within 30 s; enqueued " + enqueued);
        String payload = "x" + enqueued.size();
        long start = System.nanoTime();
        try {
          impatient.enqueue(item("capped", "t", 0, payload).build()).get(10, TimeUnit.SECONDS);
          enqueued.add(payload);
        } catch (ExecutionException e) {
          assertInstanceOf(BacklogFullException.class, e.getCause());
          refused = (BacklogFullException) e.getCause();
          waitedNanos = System.nanoTime() - start;
        }
      }
      // (whole milliseconds: a millisecond less than the 1,500 can be the rounding)
      assertTrue(waitedNanos >= TimeUnit.MILLISECONDS.toNanos(1_450),
          "it waited max.block.ms for room before giving up: " + waitedNanos / 1_000_000 + " ms");
      assertTrue(refused.getMessage().contains("capped"), refused.getMessage());
      // An enqueue waiting for room goes through once items leave the backlog.
      CompletableFuture<ItemId> waiting = CompletableFuture.supplyAsync(
          () -> patient.enqueue(item("capped", "t", 0, "late").build()).join());
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !waiting.isDone());
      Set<String> delivered = new HashSet<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (QueueItem i : client.dequeue("capped", Map.of("t", 1), Duration.ofMillis(500)).get(10, TimeUnit.SECONDS)) {
          assertTrue(delivered.add(new String(i.payload(), StandardCharsets.UTF_8)), "delivered twice: " + i);
          assertEquals(CommandOutcome.Result.APPLIED, client.ack(i).get(10, TimeUnit.SECONDS).result());
        }
        return waiting.isDone();
      });
      assertNotNull(waiting.get(1, TimeUnit.SECONDS));
      enqueued.add("late");
      // Everything that went through, each once; the refused item never.
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (QueueItem i : client.dequeue("capped", Map.of("t", 10), Duration.ofMillis(500)).get(10, TimeUnit.SECONDS)) {
          assertTrue(delivered.add(new String(i.payload(), StandardCharsets.UTF_8)), "delivered twice: " + i);
          assertEquals(CommandOutcome.Result.APPLIED, client.ack(i).get(10, TimeUnit.SECONDS).result());
        }
        return delivered.size() >= enqueued.size();
      });
      assertEquals(enqueued, delivered);
    }
  }

  // ---- helpers ----

  private static EnqueueRequest.Builder item(String namespace, String topic, int priority, String payload) {
    return EnqueueRequest.builder(namespace, topic, bytes(payload)).priority(priority);
  }

  /** Dequeues from a topic until {@code n} items came, or fails after 15 s; in priority order. */
  private static List<QueueItem> dequeueUntil(String namespace, String topic, int n) {
    List<QueueItem> got = new ArrayList<>();
    await().atMost(Duration.ofSeconds(15)).until(() -> {
      got.addAll(client.dequeue(namespace, Map.of(topic, n - got.size()), Duration.ofSeconds(1)).get(10, TimeUnit.SECONDS));
      return got.size() >= n;
    });
    got.sort(ORDER);
    return got;
  }

  private static void ackAll(List<QueueItem> items) throws Exception {
    for (QueueItem i : items) {
      assertEquals(CommandOutcome.Result.APPLIED, client.ack(i).get(10, TimeUnit.SECONDS).result(), "ack of " + i.id().toString());
    }
  }

  /** topic → [ready, delayed, leased]. */
  private static Map<String, List<Long>> counts(String namespace) throws Exception {
    Map<String, List<Long>> out = new HashMap<>();
    for (TopicActivity t : client.activeTopics(namespace).get(10, TimeUnit.SECONDS)) {
      out.put(t.topic(), List.of(t.ready(), t.delayed(), t.leased()));
    }
    return out;
  }

  /** Items on {@code deliveries} partition {@code partition} addressed to requesters starting with {@code prefix}. */
  private static int itemsDeliveredTo(String prefix, int partition) {
    TopicPartition tp = new TopicPartition(queue.topics.deliveries(), partition);
    java.util.Properties props = queue.kafka.clientProperties();
    props.put("isolation.level", "read_committed");
    int n = 0;
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      reader.assign(List.of(tp));
      reader.seekToBeginning(List.of(tp));
      long end = reader.endOffsets(List.of(tp)).get(tp);
      while (reader.position(tp) < end) {
        for (var r : reader.poll(Duration.ofMillis(200))) {
          dev.ordo.schema.Delivery d = OrdoSerdes.DELIVERY.decode(r.value());
          if (d.getRequesterId().startsWith(prefix)) {
            n += dev.ordo.api.Deliveries.items(d).size();
          }
        }
      }
    }
    return n;
  }

  private static Set<ItemId> ids(List<QueueItem> items) {
    Set<ItemId> ids = new HashSet<>();
    items.forEach(i -> ids.add(i.id()));
    return ids;
  }

  /** A group key that Kafka's murmur2 partitioning sends to {@code partition}. */
  static String keyFor(int partition) {
    for (int i = 0; ; i++) {
      String key = "k" + i;
      if (Utils.toPositive(Utils.murmur2(bytes(key))) % TestQueue.PARTITIONS == partition) {
        return key;
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(java.nio.ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return new String(out, StandardCharsets.UTF_8);
  }

  @Test
  void aDequeueServedInFullByThePartitionsItAskedSendsThemNoCancel(RealKafka kafka) throws Exception {
    List<ItemId> ids = producer.enqueueAll(List.of(
        item("served", "t", 0, "a").groupKey("one").build(),
        item("served", "t", 0, "b").groupKey("one").build(),
        item("served", "t", 0, "c").groupKey("one").build())).get(10, TimeUnit.SECONDS);
    int partition = ids.get(0).partition();
    await().atMost(Duration.ofSeconds(15)).until(() -> client.activeTopics("served").get().stream()
        .anyMatch(t -> t.topic().equals("t") && t.ready() == 3));
    List<QueueItem> got = client.dequeue("served", Map.of("t", 3), Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
    assertEquals(Set.copyOf(ids), ids(got), "the stats showed the three on one partition: one exact demand");
    ackAll(got);

    List<Demand> demands = new ArrayList<>();
    TopicPartition commands = new TopicPartition(queue.topics.commands(), partition);
    try (KafkaConsumer<byte[], byte[]> reader = new KafkaConsumer<>(kafka.clientProperties(),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      reader.assign(List.of(commands));
      reader.seekToBeginning(List.of(commands));
      long end = reader.endOffsets(List.of(commands)).get(commands);
      while (reader.position(commands) < end) {
        reader.poll(Duration.ofMillis(200)).forEach(r -> {
          if (OrdoSerdes.COMMAND.decode(r.value()).getBody() instanceof Demand d && d.getNamespace().equals("served")) {
            demands.add(d);
          }
        });
      }
    }
    assertEquals(1, demands.size(), "the demand, and no cancel of a demand the partition dropped once served: " + demands);
    Map<String, Integer> counts = new HashMap<>();
    demands.get(0).getTopics().forEach((k, v) -> counts.put(k.toString(), v));
    assertEquals(Map.of("t", 3), counts);
  }

  @Test
  void batchedAcksThatNobodyAnswersTravelAsOneCommandAndAllTimeOut(RealKafka kafka) throws Exception {
    ClusterTopics silent = new ClusterTopics("qc-silent");
    kafka.createTopics(TestQueue.PARTITIONS, silent.items(), silent.commands(), silent.deliveries(), silent.dlq(),
        silent.topicStats());
    kafka.createTopics(1, silent.namespaces());
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", kafka.bootstrapServers());
    config.put(QueueClientConfig.CLUSTER_CONFIG, silent.cluster()); // no queue runs for this cluster
    config.put(QueueClientConfig.REQUEST_TIMEOUT_CONFIG, 500L);
    config.put(QueueClientConfig.ACK_LINGER_CONFIG, 100L);
    try (QueueClient quiet = new QueueClient(config)) {
      List<CompletableFuture<Outcome>> acks = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        acks.add(quiet.ackBatched(delivered("0-" + i, "lease-" + i)));
      }
      for (CompletableFuture<Outcome> ack : acks) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> ack.get(10, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, e.getCause(), "unknown, not refused");
      }
    }
    TopicPartition p0 = new TopicPartition(silent.commands(), 0);
    List<Object> bodies = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(kafka.clientProperties(),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      reader.assign(List.of(p0));
      reader.seekToBeginning(List.of(p0));
      long end = reader.endOffsets(List.of(p0)).get(p0);
      while (reader.position(p0) < end) {
        reader.poll(Duration.ofMillis(200)).forEach(r -> bodies.add(OrdoSerdes.COMMAND.decode(r.value()).getBody()));
      }
    }
    assertEquals(1, bodies.size(), "one command for the three acks: " + bodies);
    Acks sent = assertInstanceOf(Acks.class, bodies.get(0));
    assertEquals(List.of("0-0", "0-1", "0-2"), sent.getAcks().stream().map(Ack::getItemId).toList());
  }

  private static DeliveredItem delivered(String id, String lease) {
    return DeliveredItem.newBuilder().setItemId(id).setLeaseId(lease).setNamespace("ns").setTopic("t").setPriority(0)
        .setAttempt(1).setPayload(ByteBuffer.wrap(new byte[0])).setEnqueuedAt(0).setLeaseExpiresAt(0)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE).build();
  }
}
