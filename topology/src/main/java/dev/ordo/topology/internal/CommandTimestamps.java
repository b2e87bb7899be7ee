package dev.ordo.topology.internal;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * The time Kafka Streams orders a command by: its record's timestamp plus a lead. A partition's
 * task takes the record with the smallest time among the heads of {@code items} and {@code commands};
 * with the lead, a new item is taken in ahead of commands up to {@code leadMs} older than it, so a
 * command sent right after an enqueue finds the item (decisions D25). The processor
 * reads no command's record timestamp (a command carries its own {@code sentAt}); the time extracted
 * here only orders the two partitions.
 */
public final class CommandTimestamps implements TimestampExtractor {
  private final long leadMs;

  public CommandTimestamps(long leadMs) {
    if (leadMs < 0) {
      throw new IllegalArgumentException("leadMs must be >= 0: " + leadMs);
    }
    this.leadMs = leadMs;
  }

  @Override
  public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
    return orderTime(record.timestamp(), partitionTime, leadMs);
  }

  /**
   * The time to order a command by: {@code timestamp + leadMs}, saturating; a record without a valid
   * timestamp (negative) keeps its partition's time, so it neither fails the task nor jumps ahead.
   */
  static long orderTime(long timestamp, long partitionTime, long leadMs) {
    if (timestamp < 0) {
      return Math.max(partitionTime, 0);
    }
    return timestamp > Long.MAX_VALUE - leadMs ? Long.MAX_VALUE : timestamp + leadMs;
  }
}
