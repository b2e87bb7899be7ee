package dev.ordo.client.stream;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * One record given to a {@link StreamHandler}: the Kafka record as read (from a source topic or the
 * retry topic) and, for a retry copy, which attempt it is, where the record was first read and why the
 * previous attempt failed. Key and value are the bytes as produced; decode them in the handler.
 */
public final class StreamRecord {
  private final ConsumerRecord<byte[], byte[]> record;
  private final int attempt;
  private final String sourceTopic;
  private final int sourcePartition;
  private final long sourceOffset;
  private final String previousError;

  private StreamRecord(ConsumerRecord<byte[], byte[]> record, int attempt, String sourceTopic, int sourcePartition,
      long sourceOffset, String previousError) {
    this.record = record;
    this.attempt = attempt;
    this.sourceTopic = sourceTopic;
    this.sourcePartition = sourcePartition;
    this.sourceOffset = sourceOffset;
    this.previousError = previousError;
  }

  /**
   * The record as the handler sees it. Only a record of the retry topic is a retry: its
   * {@link RetryHeaders} say which attempt it is and where it came from (missing or unreadable
   * headers: attempt 2, from the retry topic itself).
   */
  static StreamRecord of(ConsumerRecord<byte[], byte[]> record, boolean fromRetryTopic) {
    if (!fromRetryTopic) {
      return new StreamRecord(record, 1, record.topic(), record.partition(), record.offset(), null);
    }
    Headers h = record.headers();
    long attempt = number(h, RetryHeaders.ATTEMPT, 2);
    String topic = text(h, RetryHeaders.SOURCE_TOPIC);
    long partition = number(h, RetryHeaders.SOURCE_PARTITION, -1);
    long offset = number(h, RetryHeaders.SOURCE_OFFSET, -1);
    if (topic == null || partition < 0 || partition > Integer.MAX_VALUE || offset < 0) {
      topic = record.topic();
      partition = record.partition();
      offset = record.offset();
    }
    return new StreamRecord(record, (int) Math.max(2, Math.min(attempt, Integer.MAX_VALUE)), topic, (int) partition,
        offset, text(h, RetryHeaders.LAST_ERROR));
  }

  /** The Kafka record as read. */
  public ConsumerRecord<byte[], byte[]> consumerRecord() {
    return record;
  }

  public String topic() {
    return record.topic();
  }

  public int partition() {
    return record.partition();
  }

  public long offset() {
    return record.offset();
  }

  public long timestamp() {
    return record.timestamp();
  }

  /** May be null. */
  public byte[] key() {
    return record.key();
  }

  /** May be null. */
  public byte[] value() {
    return record.value();
  }

  /** The record's headers, including the {@link RetryHeaders} of a retry copy. */
  public Headers headers() {
    return record.headers();
  }

  /** 1 for a record read from a source topic, 2 for its first retry, and so on. */
  public int attempt() {
    return attempt;
  }

  /** True for a copy read from the retry topic. */
  public boolean isRetry() {
    return attempt > 1;
  }

  /** The topic the record was first read from (the record's own topic on the first attempt). */
  public String sourceTopic() {
    return sourceTopic;
  }

  public int sourcePartition() {
    return sourcePartition;
  }

  public long sourceOffset() {
    return sourceOffset;
  }

  /** Why the previous attempt failed; null on the first attempt. */
  public String previousError() {
    return previousError;
  }

  @Override
  public String toString() {
    return record.topic() + "-" + record.partition() + "@" + record.offset()
        + (isRetry() ? " (attempt " + attempt + " of " + sourceTopic + "-" + sourcePartition + "@" + sourceOffset + ")" : "");
  }

  private static String text(Headers headers, String key) {
    Header h = headers.lastHeader(key);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static long number(Headers headers, String key, long otherwise) {
    String s = text(headers, key);
    if (s == null) {
      return otherwise;
    }
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }
}
