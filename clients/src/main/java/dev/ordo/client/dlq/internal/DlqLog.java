package dev.ordo.client.dlq.internal;

import dev.ordo.client.internal.KafkaProps;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads {@code <cluster>.dlq} by position: a range of one partition, or one record. A consumer
 * without a group, read_committed (a dead letter of the queue is visible once the queue's
 * transaction committed), assigned one partition at a time. Not thread-safe: one reader per caller.
 */
public final class DlqLog implements AutoCloseable {
  private static final Duration META_TIMEOUT = Duration.ofSeconds(15);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String topic;

  public DlqLog(Map<String, Object> kafkaConfig, String topic) {
    Map<String, Object> c = KafkaProps.positionReader(kafkaConfig);
    this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.topic = topic;
  }

  public String topic() {
    return topic;
  }

  private List<TopicPartition> partitions() {
    return consumer.partitionsFor(topic, META_TIMEOUT).stream()
        .map(i -> new TopicPartition(topic, i.partition())).toList();
  }

  /** The first retained offset of every partition. */
  public Map<Integer, Long> begins() {
    Map<Integer, Long> out = new HashMap<>();
    consumer.beginningOffsets(partitions(), META_TIMEOUT).forEach((tp, o) -> out.put(tp.partition(), o));
    return out;
  }

  /** The end of every partition for read_committed readers (the last stable offset). */
  public Map<Integer, Long> ends() {
    Map<Integer, Long> out = new HashMap<>();
    consumer.endOffsets(partitions(), META_TIMEOUT).forEach((tp, o) -> out.put(tp.partition(), o));
    return out;
  }

  /** Per partition, the first offset with a timestamp at or after {@code timeMs}; absent when none. */
  public Map<Integer, Long> offsetsAt(long timeMs) {
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions().forEach(tp -> query.put(tp, timeMs));
    Map<Integer, Long> out = new HashMap<>();
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, META_TIMEOUT);
    found.forEach((tp, ot) -> {
      if (ot != null) {
        out.put(tp.partition(), ot.offset());
      }
    });
    return out;
  }

  /**
   * Reads partition {@code partition} from offset {@code from} up to {@code end} (exclusive),
   * showing each record to {@code visitor} until it returns false.
   *
   * @return the offset to read next: past the last record shown, or {@code end} when the range was read whole
   * @throws TimeoutException when the range could not be read within {@code timeout}
   */
  public long read(int partition, long from, long end, Predicate<ConsumerRecord<byte[], byte[]>> visitor,
      Duration timeout) {
    if (from >= end) {
      return end;
    }
    TopicPartition tp = new TopicPartition(topic, partition);
    consumer.assign(List.of(tp));
    consumer.seek(tp, from);
    long deadline = System.nanoTime() + timeout.toNanos();
    long next = from;
    while (true) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100)).records(tp)) {
        if (r.offset() >= end) {
          return end;
        }
        next = r.offset() + 1;
        if (!visitor.test(r)) {
          return next;
        }
      }
      // The position passes transaction markers and aborted records, which no poll returns.
      next = Math.max(next, consumer.position(tp, META_TIMEOUT));
      if (next >= end) {
        return end;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("could not read " + tp + " from " + from + " to " + end + " within " + timeout
            + " (at " + next + ")");
      }
    }
  }

  /** The record at {@code offset} of {@code partition}, if there is one (not expired, not a transaction marker). */
  public Optional<ConsumerRecord<byte[], byte[]>> at(int partition, long offset, Duration timeout) {
    TopicPartition tp = new TopicPartition(topic, partition);
    Long end = consumer.endOffsets(List.of(tp), META_TIMEOUT).get(tp);
    Long begin = consumer.beginningOffsets(List.of(tp), META_TIMEOUT).get(tp);
    if (end == null || begin == null || offset < begin || offset >= end) {
      return Optional.empty();
    }
    @SuppressWarnings("unchecked")
    ConsumerRecord<byte[], byte[]>[] found = new ConsumerRecord[1];
    read(partition, offset, offset + 1, r -> {
      if (r.offset() == offset) {
        found[0] = r;
      }
      return false;
    }, timeout);
    return Optional.ofNullable(found[0]);
  }

  /** The partition count of the topic. */
  public int partitionCount() {
    return partitions().size();
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
