package dev.ordo.topology.internal;

import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.WireFormat;
import dev.ordo.store.ItemSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition of the items topic read back with a consumer of its own, for the rebuild of the item
 * table ({@code PriorityStore#open}). It reads with Kafka Streams' restore consumer's settings
 * (read_committed under exactly-once, so an aborted enqueue is not read back), from a given offset
 * to a given one, and decodes only the records asked for.
 */
final class KafkaItemSource implements ItemSource {
  private static final Logger log = LoggerFactory.getLogger(KafkaItemSource.class);
  /** The longest a read may make no progress before it fails (the task then fails and is retried). */
  static final Duration STALL_LIMIT = Duration.ofSeconds(60);

  private final Map<String, Object> consumerConfig;
  private final TopicPartition partition;
  private final WireFormat wire;

  KafkaItemSource(Map<String, Object> consumerConfig, TopicPartition partition, WireFormat wire) {
    this.consumerConfig = consumerConfig;
    this.partition = partition;
    this.wire = wire;
  }

  /** A source reading {@code topic}'s {@code partition} with the restore consumer's settings of a Kafka Streams app. */
  static KafkaItemSource of(Map<String, Object> appConfigs, String topic, int partition, WireFormat wire) {
    Map<String, Object> config = new HashMap<>(new StreamsConfig(appConfigs)
        .getRestoreConsumerConfigs("ordo-items-reader-" + topic + "-" + partition));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
    return new KafkaItemSource(config, new TopicPartition(topic, partition), wire);
  }

  /**
   * The record's item as the item table keeps it: its value as it is when the queue took it in as it
   * is (no Kafka headers to merge, no registry framing), else decoded as at intake and encoded.
   */
  private byte[] tableValue(ConsumerRecord<byte[], byte[]> r) {
    if (!wire.confluent() && r.headers().toArray().length == 0) {
      return r.value();
    }
    return dev.ordo.serde.OrdoSerdes.ITEM.encode(RecordIntake.itemOf(wire, r.value(), r.headers()));
  }

  @Override
  public void read(long from, long to, LongPredicate wanted, ItemSink sink) {
    if (to < from) {
      return;
    }
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.assign(List.of(partition));
      long earliest = consumer.beginningOffsets(List.of(partition)).get(partition);
      if (earliest > from) {
        log.error("{}: records from {} on are needed to rebuild the item table, but the topic starts at {} (its"
            + " retention deleted them): the items among them are lost", partition, from, earliest);
        from = earliest;
      }
      consumer.seek(partition, from);
      long start = System.nanoTime();
      long read = 0;
      long progressAt = System.nanoTime();
      long position = from;
      while (position <= to) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<byte[], byte[]> r : records.records(partition)) {
          if (r.offset() > to) {
            break;
          }
          read++;
          if (wanted.test(r.offset())) {
            try {
              sink.accept(r.offset(), tableValue(r));
            } catch (OrdoSerdeException e) {
              // It was taken in once, so it decoded then (a schema registry that is gone, say): counted as lost.
              log.error("{}@{}: the item does not decode any more: {}", partition, r.offset(), e.getMessage());
            }
          }
        }
        long now = consumer.position(partition);
        if (now > position) {
          position = now;
          progressAt = System.nanoTime();
        } else if (System.nanoTime() - progressAt > STALL_LIMIT.toNanos()) {
          throw new org.apache.kafka.common.errors.TimeoutException("reading " + partition + " back for the item table"
              + " made no progress for " + STALL_LIMIT.toSeconds() + " s at offset " + position + " (up to " + to + ")");
        }
      }
      log.info("{}: read {} records back ({}..{}) for the item table in {} ms", partition, read, from, to,
          (System.nanoTime() - start) / 1_000_000);
    }
  }
}
