package dev.ordo.bench.internal;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One record every {@code interval} through plain Kafka, beside Alice: a {@link KafkaProducer} with the
 * settings {@code QueueProducer} gives its own (acks=all, idempotent, linger 5 ms) writes to a topic of
 * one partition, and a {@link KafkaConsumer} on a thread of its own (assigned the partition, from its
 * end) reads it; each record's time from send to read. It is the one Kafka hop every queue on Kafka
 * makes at least once per item, on the same broker and cores as the queue, so how much its tail grows
 * under Bob's drain is what the machine itself adds to a hop, whatever the queue does.
 */
public final class KafkaPing implements AutoCloseable {
  private final BenchKafka kafka;
  private final String topic;
  private final Map<Long, Long> sentAt = new ConcurrentHashMap<>();
  private final Map<Long, Long> readAt = new ConcurrentHashMap<>();
  private final AtomicBoolean sending = new AtomicBoolean(true);
  private final AtomicBoolean reading = new AtomicBoolean(true);
  private final KafkaProducer<byte[], byte[]> producer;
  private final Thread reader;
  private final Thread sender;
  private volatile Throwable failure;

  /**
   * Readies a ping of {@code topic} (created here, deleted on close) every {@code interval}; {@link #start}
   * starts it.
   */
  public KafkaPing(BenchKafka kafka, String topic, Duration interval) {
    this.kafka = kafka;
    this.topic = topic;
    kafka.createTopics(1, topic);
    KafkaConsumer<byte[], byte[]> consumer = null;
    KafkaProducer<byte[], byte[]> made = null;
    try {
      // Both clients ready before the reader starts: a client that fails to start leaves no thread,
      // client or topic behind.
      TopicPartition tp = new TopicPartition(topic, 0);
      Map<String, Object> cc = new HashMap<>();
      cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      consumer = new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      consumer.assign(List.of(tp));
      consumer.seekToEnd(List.of(tp));
      consumer.position(tp);
      made = RawKafkaScenario.plainProducer(kafka);
      made.partitionsFor(topic);
    } catch (RuntimeException e) {
      if (consumer != null) {
        consumer.close(Duration.ofSeconds(5));
      }
      if (made != null) {
        made.close(Duration.ofSeconds(5));
      }
      kafka.deleteTopicsStartingWith(topic);
      throw e;
    }
    KafkaConsumer<byte[], byte[]> reads = consumer;
    reader = new Thread(() -> {
      try (reads) {
        while (reading.get()) {
          for (ConsumerRecord<byte[], byte[]> r : reads.poll(Duration.ofMillis(100))) {
            readAt.put(ByteBuffer.wrap(r.value()).getLong(), System.nanoTime());
          }
        }
      } catch (RuntimeException e) {
        failure = e;
      }
    }, "bench-ping-reader");
    reader.setDaemon(true);
    reader.start();

    producer = made;
    sender = new Thread(() -> {
      Pacer pacer = new Pacer(1e9 / interval.toNanos());
      long end = System.nanoTime() + Duration.ofHours(1).toNanos();
      for (long seq = 0; sending.get() && pacer.awaitNext(end); seq++) {
        sentAt.put(seq, System.nanoTime());
        producer.send(new ProducerRecord<>(topic, ByteBuffer.allocate(Long.BYTES).putLong(seq).array()));
      }
    }, "bench-ping-sender");
    sender.setDaemon(true);
  }

  /** Starts sending: one record at once, then one every interval until {@link #stop}. */
  public void start() {
    sender.start();
  }

  /**
   * Stops sending, waits up to {@code grace} for the records sent to be read, and returns each one's
   * time from send to read (ns), in the order sent.
   */
  public long[] stop(Duration grace) {
    sending.set(false);
    join(sender);
    producer.flush();
    long deadline = System.nanoTime() + grace.toNanos();
    while (readAt.size() < sentAt.size() && System.nanoTime() < deadline && failure == null) {
      BenchKafka.sleep(5);
    }
    reading.set(false);
    join(reader);
    if (failure != null) {
      throw new IllegalStateException("the ping's consumer failed", failure);
    }
    return sentAt.keySet().stream().sorted().mapToLong(s -> {
      Long read = readAt.get(s);
      if (read == null) {
        throw new IllegalStateException("ping " + s + " of " + sentAt.size() + " was not read within " + grace);
      }
      return read - sentAt.get(s);
    }).toArray();
  }

  private static void join(Thread t) {
    try {
      t.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    sending.set(false);
    reading.set(false);
    producer.close(Duration.ofSeconds(5));
    kafka.deleteTopicsStartingWith(topic);
  }
}
