package dev.ordo.delay;

import dev.ordo.schema.DelayedRecord;
import dev.ordo.schema.RecordHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Builds the {@link DelayedRecord} envelope and turns it back into the target record. */
public final class DelayedRecords {
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private DelayedRecords() {}

  /**
   * The envelope of a record for {@code topic} (and {@code partition}, or null for the producer's
   * partitioner), due at {@code dueAt}, scheduled at {@code scheduledAt} (both epoch ms).
   *
   * @throws IllegalArgumentException naming the bad argument
   */
  public static DelayedRecord envelope(String topic, Integer partition, byte[] key, byte[] value,
      Iterable<Header> headers, long dueAt, long scheduledAt) {
    String problem = topicProblem(topic);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    if (partition != null && partition < 0) {
      throw new IllegalArgumentException("target partition must be >= 0, got " + partition);
    }
    List<RecordHeader> list = new ArrayList<>();
    if (headers != null) {
      for (Header h : headers) {
        if (h.key() == null) {
          throw new IllegalArgumentException("a header key is null");
        }
        list.add(new RecordHeader(h.key(), h.value() == null ? null : ByteBuffer.wrap(h.value().clone())));
      }
    }
    return DelayedRecord.newBuilder()
        .setDueAt(dueAt)
        .setTargetTopic(topic)
        .setTargetPartition(partition)
        .setKey(key == null ? null : ByteBuffer.wrap(key.clone()))
        .setValue(value == null ? null : ByteBuffer.wrap(value.clone()))
        .setHeaders(list)
        .setScheduledAt(scheduledAt)
        .build();
  }

  /** The record to produce to the target: the envelope's topic, partition, key, value and headers, stamped {@code timestamp}. */
  public static ProducerRecord<byte[], byte[]> targetRecord(DelayedRecord envelope, long timestamp) {
    RecordHeaders headers = new RecordHeaders();
    for (RecordHeader h : envelope.getHeaders()) {
      headers.add(h.getKey(), bytes(h.getValue()));
    }
    return new ProducerRecord<>(envelope.getTargetTopic(), envelope.getTargetPartition(), timestamp,
        bytes(envelope.getKey()), bytes(envelope.getValue()), headers);
  }

  /** Null when {@code topic} is a legal Kafka topic name, else why not. */
  public static String topicProblem(String topic) {
    if (topic == null || topic.isEmpty()) {
      return "target topic is missing";
    }
    if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
      return "'" + topic + "' is not a legal Kafka topic name";
    }
    return null;
  }

  static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    ByteBuffer b = buffer.duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }
}
