package dev.ordo.bench.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Baseline 1: a plain {@link KafkaProducer} writes {@code n} records while a plain
 * {@link KafkaConsumer} (assigned every partition, from the beginning) reads them. Records per
 * second from the first send to the last record read. The producer has the settings
 * {@code QueueProducer} gives its own (acks=all, idempotent, linger 5 ms).
 */
public final class RawKafkaScenario {
  private RawKafkaScenario() {}

  /** A plain producer with the settings {@code QueueProducer} gives its own: acks=all, idempotent, linger 5 ms. */
  static KafkaProducer<byte[], byte[]> plainProducer(BenchKafka kafka) {
    Map<String, Object> pc = new HashMap<>();
    pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    pc.put(ProducerConfig.ACKS_CONFIG, "all");
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    pc.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer());
  }

  public static double run(BenchKafka kafka, String topic, int partitions, int n, int payloadBytes) {
    kafka.createTopics(partitions, topic);
    try {
      AtomicLong consumed = new AtomicLong();
      Map<String, Object> cc = new HashMap<>();
      cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      KafkaConsumer<byte[], byte[]> consumer =
          new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      List<TopicPartition> parts = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        parts.add(new TopicPartition(topic, p));
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      parts.forEach(consumer::position);
      Thread reader = new Thread(() -> {
        try (consumer) {
          while (consumed.get() < n && !Thread.currentThread().isInterrupted()) {
            consumed.addAndGet(consumer.poll(Duration.ofMillis(100)).count());
          }
        }
      }, "bench-raw-consumer");
      reader.setDaemon(true);
      reader.start();

      long start;
      try (KafkaProducer<byte[], byte[]> producer = plainProducer(kafka)) {
        producer.partitionsFor(topic);
        start = System.nanoTime();
        for (int i = 0; i < n; i++) {
          producer.send(new ProducerRecord<>(topic, Payloads.of(payloadBytes, i, System.nanoTime())));
        }
        producer.flush();
      }
      long deadline = start + Duration.ofMinutes(5).toNanos();
      while (consumed.get() < n) {
        if (System.nanoTime() > deadline) {
          reader.interrupt();
          throw new IllegalStateException("the plain consumer read " + consumed.get() + " of " + n + " records in 5 min");
        }
        BenchKafka.sleep(1);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return n / seconds;
    } finally {
      kafka.deleteTopicsStartingWith(topic);
    }
  }
}
