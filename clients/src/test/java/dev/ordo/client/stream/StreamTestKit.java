package dev.ordo.client.stream;

import static org.awaitility.Awaitility.await;

import dev.ordo.delay.DelayTiers;
import dev.ordo.delay.DelayTiersConfig;
import dev.ordo.schema.DeadLetter;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.RealKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One Ordo cluster's worth of stream-consumer test set-up on a {@link RealKafka}: the delay tiers
 * (shortened, by default {@value #TIERS}) with their forwarders running, the dlq, source and retry topics, and the
 * reads a test checks its outcome with (dead letters, records in topics, committed offsets).
 */
final class StreamTestKit implements AutoCloseable {
  static final String TIERS = "200ms,500ms,2s";
  private static final int TIER_PARTITIONS = 2;

  final RealKafka kafka;
  final String cluster;
  final String tierList;
  final DelayTiersConfig delayConfig;
  private final DelayTiers tiers;
  private final List<StreamConsumer> consumers = new ArrayList<>();

  private StreamTestKit(RealKafka kafka, String cluster, DelayTiersConfig delayConfig, DelayTiers tiers) {
    this.kafka = kafka;
    this.cluster = cluster;
    this.tierList = delayConfig.getString(DelayTiersConfig.TIERS_CONFIG);
    this.delayConfig = delayConfig;
    this.tiers = tiers;
  }

  /** Creates the tier topics, the dlq and {@code topics} ({@code partitions} each) and starts the forwarders. */
  static StreamTestKit start(RealKafka kafka, String cluster, int partitions, String... topics) throws Exception {
    return start(kafka, cluster, TIERS, partitions, topics);
  }

  static StreamTestKit start(RealKafka kafka, String cluster, String tierList, int partitions, String... topics)
      throws Exception {
    Map<String, Object> props = new HashMap<>();
    props.put("bootstrap.servers", kafka.bootstrapServers());
    props.put(DelayTiersConfig.CLUSTER_CONFIG, cluster);
    props.put(DelayTiersConfig.TIERS_CONFIG, tierList);
    props.put(DelayTiersConfig.INSTANCE_ID_CONFIG, cluster + "-1");
    DelayTiersConfig config = new DelayTiersConfig(props);
    List<NewTopic> specs = new ArrayList<>(DelayTiers.newTopics(config, TIER_PARTITIONS, (short) 1));
    specs.add(new NewTopic(config.topics().dlq(), 1, (short) 1));
    for (String t : topics) {
      specs.add(new NewTopic(t, partitions, (short) 1));
    }
    try (Admin admin = kafka.admin()) {
      admin.createTopics(specs).all().get(30, TimeUnit.SECONDS);
    }
    kafka.awaitTopics(specs.stream().map(NewTopic::name).toArray(String[]::new));
    DelayTiers tiers = new DelayTiers(config);
    tiers.start();
    StreamTestKit kit = new StreamTestKit(kafka, cluster, config, tiers);
    kit.awaitForwarders();
    return kit;
  }

  /** Settings of a stream consumer of {@code group} on {@code topics}, with quick commits and heartbeats. */
  Map<String, Object> config(String group, String... topics) {
    Map<String, Object> props = new HashMap<>();
    props.put("bootstrap.servers", kafka.bootstrapServers());
    props.put(DelayTiersConfig.CLUSTER_CONFIG, cluster);
    props.put(DelayTiersConfig.TIERS_CONFIG, tierList);
    props.put(StreamConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(StreamConsumerConfig.TOPICS_CONFIG, String.join(",", topics));
    props.put(StreamConsumerConfig.COMMIT_INTERVAL_CONFIG, 100L);
    props.put("consumer.heartbeat.interval.ms", 500);
    return props;
  }

  /** A consumer closed with the kit. */
  StreamConsumer consumer(Map<String, Object> config) {
    StreamConsumer c = new StreamConsumer(config);
    consumers.add(c);
    return c;
  }

  List<String> tierTopics() {
    return delayConfig.tiers().stream().map(t -> delayConfig.topics().delayTier(t)).toList();
  }

  /** Produces {@code n} records and returns their metadata, in order. */
  List<RecordMetadata> produce(int n, IntFunction<ProducerRecord<byte[], byte[]>> record) throws Exception {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < n; i++) {
        CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
        producer.send(record.apply(i), (m, e) -> {
          if (e != null) {
            f.completeExceptionally(e);
          } else {
            f.complete(m);
          }
        });
        sent.add(f);
      }
    }
    List<RecordMetadata> metadata = new ArrayList<>();
    for (CompletableFuture<RecordMetadata> f : sent) {
      metadata.add(f.get(30, TimeUnit.SECONDS));
    }
    return metadata;
  }

  /** Every record now in {@code topics} (read_committed, up to the last stable offsets). */
  List<ConsumerRecord<byte[], byte[]>> readAll(String... topics) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String t : topics) {
        for (PartitionInfo p : consumer.partitionsFor(t)) {
          partitions.add(new TopicPartition(t, p.partition()));
        }
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).until(() -> {
        consumer.poll(Duration.ofMillis(100)).forEach(all::add);
        return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
      });
    }
    return all;
  }

  List<DeadLetter> deadLetters() {
    return readAll(delayConfig.topics().dlq()).stream().map(r -> OrdoSerdes.DEAD_LETTER.decode(r.value())).toList();
  }

  /** The committed offsets of {@code group} (partitions without one are absent). */
  Map<TopicPartition, Long> committed(String group) throws Exception {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, Long> out = new HashMap<>();
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
      offsets.forEach((tp, o) -> {
        if (o != null) {
          out.put(tp, o.offset());
        }
      });
      return out;
    }
  }

  /** The end offsets of {@code topic}'s partitions. */
  Map<TopicPartition, Long> endOffsets(String topic) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      return consumer.endOffsets(partitions);
    }
  }

  /** Waits until {@code group} committed every partition of {@code topic} up to its end. */
  void awaitFullyCommitted(String group, String topic) {
    Map<TopicPartition, Long> end = endOffsets(topic);
    await().atMost(Duration.ofSeconds(15)).alias(group + " commits " + topic + " up to " + end).pollInterval(Duration.ofMillis(100)).until(() -> {
      Map<TopicPartition, Long> committed = committed(group);
      // A partition that never had a record has nothing to commit.
      return end.entrySet().stream().allMatch(e -> e.getValue().equals(committed.getOrDefault(e.getKey(), 0L)));
    });
  }

  static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private void awaitForwarders() {
    List<String> groups = delayConfig.tiers().stream().map(delayConfig::forwarderGroupId).toList();
    try (Admin admin = kafka.admin()) {
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
        Map<String, ConsumerGroupDescription> d = admin.describeConsumerGroups(groups).all().get();
        return d.values().stream().allMatch(g -> g.members().stream()
            .map(MemberDescription::assignment).mapToInt(a -> a.topicPartitions().size()).sum() == TIER_PARTITIONS);
      });
    }
  }

  @Override
  public void close() {
    consumers.forEach(c -> c.close(Duration.ofSeconds(2)));
    tiers.close(Duration.ofSeconds(10));
  }
}
