package dev.ordo.server.auth;

import dev.ordo.client.internal.KafkaProps;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A one-partition compacted topic that every instance reads whole and follows ({@link TopicTail}),
 * and writes through: a write returns once this instance has applied it, so a caller reads its own
 * write. The principals and the SQS queues are kept this way.
 */
public final class FollowedTopic implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final TopicTail tail;

  /** {@code onRecord} gets every record's key and value (null: a tombstone), on the tail's thread. */
  public FollowedTopic(Map<String, Object> kafkaConfig, String topic, BiConsumer<byte[], byte[]> onRecord) {
    this.topic = topic;
    this.producer = new KafkaProducer<>(KafkaProps.durableWriter(kafkaConfig), new ByteArraySerializer(),
        new ByteArraySerializer());
    this.tail = new TopicTail(kafkaConfig, topic, onRecord);
  }

  public String topic() {
    return topic;
  }

  /** Reads the whole topic; returns once every record in it is applied. */
  public void start() {
    try {
      tail.start(TIMEOUT);
    } catch (TimeoutException e) {
      throw new IllegalStateException("could not read " + topic + " within " + TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + topic, e);
    }
  }

  /** Writes a record (a null value: a tombstone); returns once this instance has applied it. */
  public void write(byte[] key, byte[] value) {
    try {
      RecordMetadata m = producer.send(new ProducerRecord<>(topic, 0, key, value))
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      tail.awaitPosition(m.offset() + 1, TIMEOUT);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not write to " + topic + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("no answer writing to " + topic + " within " + TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted writing to " + topic, e);
    }
  }

  @Override
  public void close() {
    tail.close();
    producer.close(Duration.ofSeconds(5));
  }
}
