package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.QueueService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * A broker lost under load (issue 17): Ordo on 3 brokers and a separate controller, every topic with
 * replication 3 and min ISR 2 (Ordo's own and Kafka Streams' changelogs, which take the cluster's
 * defaults), two queue instances (one standby each), a paced {@link QueueProducer} and two
 * {@link LeaseConsumer}s that ack, retry with a delay (a nack) and dead-letter. Mid-way one broker is
 * stopped and started again, then another. Asserts:
 *
 * <ul>
 *   <li>nothing lost: every enqueued item was handled to the end (acked), or is on the dead-letter
 *       topic when its handler rejected it, and the queue holds nothing afterwards;</li>
 *   <li>no at-most-once item was handed to a handler twice;</li>
 *   <li>no delayed item was handed out before its due time, nor a nacked one before its retry delay
 *       had passed;</li>
 *   <li>the work went on with each broker down (items handled while it was stopped).</li>
 * </ul>
 *
 * It prints the longest pause in dispatch (between two consecutive handler starts while the producer
 * ran), without a timing assertion.
 */
@KafkaCluster(brokers = 3)
class BrokerLostUnderLoadTest {
  private static final String CLUSTER = "blq";
  private static final String NS = "load";
  private static final int PARTITIONS = 4;
  /** Items per second from the producer, paced. */
  private static final int RATE = 150;
  private static final long RETRY_DELAY_MS = 400;

  /** What the test knows of one item, from its payload: "i|amo|dueAtMs|kind". */
  private record Payload(int index, boolean atMostOnce, long dueAt, char kind) {
    static Payload parse(byte[] bytes) {
      String[] f = new String(bytes, StandardCharsets.UTF_8).split("\\|");
      return new Payload(Integer.parseInt(f[0]), f[1].equals("1"), Long.parseLong(f[2]), f[3].charAt(0));
    }

    byte[] bytes() {
      return (index + "|" + (atMostOnce ? 1 : 0) + "|" + dueAt + "|" + kind).getBytes(StandardCharsets.UTF_8);
    }
  }

  private final Map<String, Integer> starts = new ConcurrentHashMap<>();
  private final Set<String> handled = ConcurrentHashMap.newKeySet();
  private final Set<String> rejected = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> retryNotBefore = new ConcurrentHashMap<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<Long> startTimes = new ConcurrentLinkedQueue<>();

  @Test
  void nothingIsLostNorDoubledNorEarlyWhenBrokersStopAndStartUnderLoad(RealKafka kafka) throws Exception {
    ClusterTopics topics = new ClusterTopics(CLUSTER);
    kafka.createTopics(PARTITIONS, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats());
    kafka.createTopics(1, topics.namespaces());
    Path dir = Files.createTempDirectory("ordo-blq");
    List<Integer> brokerIds = new ArrayList<>(new TreeSet<>(kafka.brokers().keySet()));
    assertEquals(3, brokerIds.size());

    Set<String> atMostOnce = ConcurrentHashMap.newKeySet();
    Set<String> toReject = ConcurrentHashMap.newKeySet();
    Set<String> enqueued = ConcurrentHashMap.newKeySet();
    List<String> sendErrors = new CopyOnWriteArrayList<>();
    try (QueueService a = instance(kafka, dir.resolve("a"));
        QueueService b = instance(kafka, dir.resolve("b"));
        QueueProducer producer = new QueueProducer(Map.of("bootstrap.servers", kafka.bootstrapServers(),
            QueueProducerConfig.CLUSTER_CONFIG, CLUSTER));
        LeaseConsumer c1 = consumer(kafka);
        LeaseConsumer c2 = consumer(kafka)) {
      a.start();
      b.start();
      awaitTrue(Duration.ofSeconds(60), () -> a.isRunning() && b.isRunning(), () -> "both instances run");
      c1.start(this::handle);
      c2.start(this::handle);
      awaitTrue(Duration.ofSeconds(30), () -> c1.assignment().size() + c2.assignment().size() == PARTITIONS,
          () -> "the consumers own the deliveries partitions");
      assertReplicated(kafka);

      // A paced producer: RATE items a second until told to stop.
      AtomicBoolean producing = new AtomicBoolean(true);
      AtomicLong produced = new AtomicLong();
      Thread feeder = new Thread(() -> {
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; producing.get(); i++) {
          long due = (t0 + i * 1_000_000_000L / RATE - System.nanoTime()) / 1_000_000;
          if (due > 0) {
            try {
              Thread.sleep(due);
            } catch (InterruptedException e) {
              return;
            }
          }
          boolean amo = i % 10 == 3;
          boolean delayed = i % 5 == 1;
          char kind = i % 40 == 7 ? 'R' : i % 9 == 2 && !amo ? 'N' : 'A'; // reject, nack once, ack
          long dueAt = delayed ? System.currentTimeMillis() + 300 + (i % 7) * 300 : 0;
          EnqueueRequest.Builder r = EnqueueRequest.builder(NS, "t" + (i % 3),
                  new Payload(i, amo, dueAt, kind).bytes())
              .priority(i % 5).lease(Duration.ofSeconds(5)).maxAttempts(10);
          if (delayed) {
            r.deliverAfter(Instant.ofEpochMilli(dueAt));
          }
          if (amo) {
            r.atMostOnce();
          }
          pending.add(producer.enqueue(r.build()).handle((id, e) -> {
            if (e != null) {
              sendErrors.add(e.toString());
              return null;
            }
            String s = id.toString();
            if (amo) {
              atMostOnce.add(s);
            }
            if (kind == 'R') {
              toReject.add(s);
            }
            enqueued.add(s);
            return null;
          }));
          produced.incrementAndGet();
        }
        pending.forEach(CompletableFuture::join);
      }, "blq-producer");
      feeder.start();
      long loadStart = System.currentTimeMillis();

      List<String> phases = new ArrayList<>();
      try {
        awaitTrue(Duration.ofSeconds(60), () -> handled.size() >= 600, () -> "600 items handled before the first stop");
        for (int round = 0; round < 2; round++) {
          int victim = brokerIds.get(round);
          long stopAt = System.currentTimeMillis();
          kafka.stopBroker(victim);
          int handledAtStop = handled.size();
          long stoppedIn = System.currentTimeMillis() - stopAt;
          // The work goes on with the broker down.
          awaitTrue(Duration.ofSeconds(60), () -> handled.size() >= handledAtStop + 600,
              () -> "600 more items handled while broker " + victim + " was down (" + (handled.size() - handledAtStop) + ")");
          long startAt = System.currentTimeMillis();
          kafka.startBroker(victim);
          // Back in every in-sync replica set before the next broker goes.
          awaitTrue(Duration.ofSeconds(60), () -> fullyReplicated(kafka),
              () -> "broker " + victim + " rejoined every ISR");
          phases.add(String.format("broker %d stopped in %d ms, down %d ms (%d items handled meanwhile), back in all ISRs %d ms after its start",
              victim, stoppedIn, startAt - stopAt, handled.size() - handledAtStop, System.currentTimeMillis() - startAt));
        }
        awaitTrue(Duration.ofSeconds(30), () -> handled.size() >= 600 + 2 * 600 + 300,
            () -> "300 items handled after the brokers came back");
      } finally {
        producing.set(false);
        feeder.join(60_000);
      }
      long loadEnd = System.currentTimeMillis();
      assertEquals(List.of(), sendErrors, "enqueues failed");
      assertEquals(produced.get(), enqueued.size(), "every enqueue acknowledged by Kafka");

      // Drain: every at-least-once item handled to the end, or rejected (dead-lettered); an at-most-once
      // item handled once, or dropped by the queue (counted) when its one delivery was not worked on
      // (its lease ran out with the consumer, or the consumer gave it back unstarted); the queue then
      // holds nothing.
      Set<String> expectedHandled = new TreeSet<>(enqueued);
      expectedHandled.removeAll(toReject);
      expectedHandled.removeAll(atMostOnce);
      awaitTrue(Duration.ofSeconds(90), () -> handled.containsAll(expectedHandled) && rejected.containsAll(toReject),
          () -> {
            Set<String> missing = new TreeSet<>(expectedHandled);
            missing.removeAll(handled);
            return "at-least-once items never handled to the end: " + missing.size() + " "
                + missing.stream().limit(20).map(id -> id + " (handed out " + starts.getOrDefault(id, 0) + "x)").toList()
                + ", rejections missing: " + toReject.stream().filter(id -> !rejected.contains(id)).toList()
                + "; consumers " + c1.stats() + " " + c2.stats();
          });
      long amoNotHandled = atMostOnce.stream().filter(id -> !handled.contains(id)).count();
      long amoDropped = a.metrics().get(QueueMetrics.AT_MOST_ONCE_DROPPED) + b.metrics().get(QueueMetrics.AT_MOST_ONCE_DROPPED);
      // Each instance counts what it dropped itself, so a drop by a partition's earlier owner is counted
      // there; both instances run throughout, so every drop is counted once.
      assertTrue(amoNotHandled <= amoDropped, "every at-most-once item not handled was dropped by the queue, counted: "
          + amoNotHandled + " not handled, " + amoDropped + " dropped; consumers " + c1.stats() + " " + c2.stats());
      awaitTrue(Duration.ofSeconds(30), () -> c1.activeTopics(NS).get(10, TimeUnit.SECONDS).stream()
          .allMatch(t -> t.ready() + t.delayed() + t.leased() + t.parked() == 0), () -> "the queue is empty");
      Map<String, DeadLetter> dead = deadLetters(kafka, topics);
      for (String id : toReject) {
        DeadLetter d = dead.get(id);
        assertTrue(d != null && d.getReason() == DeadLetterReason.REJECTED, "rejected item " + id + " dead-lettered: " + d);
      }
      assertEquals(toReject, Set.copyOf(dead.keySet()), "only the rejected items are dead letters");

      assertEquals(List.of(), violations, "at-most-once items handed out twice, or items handed out early");
      long amoOut = atMostOnce.stream().filter(starts::containsKey).count();
      assertTrue(amoOut > 0 && retryNotBefore.size() > 0, "at-most-once and retried items were part of the load");

      List<Long> times = new ArrayList<>(startTimes);
      times.sort(null);
      long longest = 0;
      long longestAt = 0;
      for (int i = 1; i < times.size(); i++) {
        if (times.get(i) <= loadEnd && times.get(i) - times.get(i - 1) > longest) {
          longest = times.get(i) - times.get(i - 1);
          longestAt = times.get(i - 1);
        }
      }
      System.out.printf("BrokerLostUnderLoadTest: %d items enqueued in %d ms (%d at-most-once, %d of them not handled"
              + " and dropped; %d rejected, %d retried); %s; consumers %s %s; longest pause in dispatch %d ms"
              + " (from %d ms into the load)%n",
          enqueued.size(), loadEnd - loadStart, atMostOnce.size(), amoNotHandled, toReject.size(), retryNotBefore.size(),
          String.join("; ", phases), c1.stats(), c2.stats(), longest, longestAt - loadStart);
    }
  }

  /** The handler: checks the timing rules, then acks, nacks once with a delay, or rejects. */
  private void handle(LeasedItem item) throws Exception {
    long now = System.currentTimeMillis();
    startTimes.add(now);
    String id = item.id().toString();
    Payload p = Payload.parse(item.payload());
    int n = starts.merge(id, 1, Integer::sum);
    if (p.atMostOnce() && n > 1) {
      violations.add("at-most-once item " + id + " handed out " + n + " times");
    }
    if (p.dueAt() > 0 && now < p.dueAt()) {
      violations.add("item " + id + " handed out " + (p.dueAt() - now) + " ms before its due time");
    }
    Long notBefore = retryNotBefore.get(id);
    if (notBefore != null && now < notBefore) {
      violations.add("item " + id + " retried " + (notBefore - now) + " ms before its retry delay passed");
    }
    if (p.kind() == 'R') {
      rejected.add(id);
      throw new DeadLetterNow("rejected by the test");
    }
    if (p.kind() == 'N' && item.attempt() == 1 && !retryNotBefore.containsKey(id)) {
      retryNotBefore.put(id, System.currentTimeMillis() + RETRY_DELAY_MS);
      throw new RetryLater(Duration.ofMillis(RETRY_DELAY_MS), "once");
    }
    handled.add(id);
  }

  private static QueueService instance(RealKafka kafka, Path stateDir) {
    return new QueueService(
        Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            StreamsConfig.STATE_DIR_CONFIG, stateDir.toString(),
            StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1),
        Map.of(QueueConfig.CLUSTER_CONFIG, CLUSTER, QueueConfig.STATS_MS_CONFIG, 200L), PARTITIONS);
  }

  private static LeaseConsumer consumer(RealKafka kafka) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueClientConfig.CLUSTER_CONFIG, CLUSTER);
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, "blq-workers");
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, NS);
    c.put(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 64);
    c.put("consumer." + ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
    c.put("consumer." + ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    return new LeaseConsumer(c);
  }

  /** Every topic of the Ordo cluster (its own and Kafka Streams') has replication 3 and min ISR 2. */
  private static void assertReplicated(RealKafka kafka) throws Exception {
    try (Admin admin = kafka.admin()) {
      Set<String> names = new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
      names.removeIf(n -> !n.startsWith(CLUSTER + ".") && !n.startsWith(CLUSTER + "-")); // ours, and Kafka Streams' (blq-queue-...)
      assertTrue(names.stream().anyMatch(n -> n.endsWith("-changelog")), "changelogs exist: " + names);
      Map<String, TopicDescription> d = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
      Map<ConfigResource, Config> configs = admin.describeConfigs(names.stream()
          .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList()).all().get(30, TimeUnit.SECONDS);
      for (String n : names) {
        d.get(n).partitions().forEach(p -> assertEquals(3, p.replicas().size(), n + " replication"));
        assertEquals("2", configs.get(new ConfigResource(ConfigResource.Type.TOPIC, n)).get("min.insync.replicas").value(),
            n + " min.insync.replicas");
      }
    }
  }

  /** True when every partition of the Ordo cluster's topics has all 3 replicas in sync. */
  private static boolean fullyReplicated(RealKafka kafka) {
    try (Admin admin = kafka.admin()) {
      Set<String> names = new TreeSet<>(admin.listTopics().names().get(10, TimeUnit.SECONDS));
      names.removeIf(n -> !n.startsWith(CLUSTER + ".") && !n.startsWith(CLUSTER + "-") && !n.startsWith("__"));
      return admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS).values().stream()
          .flatMap(t -> t.partitions().stream()).allMatch(p -> p.isr().size() == 3);
    } catch (Exception e) {
      return false;
    }
  }

  private static Map<String, DeadLetter> deadLetters(RealKafka kafka, ClusterTopics topics) {
    Properties props = kafka.clientProperties();
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, DeadLetter> out = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        parts.add(new TopicPartition(topics.dlq(), p));
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long deadline = System.currentTimeMillis() + 30_000;
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          DeadLetter d = OrdoSerdes.DEAD_LETTER.decode(r.value());
          out.put(d.getItemId(), d);
        }
      }
    }
    return out;
  }

  @FunctionalInterface
  private interface Check {
    boolean holds() throws Exception;
  }

  /** Waits (Awaitility, polled every 100 ms) until {@code check} holds, failing with {@code what} after {@code max}. */
  private static void awaitTrue(Duration max, Check check, java.util.function.Supplier<String> what) {
    try {
      org.awaitility.Awaitility.await().atMost(max).pollInterval(Duration.ofMillis(100)).until(check::holds);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("not within " + max.toSeconds() + " s: " + what.get(), e);
    }
  }
}
