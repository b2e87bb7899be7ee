package dev.ordo.topology.internal;

import dev.ordo.store.LegacyItemTable;
import dev.ordo.store.PriorityStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changelog a version before the state log kept its item table in ({@code <application
 * id>-ordo-queue-changelog}), read back once into the item table of a partition that has never
 * written its state store: an upgrade onto a machine without the old local state loses nothing
 * (decisions D54). Nothing is read when the topic does not exist.
 */
final class KafkaLegacyItemTable implements LegacyItemTable {
  private static final Logger log = LoggerFactory.getLogger(KafkaLegacyItemTable.class);
  private static final Duration STALL_LIMIT = Duration.ofSeconds(60);

  private final Map<String, Object> consumerConfig;
  private final String topic;
  private final int partition;

  KafkaLegacyItemTable(Map<String, Object> appConfigs, int partition) {
    StreamsConfig streams = new StreamsConfig(appConfigs);
    this.topic = streams.getString(StreamsConfig.APPLICATION_ID_CONFIG) + "-" + PriorityStore.STORE_NAME + "-changelog";
    this.partition = partition;
    Map<String, Object> config = new HashMap<>(streams.getRestoreConsumerConfigs("ordo-legacy-table-" + partition));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
    this.consumerConfig = config;
  }

  @Override
  public void restoreInto(KeyValueStore<Bytes, byte[]> table) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30));
      if (partitions == null || partitions.stream().noneMatch(p -> p.partition() == partition)) {
        return;
      }
      TopicPartition tp = new TopicPartition(topic, partition);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long records = 0;
      long progressAt = System.nanoTime();
      long position = consumer.position(tp);
      while (position < end) {
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
          batch.add(KeyValue.pair(Bytes.wrap(r.key()), r.value()));
        }
        table.putAll(batch);
        records += batch.size();
        long now = consumer.position(tp);
        if (now > position) {
          position = now;
          progressAt = System.nanoTime();
        } else if (System.nanoTime() - progressAt > STALL_LIMIT.toNanos()) {
          throw new org.apache.kafka.common.errors.TimeoutException("reading the old item table " + tp
              + " made no progress for " + STALL_LIMIT.toSeconds() + " s at offset " + position + " (up to " + end + ")");
        }
      }
      if (records > 0) {
        log.info("{}: restored {} records of the item table an older version kept, to move them into the state log",
            tp, records);
      }
    }
  }
}
