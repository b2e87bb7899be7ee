package dev.ordo.topology.internal;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.FailOnInvalidTimestamp;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * An item's time is its record's timestamp, as Kafka Streams' default extractor gives it (an invalid
 * one fails the same way); on the way it tells the {@link IntakeClock} how far the intake has read.
 */
public final class ItemTimestamps implements TimestampExtractor {
  private final TimestampExtractor plain = new FailOnInvalidTimestamp();
  private final IntakeClock clock;

  public ItemTimestamps(IntakeClock clock) {
    this.clock = clock;
  }

  @Override
  public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
    long t = plain.extract(record, partitionTime);
    clock.itemRead(record.partition(), t);
    return t;
  }
}
