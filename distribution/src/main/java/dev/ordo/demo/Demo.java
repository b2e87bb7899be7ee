package dev.ordo.demo;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.LeasedItem;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.client.RetryLater;
import dev.ordo.demo.DemoPlan.Behaviour;
import dev.ordo.demo.DemoPlan.Planned;
import dev.ordo.demo.DemoReport.DeadLetterInfo;
import dev.ordo.demo.DemoReport.ItemResult;
import dev.ordo.demo.DemoReport.Outcome;
import dev.ordo.schema.DeadLetter;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Runs the demo workload ({@link DemoPlan}) against a running Ordo cluster:
 * <ol>
 *   <li>starts a {@link LeaseConsumer} on namespace {@value DemoSettings#NAMESPACE} (all topics)
 *       and waits until it owns every partition, so latencies do not include the group's join;</li>
 *   <li>enqueues every item at once with a {@link QueueProducer} (a burst: later, lower-priority
 *       items wait behind earlier, better ones);</li>
 *   <li>the handler does each item's simulated work and behaves as planned: succeeds, fails once
 *       (retried with the consumer's backoff), asks twice to be retried later, or always fails
 *       (the poison item, dead-lettered at its attempt limit);</li>
 *   <li>waits until every item is done or dead-lettered and the queue applied the acks and nacks,
 *       reads the poison items back from the dead-letter topic, and reports.</li>
 * </ol>
 * The wall clock is read here, in the I/O layer; {@link DemoReport} only computes.
 */
public final class Demo {
  /** Shows progress; {@link #NONE} shows nothing. */
  public interface Progress extends AutoCloseable {
    Progress NONE = new Progress() {
      @Override
      public void finished(long done, String message) {}

      @Override
      public void close() {}
    };

    /** {@code done} items of the plan have finished so far. */
    void finished(long done, String message);

    @Override
    void close();
  }

  private final DemoPlan plan;
  private final String bootstrapServers;
  private final ClusterTopics topics;
  private final int partitions;

  // What the handler saw, per item index.
  private final AtomicLongArray readyAt;
  private final AtomicLongArray doneAt;
  private final AtomicLongArray attempts;
  private final AtomicReferenceArray<Outcome> outcomes;
  private final AtomicReferenceArray<String> ids;
  private final CountDownLatch allFinished;
  private final AtomicInteger finished = new AtomicInteger();
  private final AtomicLong retries = new AtomicLong();

  public Demo(DemoPlan plan, String bootstrapServers, String cluster, int partitions) {
    this.plan = plan;
    this.bootstrapServers = bootstrapServers;
    this.topics = new ClusterTopics(cluster);
    this.partitions = partitions;
    int n = plan.items().size();
    this.readyAt = new AtomicLongArray(n);
    this.doneAt = new AtomicLongArray(n);
    this.attempts = new AtomicLongArray(n);
    this.outcomes = new AtomicReferenceArray<>(n);
    this.ids = new AtomicReferenceArray<>(n);
    this.allFinished = new CountDownLatch(n);
  }

  /** Runs the workload and reports; throws if the cluster cannot be used at all. */
  public DemoReport run(Progress progress) throws Exception {
    DemoSettings s = plan.settings();
    long deadline = System.nanoTime() + s.timeout().toNanos();
    try (QueueProducer producer = new QueueProducer(producerConfig());
        LeaseConsumer consumer = new LeaseConsumer(consumerConfig())) {
      consumer.start(this::handle);
      while (consumer.assignment().size() < partitions && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
      List<EnqueueRequest> requests = new ArrayList<>();
      for (Planned p : plan.items()) {
        EnqueueRequest.Builder b = EnqueueRequest.builder(DemoSettings.NAMESPACE, p.topic(),
                p.payload().getBytes(StandardCharsets.UTF_8))
            .priority(p.priority())
            .lease(s.lease())
            .maxAttempts(p.maxAttempts());
        if (p.delayMs() > 0) {
          b.delay(Duration.ofMillis(p.delayMs()));
        }
        requests.add(b.build());
      }
      long started = System.currentTimeMillis();
      for (Planned p : plan.items()) {
        readyAt.set(p.index(), started + p.delayMs());
      }
      List<ItemId> enqueued = producer.enqueueAll(requests).get(30, TimeUnit.SECONDS);
      for (int i = 0; i < enqueued.size(); i++) {
        ids.set(i, enqueued.get(i).toString());
      }
      while (!allFinished.await(200, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
        progress.finished(finished.get(), message(consumer));
      }
      progress.finished(finished.get(), message(consumer));
      long ended = System.currentTimeMillis();
      // The last acks and nacks are on their way: wait until the queue applied them.
      long expected = plan.items().size();
      while (settling(consumer, expected) && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
      progress.close();
      List<DeadLetterInfo> deadLetters = readDeadLetters(deadline);
      consumer.close(Duration.ofSeconds(2));
      return report(Duration.ofMillis(ended - started), deadLetters);
    } finally {
      progress.close();
    }
  }

  /** True while some item's last ack or dead-lettering nack is unanswered (each item ends with one). */
  private static boolean settling(LeaseConsumer consumer, long expected) {
    var st = consumer.stats();
    return st.acked() + st.deadLettered() + st.ackRefused() < expected;
  }

  private String message(LeaseConsumer consumer) {
    var st = consumer.stats();
    return " retries " + retries.get() + ", dead letters " + st.deadLettered();
  }

  /** The handler: simulated work, then what the plan says. */
  private void handle(LeasedItem item) throws Exception {
    Planned p = plan.byPayload(new String(item.payload(), StandardCharsets.UTF_8));
    if (p == null) {
      return; // not ours: ack it
    }
    attempts.accumulateAndGet(p.index(), item.attempt(), Math::max);
    Thread.sleep(p.workMs());
    switch (p.behaviour()) {
      case POISON -> {
        if (item.attempt() >= p.maxAttempts()) {
          finish(p, Outcome.DEAD_LETTERED);
        } else {
          retries.incrementAndGet();
        }
        throw new IllegalStateException("poison item: its payload cannot be processed");
      }
      case FAILS_ONCE -> {
        if (item.attempt() < 2) {
          retries.incrementAndGet();
          throw new IllegalStateException("simulated outage of a downstream service");
        }
      }
      case RETRY_LATER_TWICE -> {
        if (item.attempt() < 3) {
          retries.incrementAndGet();
          throw new RetryLater(Duration.ofMillis(300), "simulated rate limit");
        }
      }
      case SUCCEEDS -> { }
    }
    finish(p, item.attempt() == 1 ? Outcome.FIRST_ATTEMPT : Outcome.AFTER_RETRIES);
  }

  private void finish(Planned p, Outcome outcome) {
    if (outcomes.compareAndSet(p.index(), null, outcome)) {
      doneAt.set(p.index(), System.currentTimeMillis());
      finished.incrementAndGet();
      allFinished.countDown();
    }
  }

  private DemoReport report(Duration elapsed, List<DeadLetterInfo> deadLetters) {
    List<ItemResult> results = new ArrayList<>();
    for (Planned p : plan.items()) {
      int i = p.index();
      Outcome o = outcomes.get(i) == null ? Outcome.UNFINISHED : outcomes.get(i);
      boolean done = o == Outcome.FIRST_ATTEMPT || o == Outcome.AFTER_RETRIES;
      long latency = done ? Math.max(0, doneAt.get(i) - readyAt.get(i)) : -1;
      results.add(new ItemResult(i, ids.get(i), p.topic(), p.priority(), p.delayMs() > 0, o, (int) attempts.get(i),
          latency));
    }
    return new DemoReport(plan.settings(), partitions, results, elapsed, deadLetters);
  }

  /** The dead letters of this run's poison items, read back from the dead-letter topic (read_committed). */
  private List<DeadLetterInfo> readDeadLetters(long deadline) {
    Set<String> wanted = new HashSet<>();
    Map<String, String> topicOf = new HashMap<>();
    for (Planned p : plan.items()) {
      if (p.behaviour() == Behaviour.POISON && ids.get(p.index()) != null) {
        wanted.add(ids.get(p.index()));
        topicOf.put(ids.get(p.index()), p.topic());
      }
    }
    List<DeadLetterInfo> found = new ArrayList<>();
    if (wanted.isEmpty()) {
      return found;
    }
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> dlq =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = dlq.partitionsFor(topics.dlq(), Duration.ofSeconds(10)).stream()
          .map(info -> new TopicPartition(info.topic(), info.partition()))
          .toList();
      dlq.assign(parts);
      dlq.seekToBeginning(parts);
      // Leave a few seconds for the dead letters to be read even when the run used up its time.
      long until = Math.max(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      while (!wanted.isEmpty() && System.nanoTime() < until) {
        for (ConsumerRecord<byte[], byte[]> r : dlq.poll(Duration.ofMillis(100))) {
          DeadLetter d;
          try {
            d = OrdoSerdes.DEAD_LETTER.decode(r.value());
          } catch (RuntimeException e) {
            continue;
          }
          if (d.getItemId() != null && wanted.remove(d.getItemId())) {
            found.add(new DeadLetterInfo(d.getItemId(), topicOf.get(d.getItemId()), d.getReason().name(),
                d.getAttempts(), d.getLastError()));
          }
        }
      }
    }
    return found;
  }

  private Map<String, Object> producerConfig() {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrapServers);
    c.put(QueueProducerConfig.CLUSTER_CONFIG, topics.cluster());
    return c;
  }

  private Map<String, Object> consumerConfig() {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrapServers);
    c.put(QueueClientConfig.CLUSTER_CONFIG, topics.cluster());
    c.put(QueueClientConfig.CLIENT_ID_CONFIG, "ordo-demo");
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, "ordo-demo");
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, DemoSettings.NAMESPACE);
    c.put(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, plan.settings().maxInFlight());
    // Fast retries: the demo should show them, not wait for them.
    c.put(LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 200L);
    c.put(LeaseConsumerConfig.BACKOFF_MAX_CONFIG, 1_000L);
    c.put(LeaseConsumerConfig.CLOSE_GRACE_CONFIG, 2_000L);
    c.put("consumer." + ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
    c.put("consumer." + ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    return c;
  }
}
