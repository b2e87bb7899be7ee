package dev.ordo.client;

import static org.awaitility.Awaitility.await;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.DeadLetter;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One Ordo cluster for a test class: its topics on the class's Kafka cluster and one queue
 * instance (QueueService) with a temporary state directory.
 */
final class TestQueue implements AutoCloseable {
  static final int PARTITIONS = 4;

  final RealKafka kafka;
  final ClusterTopics topics;
  private final Path stateDir;
  private final QueueService service;

  private TestQueue(RealKafka kafka, ClusterTopics topics, Path stateDir, QueueService service) {
    this.kafka = kafka;
    this.topics = topics;
    this.stateDir = stateDir;
    this.service = service;
  }

  static TestQueue start(RealKafka kafka, String cluster) throws IOException {
    return start(kafka, cluster, Map.of(), Map.of());
  }

  /** The same, with {@code streams} and {@code queue} settings added to the test's own. */
  static TestQueue start(RealKafka kafka, String cluster, Map<String, Object> streams, Map<String, Object> queue)
      throws IOException {
    ClusterTopics topics = new ClusterTopics(cluster);
    kafka.createTopics(PARTITIONS, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(),
        topics.topicStats());
    kafka.createTopics(1, topics.namespaces());
    Path dir = Files.createTempDirectory("ordo-" + cluster);
    Map<String, Object> streamsConfig = new HashMap<>(streams);
    streamsConfig.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    streamsConfig.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
    Map<String, Object> queueConfig = new HashMap<>(queue);
    queueConfig.put(QueueConfig.CLUSTER_CONFIG, cluster);
    queueConfig.putIfAbsent(QueueConfig.STATS_MS_CONFIG, 200L);
    QueueService service = new QueueService(streamsConfig, queueConfig, PARTITIONS);
    service.start();
    await().atMost(Duration.ofSeconds(60)).until(service::isRunning);
    return new TestQueue(kafka, topics, dir, service);
  }

  /** The queue instance's counters. */
  dev.ordo.topology.QueueMetrics metrics() {
    return service.metrics();
  }

  Map<String, Object> producerConfig() {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueProducerConfig.CLUSTER_CONFIG, topics.cluster());
    return c;
  }

  Map<String, Object> clientConfig() {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueClientConfig.CLUSTER_CONFIG, topics.cluster());
    return c;
  }

  /** A lease consumer's settings, with fast group membership for tests. */
  Map<String, Object> consumerConfig(String group, String namespace) {
    Map<String, Object> c = clientConfig();
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, namespace);
    c.put("consumer." + ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
    c.put("consumer." + ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    return c;
  }

  /** Every dead letter on the cluster's dead-letter topic so far. */
  List<DeadLetter> deadLetters() {
    Properties props = kafka.clientProperties();
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<DeadLetter> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        parts.add(new TopicPartition(topics.dlq(), p));
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          out.add(OrdoSerdes.DEAD_LETTER.decode(r.value()));
        }
      }
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    service.close();
    try (Stream<Path> files = Files.walk(stateDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
