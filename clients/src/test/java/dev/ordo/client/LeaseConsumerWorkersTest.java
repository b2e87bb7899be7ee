package dev.ordo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A LeaseConsumer with fewer worker threads than items in flight ({@code ordo.consumer.workers}):
 * leased items wait for a worker, keep their leases meanwhile, and go back at close if they never ran.
 */
@KafkaCluster
class LeaseConsumerWorkersTest extends LeaseConsumerTestBase {
  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    startQueue(kafka, "lcw");
  }

  @Test
  void itemsBeyondTheWorkersWaitForOneKeepTheirLeasesAndAreEachAckedOnce() throws Exception {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    Set<ItemId> handled = ConcurrentHashMap.newKeySet();
    AtomicInteger runs = new AtomicInteger();
    LeaseConsumer c = consumer("few-workers", "few", Map.of(
        LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 12,
        LeaseConsumerConfig.WORKERS_CONFIG, 2));
    c.start(item -> {
      int now = running.incrementAndGet();
      try {
        mostAtOnce.accumulateAndGet(now, Math::max);
        Thread.sleep(300); // 6 rounds of 2: the last items wait longer than their 1 s lease
        handled.add(item.id());
        runs.incrementAndGet();
      } finally {
        running.decrementAndGet();
      }
    });
    awaitAssigned(c);
    Set<ItemId> ids = enqueue("few", 12, i -> item("few", "w" + i).lease(Duration.ofSeconds(1))
        .groupKey(QueueClientTest.keyFor(i % TestQueue.PARTITIONS)));

    await().atMost(Duration.ofSeconds(30)).until(() -> c.stats().acked() == ids.size());
    assertEquals(ids, handled);
    assertEquals(ids.size(), runs.get(), "every item ran once");
    assertTrue(mostAtOnce.get() <= 2, "at most 2 handlers at once, saw " + mostAtOnce.get());
    assertEquals(0, c.stats().leaseLost());
    assertEquals(0, c.stats().ackRefused());
    assertTrue(c.stats().heartbeats() > 0, "waiting items were heartbeated");
  }

  /**
   * Items that only wait for the worker shrink the window (decisions D41): with one worker and a
   * handler of 10 ms, a window of 100 holds up to a second of waiting; the consumer asks for fewer
   * while a backlog remains, every item still runs once, and with the target at 0 the window stays.
   */
  @Test
  void itemsThatOnlyWaitForAWorkerShrinkTheWindowWhileNoneIsLost() throws Exception {
    int n = 400;
    LeaseConsumer c = consumer("narrowing", "narrow", Map.of(
        LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 100,
        LeaseConsumerConfig.WORKERS_CONFIG, 1,
        LeaseConsumerConfig.QUEUEING_TARGET_CONFIG, 25L));
    Set<ItemId> handled = ConcurrentHashMap.newKeySet();
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger waitingAtThreeQuarters = new AtomicInteger(-1);
    AtomicInteger smallestWindow = new AtomicInteger(Integer.MAX_VALUE);
    c.start(item -> {
      int run = runs.incrementAndGet();
      smallestWindow.accumulateAndGet(c.window(), Math::min);
      if (run == n * 3 / 4) {
        waitingAtThreeQuarters.set((int) (c.stats().delivered() - run)); // leased to it, not started yet
      }
      Thread.sleep(10);
      handled.add(item.id());
    });
    awaitAssigned(c);
    Set<ItemId> ids = enqueue("narrow", n, i -> item("narrow", "q" + i)
        .groupKey(QueueClientTest.keyFor(i % TestQueue.PARTITIONS)));

    await().atMost(Duration.ofSeconds(60)).until(() -> c.stats().acked() == ids.size());
    assertEquals(ids, handled);
    assertEquals(ids.size(), runs.get(), "every item ran once");
    assertTrue(smallestWindow.get() < 100, "the window shrank: " + smallestWindow.get());
    assertTrue(waitingAtThreeQuarters.get() < 90,
        "with a quarter of the items still queued, " + waitingAtThreeQuarters.get() + " waited on the consumer");
    c.close();

    LeaseConsumer fixed = consumer("fixed-window", "narrow", Map.of(
        LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 100,
        LeaseConsumerConfig.WORKERS_CONFIG, 1,
        LeaseConsumerConfig.QUEUEING_TARGET_CONFIG, 0L));
    AtomicInteger fixedSmallest = new AtomicInteger(Integer.MAX_VALUE);
    fixed.start(item -> {
      fixedSmallest.accumulateAndGet(fixed.window(), Math::min);
      Thread.sleep(10);
    });
    awaitAssigned(fixed);
    enqueue("narrow", 200, i -> item("narrow", "f" + i).groupKey(QueueClientTest.keyFor(i % TestQueue.PARTITIONS)));
    await().atMost(Duration.ofSeconds(60)).until(() -> fixed.stats().acked() == 200);
    assertEquals(100, fixedSmallest.get(), "a target of 0 keeps max.in.flight");
    fixed.close();
  }

  @Test
  void acksToOnePartitionTravelTogetherAsOneCommand() throws Exception {
    long from = commandsEnd();
    LeaseConsumer c = consumer("batched-acks", "batched", Map.of(
        LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 200,
        LeaseConsumerConfig.WORKERS_CONFIG, 4,
        QueueClientConfig.ACK_LINGER_CONFIG, 200L));
    c.start(item -> { });
    awaitAssigned(c);
    Set<ItemId> ids = enqueue("batched", 100, i -> item("batched", "b" + i).groupKey(QueueClientTest.keyFor(0)));
    await().atMost(Duration.ofSeconds(30)).until(() -> c.stats().acked() == ids.size());
    assertEquals(0, c.stats().ackRefused());

    java.util.List<String> acked = new java.util.ArrayList<>();
    int ackCommands = 0;
    for (dev.ordo.schema.Command command : commandsSince(from)) {
      if (command.getBody() instanceof dev.ordo.schema.Acks acks) {
        ackCommands++;
        acks.getAcks().forEach(a -> acked.add(a.getItemId()));
      } else if (command.getBody() instanceof dev.ordo.schema.Ack a) {
        ackCommands++;
        acked.add(a.getItemId());
      }
    }
    assertEquals(ids.stream().map(ItemId::toString).sorted().toList(), acked.stream().sorted().toList(),
        "every item acked once");
    assertTrue(ackCommands <= ids.size() / 2, ids.size() + " acks travelled in " + ackCommands + " commands");
  }

  /**
   * A consumer pipelines: nobody waits on the answer to its demands, acks, heartbeats or the nacks of
   * failed handlers, so none of them may ask the queue for an immediate commit (decisions D19: asked
   * for every answer, a lease consumer's commands made the stream thread commit every few ms).
   */
  @Test
  void aConsumersOwnCommandsNeverAskTheQueueToCommitAtOnce() throws Exception {
    long from = commandsEnd();
    LeaseConsumer c = consumer("not-urgent", "calm", Map.of(LeaseConsumerConfig.WORKERS_CONFIG, 2));
    c.start(item -> {
      if (item.attempt() == 1) {
        throw new RetryLater(Duration.ofMillis(50), "first attempt fails");
      }
    });
    awaitAssigned(c);
    Set<ItemId> ids = enqueue("calm", 10, i -> item("calm", "n" + i).groupKey(QueueClientTest.keyFor(0)));
    await().atMost(Duration.ofSeconds(30)).until(() -> c.stats().acked() == ids.size());
    assertEquals(ids.size(), c.stats().nacked());

    Map<String, Integer> byKind = new java.util.TreeMap<>();
    java.util.List<String> urgent = new java.util.ArrayList<>();
    for (dev.ordo.schema.Command command : commandsSince(from)) {
      String kind = command.getBody().getClass().getSimpleName();
      byKind.merge(kind, 1, Integer::sum);
      if (command.getUrgent()) {
        urgent.add(kind + " sent at " + command.getSentAt());
      }
    }
    assertTrue(byKind.getOrDefault("Nack", 0) >= ids.size(), "the handlers' nacks are on partition 0: " + byKind);
    assertTrue(byKind.containsKey("Demand"), "and the consumer's demands: " + byKind);
    assertEquals(java.util.List.of(), urgent, "commands that asked for an immediate commit, of " + byKind);
  }

  /** Partition 0 of the queue's commands topic (the queue starts before each test class). */
  private static org.apache.kafka.common.TopicPartition commands0() {
    return new org.apache.kafka.common.TopicPartition(queue.topics.commands(), 0);
  }

  /** The end of partition 0 of the commands topic: where the commands a test sends from now on start. */
  private static long commandsEnd() {
    try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> reader = reader()) {
      return reader.endOffsets(java.util.List.of(commands0())).get(commands0());
    }
  }

  /** The commands on partition 0 of the commands topic from offset {@code from} to its end now. */
  private static java.util.List<dev.ordo.schema.Command> commandsSince(long from) {
    java.util.List<dev.ordo.schema.Command> commands = new java.util.ArrayList<>();
    try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> reader = reader()) {
      org.apache.kafka.common.TopicPartition p0 = commands0();
      reader.assign(java.util.List.of(p0));
      reader.seek(p0, from);
      long end = reader.endOffsets(java.util.List.of(p0)).get(p0);
      while (reader.position(p0) < end) {
        for (var r : reader.poll(Duration.ofMillis(200))) {
          commands.add(dev.ordo.serde.OrdoSerdes.COMMAND.decode(r.value()));
        }
      }
    }
    return commands;
  }

  private static org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> reader() {
    return new org.apache.kafka.clients.consumer.KafkaConsumer<>(queue.kafka.clientProperties(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer());
  }

  @Test
  void closeReleasesTheItemsStillWaitingForAWorker() throws Exception {
    CountDownLatch blocked = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    LeaseConsumer c = consumer("closing-workers", "closing", Map.of(
        LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 8,
        LeaseConsumerConfig.WORKERS_CONFIG, 1,
        LeaseConsumerConfig.CLOSE_GRACE_CONFIG, 200L));
    c.start(item -> {
      started.incrementAndGet();
      blocked.await();
    });
    awaitAssigned(c);
    Set<ItemId> ids = enqueue("closing", 8, i -> item("closing", "c" + i)
        .groupKey(QueueClientTest.keyFor(i % TestQueue.PARTITIONS)));
    await().atMost(Duration.ofSeconds(20)).until(() -> c.stats().delivered() == ids.size());

    c.close(Duration.ofMillis(200));

    assertEquals(1, started.get(), "only the one worker's item ran");
    assertEquals(ids.size(), c.stats().released(), "the waiting items and the interrupted one went back");
    try (QueueClient client = new QueueClient(queue.clientConfig())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> client.activeTopics("closing").get().stream()
          .mapToLong(TopicActivity::ready).sum() == ids.size());
    }
  }
}
