package dev.ordo.bench.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Baseline 2: a Kafka share group (KIP-932) of {@code consumers} {@link KafkaShareConsumer}s that
 * ACCEPT every record explicitly, configured as KAFKA-NOTES.md says: the group config
 * {@code share.auto.offset.reset=earliest} (set through Admin before the group starts) and, on the
 * broker, short share heartbeats (broker settings the bench can only report).
 *
 * <p>The {@code n} records are written first; the measurement is the steady state after the group
 * joined: records per second from the moment 10% of them were received to the last one, so the
 * join and the first fetches are not counted.
 */
public final class ShareGroupScenario {
  private ShareGroupScenario() {}

  public static double run(BenchKafka kafka, String topic, int partitions, int n, int payloadBytes, int consumers) {
    kafka.createTopics(partitions, topic);
    String group = topic + "-share";
    try {
      Map<String, Object> pc = new HashMap<>();
      pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      pc.put(ProducerConfig.ACKS_CONFIG, "all");
      pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
      pc.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      try (KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer())) {
        for (int i = 0; i < n; i++) {
          producer.send(new ProducerRecord<>(topic, Payloads.of(payloadBytes, i, 0)));
        }
        producer.flush();
      }
      kafka.setGroupConfig(group, "share.auto.offset.reset", "earliest");

      AtomicLong received = new AtomicLong();
      long warmUp = Math.max(1, n / 10);
      AtomicLong steadyFrom = new AtomicLong();
      AtomicLong steadyCount = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      long start = System.nanoTime();
      for (int c = 0; c < consumers; c++) {
        Thread t = new Thread(() -> consume(kafka, topic, group, n, received, warmUp, steadyFrom, steadyCount, failure),
            "bench-share-consumer-" + c);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (received.get() < n && failure.get() == null) {
        if (System.nanoTime() > deadline) {
          threads.forEach(Thread::interrupt);
          throw new IllegalStateException("the share group received " + received.get() + " of " + n
              + " records in 5 min");
        }
        BenchKafka.sleep(1);
      }
      long end = System.nanoTime();
      for (Thread t : threads) {
        try {
          t.join(30_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
      if (failure.get() != null) {
        throw new IllegalStateException("a share consumer failed: " + failure.get(), failure.get());
      }
      return steadyRate(received.get(), steadyCount.get(), start, steadyFrom.get(), end);
    } finally {
      try {
        BenchKafka.get(kafka.admin().deleteShareGroups(List.of(group)).all());
      } catch (RuntimeException e) {
        // best effort: the group is empty and unique to this round
      }
      kafka.deleteTopicsStartingWith(topic);
    }
  }

  /**
   * Records per second after the warm-up. When one poll brought the warm-up and everything after it
   * (small runs: a share fetch returns up to 500 records), there is no steady state to measure and
   * the whole run, join included, is the only honest figure.
   */
  static double steadyRate(long received, long steadyCount, long start, long steadyFrom, long end) {
    if (received > steadyCount && end > steadyFrom) {
      return (received - steadyCount) / ((end - steadyFrom) / 1e9);
    }
    return received / (Math.max(1, end - start) / 1e9);
  }

  private static void consume(BenchKafka kafka, String topic, String group, int n, AtomicLong received, long warmUp,
      AtomicLong steadyFrom, AtomicLong steadyCount, AtomicReference<Throwable> failure) {
    Map<String, Object> cc = new HashMap<>();
    cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    cc.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    cc.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
    try (KafkaShareConsumer<byte[], byte[]> consumer =
        new KafkaShareConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (received.get() < n && !Thread.currentThread().isInterrupted()) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          consumer.acknowledge(r, AcknowledgeType.ACCEPT);
        }
        long total = received.addAndGet(records.count());
        if (total >= warmUp && steadyFrom.get() == 0 && steadyFrom.compareAndSet(0, System.nanoTime())) {
          steadyCount.set(total);
        }
      }
      consumer.commitSync(Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }
}
