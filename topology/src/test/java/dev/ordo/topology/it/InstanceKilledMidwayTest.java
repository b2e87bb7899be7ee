package dev.ordo.topology.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.QueueService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * Two Ordo instances share 4 partitions; one is killed with SIGKILL (its JVM, mid-transaction)
 * while 10,000 items are consumed and acked through the survivor. Without standbys, so that the
 * victim holds active tasks when it dies (with a standby of every task on the survivor the assignor
 * may leave it none, and the kill would test nothing) and the survivor takes them over from the
 * changelog. Every at-least-once item must
 * be acked, none lost; no at-most-once item may be delivered twice.
 */
@KafkaCluster
class InstanceKilledMidwayTest {
  private static final int PARTITIONS = 4;
  private static final int ITEMS = 10_000;
  private ClusterTopics topics = new ClusterTopics("crash");

  @Test
  void everyItemIsAckedAndNoAtMostOnceItemIsSeenTwiceWhenAnInstanceIsKilled(RealKafka kafka) throws Exception {
    kafka.createTopics(PARTITIONS, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats());
    kafka.createTopics(1, topics.namespaces());
    Path dir = Files.createTempDirectory("ordo-crash");

    // No standbys: the survivor takes the victim's partitions over from their state logs' changelogs and
    // the items topic (with a standby of every task on the survivor, the assignor may leave the victim
    // without active tasks, and the kill would take nothing over).
    Process victim = startInstanceProcess(kafka.bootstrapServers(), dir.resolve("victim"), "crash", 0);
    try (QueueService survivor = new QueueService(
            Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                StreamsConfig.STATE_DIR_CONFIG, dir.resolve("survivor").toString(),
                StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 0),
            Map.of(QueueConfig.CLUSTER_CONFIG, "crash"), PARTITIONS);
        KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      survivor.start();

      Set<String> atLeastOnce = ConcurrentHashMap.newKeySet();
      Set<String> atMostOnce = ConcurrentHashMap.newKeySet();
      List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
      List<Boolean> amo = new ArrayList<>();
      for (int i = 0; i < ITEMS; i++) {
        boolean isAmo = i % 10 == 0;
        Item item = Item.newBuilder().setNamespace("ns").setTopic("t" + (i % 3)).setPriority(i % 7)
            .setPayload(ByteBuffer.wrap(("item-" + i).getBytes(StandardCharsets.UTF_8)))
            .setLeaseDurationMs(5_000L)
            .setMaxAttempts(100)
            .setDeliverySemantics(isAmo ? DeliverySemantics.AT_MOST_ONCE : DeliverySemantics.AT_LEAST_ONCE)
            .build();
        sends.add(producer.send(new ProducerRecord<>(topics.items(), i % PARTITIONS, null, OrdoSerdes.ITEM.encode(item))));
        amo.add(isAmo);
      }
      for (int i = 0; i < ITEMS; i++) {
        RecordMetadata m = sends.get(i).get(30, TimeUnit.SECONDS);
        (amo.get(i) ? atMostOnce : atLeastOnce).add(m.partition() + "-" + m.offset());
      }

      try (AckingClient client = new AckingClient(kafka, producer)) {
        client.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> client.acked.size() >= 3_000);
        victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        int ackedAtKill = client.acked.size();

        await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
            .until(() -> client.acked.containsAll(atLeastOnce));
        assertTrue(ackedAtKill < ITEMS - atMostOnce.size(), "the kill happened mid-way (" + ackedAtKill + " acked)");
        assertEquals(List.of(), client.duplicateAtMostOnce, "at-most-once items delivered twice");
        // The partitions taken over had their item tables rebuilt from their state logs and the items
        // topic (decisions D54), and no item was missing from the items topic.
        assertTrue(survivor.metrics().get(QueueMetrics.ITEM_TABLE_REBUILDS) >= 1
                && survivor.metrics().get(QueueMetrics.ITEMS_LOST) == 0,
            "the survivor rebuilt the item tables of the partitions it took over, losing nothing: "
                + survivor.metrics().get(QueueMetrics.ITEM_TABLE_REBUILDS) + " tables, "
                + survivor.metrics().get(QueueMetrics.ITEMS_LOST) + " items lost; the victim's last lines:\n"
                + String.join("\n", victimLog));
        for (String id : client.delivered.keySet()) {
          assertTrue(atLeastOnce.contains(id) || atMostOnce.contains(id), "delivered an item never enqueued: " + id);
        }
        long amoDelivered = atMostOnce.stream().filter(client.delivered::containsKey).count();
        System.out.printf("killed after %d acks; all %d at-least-once acked; %d of %d at-most-once delivered once%n",
            ackedAtKill, atLeastOnce.size(), amoDelivered, atMostOnce.size());
      }
    } finally {
      victim.destroyForcibly();
    }
  }

  /**
   * Items wait in OVERFLOW under a namespace's admission rate (1,500 items at 150/s) when one of two
   * instances is killed: the survivor takes over its partitions' overflow from the changelog and
   * admits it all; every item is acked, and none is delivered twice unless it was already out when
   * the instance died.
   */
  @Test
  void itemsInOverflowAreAllAdmittedAfterTheirInstanceIsKilled(RealKafka kafka) throws Exception {
    topics = new ClusterTopics("crash-overflow");
    int items = 1_500;
    kafka.createTopics(PARTITIONS, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats());
    kafka.createTopics(1, topics.namespaces());
    Path dir = Files.createTempDirectory("ordo-crash-overflow");
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      producer.send(new ProducerRecord<>(topics.namespaces(), "ns".getBytes(StandardCharsets.UTF_8),
          OrdoSerdes.NAMESPACE_POLICY.encode(dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace("ns")
              .setAdmissionRate(new dev.ordo.schema.Rate(150.0, 10L)).setUpdatedAt(System.currentTimeMillis()).build())))
          .get(30, TimeUnit.SECONDS);
      Process victim = startInstanceProcess(kafka.bootstrapServers(), dir.resolve("victim"), "crash-overflow");
      try (QueueService survivor = new QueueService(
          Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
              StreamsConfig.STATE_DIR_CONFIG, dir.resolve("survivor").toString(),
              StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 0),
          Map.of(QueueConfig.CLUSTER_CONFIG, "crash-overflow"), PARTITIONS)) {
        survivor.start();
        Set<String> enqueued = ConcurrentHashMap.newKeySet();
        List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
        for (int i = 0; i < items; i++) {
          Item item = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(0)
              .setPayload(ByteBuffer.wrap(("item-" + i).getBytes(StandardCharsets.UTF_8)))
              .setLeaseDurationMs(5_000L).setMaxAttempts(100).build();
          sends.add(producer.send(new ProducerRecord<>(topics.items(), i % PARTITIONS, null, OrdoSerdes.ITEM.encode(item))));
        }
        for (java.util.concurrent.Future<RecordMetadata> f : sends) {
          RecordMetadata m = f.get(30, TimeUnit.SECONDS);
          enqueued.add(m.partition() + "-" + m.offset());
        }
        try (AckingClient client = new AckingClient(kafka, producer)) {
          client.start();
          await().atMost(Duration.ofSeconds(60)).until(() -> client.acked.size() >= 100);
          victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          long killedAt = System.currentTimeMillis();
          // At 150/s (600/s at most while the partitions learn their shares) most wait at the kill.
          int outAtKill = client.delivered.size();
          assertTrue(outAtKill < items - 200, "items still waited in OVERFLOW at the kill: "
              + outAtKill + " of " + items + " delivered");

          await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
              .until(() -> client.acked.containsAll(enqueued));
          for (Map.Entry<String, Integer> e : client.delivered.entrySet()) {
            assertTrue(enqueued.contains(e.getKey()), "delivered an item never enqueued: " + e.getKey());
            // An item leased before the kill may come again (its lease ran out while the survivor took
            // over); one first leased after it was in OVERFLOW or READY at the kill: exactly once.
            long firstLeasedAt = client.firstLeasedAt.get(e.getKey());
            assertTrue(e.getValue() == 1 || firstLeasedAt <= killedAt || client.leasesRanOut(e.getKey()),
                "item " + e.getKey() + " delivered " + e.getValue() + " times, though it waited in OVERFLOW at the kill: "
                    + client.log.get(e.getKey()) + ", killed at " + killedAt % 100_000);
          }
          assertTrue(survivor.metrics().get(QueueMetrics.ADMITTED) > 0, "the survivor admitted overflow");
          System.out.printf("overflow failover: %d items, %d delivered at the kill, all acked; survivor admitted %d%n",
              items, outAtKill, survivor.metrics().get(QueueMetrics.ADMITTED));
        }
      } finally {
        victim.destroyForcibly();
      }
    }
  }

  /**
   * Six groups under a limit of 2 leased items each, over two instances, one killed mid-way: the
   * leased counts are restored with the killed instance's partitions (derived from the items'
   * states), so no group ever has more than 2 items out, before, across or after the failover, and
   * every item is acked.
   */
  @Test
  void groupConcurrencyLimitsHoldAcrossAFailover(RealKafka kafka) throws Exception {
    topics = new ClusterTopics("crash-groups");
    int items = 1_200;
    int limit = 2;
    kafka.createTopics(PARTITIONS, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats());
    kafka.createTopics(1, topics.namespaces());
    Path dir = Files.createTempDirectory("ordo-crash-groups");
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      producer.send(new ProducerRecord<>(topics.namespaces(), "ns".getBytes(StandardCharsets.UTF_8),
          OrdoSerdes.NAMESPACE_POLICY.encode(dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace("ns")
              .setGroupConcurrency(limit).setUpdatedAt(System.currentTimeMillis()).build())))
          .get(30, TimeUnit.SECONDS);
      Process victim = startInstanceProcess(kafka.bootstrapServers(), dir.resolve("victim"), "crash-groups");
      try (QueueService survivor = new QueueService(
          Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
              StreamsConfig.STATE_DIR_CONFIG, dir.resolve("survivor").toString(),
              StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 0),
          Map.of(QueueConfig.CLUSTER_CONFIG, "crash-groups"), PARTITIONS)) {
        survivor.start();
        Set<String> enqueued = ConcurrentHashMap.newKeySet();
        List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
        for (int i = 0; i < items; i++) {
          String group = "g" + (i % 6);
          // Long leases: none runs out during the failover, so a group's leases end only by acks.
          Item item = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(0).setGroupKey(group)
              .setPayload(ByteBuffer.wrap(("item-" + i).getBytes(StandardCharsets.UTF_8)))
              .setLeaseDurationMs(120_000L).setMaxAttempts(100).build();
          sends.add(producer.send(new ProducerRecord<>(topics.items(), group.getBytes(StandardCharsets.UTF_8),
              OrdoSerdes.ITEM.encode(item))));
        }
        for (java.util.concurrent.Future<RecordMetadata> f : sends) {
          RecordMetadata m = f.get(30, TimeUnit.SECONDS);
          enqueued.add(m.partition() + "-" + m.offset());
        }
        try (AckingClient client = new AckingClient(kafka, producer)) {
          client.start();
          await().atMost(Duration.ofSeconds(60)).until(() -> client.acked.size() >= 300);
          victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          int ackedAtKill = client.acked.size();
          await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
              .until(() -> client.acked.containsAll(enqueued));
          assertTrue(ackedAtKill < items - 200, "the kill happened mid-way (" + ackedAtKill + " acked)");
          assertEquals(List.of(), client.overLimit, "a group had more than " + limit + " items out at once");
          assertEquals(limit, client.maxOutstanding.values().stream().mapToInt(Integer::intValue).max().orElse(0),
              "the limit was reached (so it was what held the groups back): " + client.maxOutstanding);
          assertTrue(survivor.metrics().get(QueueMetrics.GROUP_LIMITED) > 0, "the survivor passed over groups at their limit");
          System.out.printf("group limits across a failover: %d items of 6 groups, killed after %d acks, all acked,"
              + " most out at once per group %s%n", items, ackedAtKill, client.maxOutstanding);
        }
      } finally {
        victim.destroyForcibly();
      }
    }
  }

  /** The last lines the victim printed, for a failure's message. */
  private final List<String> victimLog = new java.util.concurrent.CopyOnWriteArrayList<>();

  private Process startInstanceProcess(String bootstrap, Path stateDir, String cluster) throws Exception {
    return startInstanceProcess(bootstrap, stateDir, cluster, 0);
  }

  private Process startInstanceProcess(String bootstrap, Path stateDir, String cluster, int standbys) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // C1 and the serial collector: a short-lived instance beside the test's broker on 2 cores (decisions D69).
    Process p = new ProcessBuilder(java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), QueueInstanceMain.class.getName(), bootstrap, stateDir.toString(),
        String.valueOf(PARTITIONS), cluster, String.valueOf(standbys))
        .redirectErrorStream(true)
        .start();
    CountDownLatch started = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          victimLog.add(line);
          if (victimLog.size() > 200) {
            victimLog.remove(0);
          }
          if (line.contains("STARTED")) {
            started.countDown();
          }
        }
      } catch (Exception ignored) {
        // the process was killed
      }
    }, "victim-output");
    reader.setDaemon(true);
    reader.start();
    assertTrue(started.await(60, TimeUnit.SECONDS), "the victim instance did not start");
    return p;
  }

  private static KafkaProducer<byte[], byte[]> producer(RealKafka kafka) {
    Properties props = kafka.clientProperties();
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Demands from every partition, acks what it gets, and records what it saw. */
  private final class AckingClient implements AutoCloseable {
    final Map<String, Integer> delivered = new ConcurrentHashMap<>();
    final Set<String> acked = ConcurrentHashMap.newKeySet();
    final List<String> duplicateAtMostOnce = new java.util.concurrent.CopyOnWriteArrayList<>();
    final Map<String, List<String>> log = new ConcurrentHashMap<>();
    final Map<String, Long> firstLeasedAt = new ConcurrentHashMap<>();
    /** Per item, the expiry of each lease it was delivered with, in order. */
    final Map<String, List<Long>> leaseExpiries = new ConcurrentHashMap<>();
    /** Per group key, the items delivered whose ack has not been answered yet; and the most there were. */
    final Map<String, Set<String>> outstanding = new ConcurrentHashMap<>();
    final Map<String, Integer> maxOutstanding = new ConcurrentHashMap<>();
    final List<String> overLimit = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<String, String> groupOf = new ConcurrentHashMap<>();
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger rounds = new AtomicInteger();
    private Thread thread;

    AckingClient(RealKafka kafka, KafkaProducer<byte[], byte[]> producer) {
      this.producer = producer;
      Properties props = kafka.clientProperties();
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      List<TopicPartition> parts = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        parts.add(new TopicPartition(topics.deliveries(), p));
      }
      consumer.assign(parts);
    }

    /**
     * True when each of the item's deliveries after the first came once the one before had run out
     * (its lease started at or after the previous lease's expiry): a client too slow to ack in time,
     * the at-least-once re-delivery.
     */
    boolean leasesRanOut(String itemId) {
      List<Long> expiries = leaseExpiries.getOrDefault(itemId, List.of());
      for (int i = 1; i < expiries.size(); i++) {
        if (expiries.get(i) - 5_000 < expiries.get(i - 1)) {
          return false;
        }
      }
      return true;
    }

    void start() {
      thread = new Thread(this::run, "acking-client");
      thread.start();
    }

    private void run() {
      long nextDemand = 0;
      while (running.get()) {
        long now = System.currentTimeMillis();
        if (now >= nextDemand) {
          for (int p = 0; p < PARTITIONS; p++) {
            Map<String, Integer> want = new HashMap<>();
            want.put("*", 500);
            Command demand = new Command(new Requester("tester", p), now, new Demand("ns", want, 2_000L, true, false, false, -1L, 0L), false, null);
            producer.send(new ProducerRecord<>(topics.commands(), p, null, OrdoSerdes.COMMAND.encode(demand)));
          }
          nextDemand = now + 300;
          rounds.incrementAndGet();
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
          Delivery d = OrdoSerdes.DELIVERY.decode(r.value());
          for (DeliveredItem item : dev.ordo.api.Deliveries.items(d)) {
            Integer before = delivered.merge(item.getItemId(), 1, Integer::sum) - 1;
            // The lease's start, on the queue's clock (this machine's): its expiry less the item's lease.
            firstLeasedAt.putIfAbsent(item.getItemId(), item.getLeaseExpiresAt() - 5_000);
            leaseExpiries.computeIfAbsent(item.getItemId(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(item.getLeaseExpiresAt());
            log.computeIfAbsent(item.getItemId(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(System.currentTimeMillis() % 100_000 + " leased attempt " + item.getAttempt() + " " + item.getLeaseId());
            if (item.getGroupKey() != null) {
              groupOf.put(item.getItemId(), item.getGroupKey());
              Set<String> out = outstanding.computeIfAbsent(item.getGroupKey(), k -> ConcurrentHashMap.newKeySet());
              out.add(item.getItemId());
              maxOutstanding.merge(item.getGroupKey(), out.size(), Math::max);
              if (out.size() > 2) {
                overLimit.add(item.getGroupKey() + " had " + out + " out");
              }
            }
            if (before > 0 && item.getSemantics() == DeliverySemantics.AT_MOST_ONCE) {
              duplicateAtMostOnce.add(item.getItemId());
            }
            int partition = Integer.parseInt(item.getItemId().substring(0, item.getItemId().indexOf('-')));
            Command ack = new Command(new Requester("tester", partition), now, new Ack(item.getItemId(), item.getLeaseId()), false, null);
            producer.send(new ProducerRecord<>(topics.commands(), partition, null, OrdoSerdes.COMMAND.encode(ack)));
          }
          if (d.getBody() instanceof Outcome o) {
            log.computeIfAbsent(o.getItemId(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(System.currentTimeMillis() % 100_000 + " " + o.getCommand() + " " + o.getResult() + " " + o.getDetail());
          }
          if (d.getBody() instanceof Outcome o && o.getResult() == OutcomeResult.APPLIED) {
            acked.add(o.getItemId());
          }
          if (d.getBody() instanceof Outcome o && groupOf.containsKey(o.getItemId())) {
            outstanding.get(groupOf.get(o.getItemId())).remove(o.getItemId()); // its lease is over either way
          }
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      if (thread != null) {
        thread.join(10_000);
      }
      consumer.close();
    }
  }
}
