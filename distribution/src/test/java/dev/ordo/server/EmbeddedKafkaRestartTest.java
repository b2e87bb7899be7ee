package dev.ordo.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded broker of {@code ordo server} (no --bootstrap-servers): a Kafka client produces and
 * consumes through it, and after a stop a new server on the same state directory has the data.
 */
class EmbeddedKafkaRestartTest {
  @TempDir
  Path stateDir;

  private OrdoServer start() {
    OrdoServer server = new OrdoServer(ServerConfig.builder()
        .stateDir(stateDir).httpPort(0).partitions(2).build(), List.of());
    server.start();
    return server;
  }

  @Test
  void keepsItsDataAcrossRestarts() throws Exception {
    String topic;
    String clusterId;
    try (OrdoServer first = start()) {
      assertTrue(first.embeddedKafka());
      assertEquals(stateDir.toRealPath().resolve("kafka"), first.kafkaDataDir().orElseThrow());
      assertEquals(15, first.createdTopics().size(), first.createdTopics().toString());
      topic = first.layout().topics().items();
      produce(first.bootstrapServers(), topic, "before-restart", 20);
      assertEquals(20, consume(first.bootstrapServers(), topic, 20).size());
      clusterId = clusterId();
    }

    try (OrdoServer second = start()) {
      assertEquals(List.of(), second.createdTopics(), "the topics survived");
      assertEquals(2, second.layout().partitions());
      assertEquals(clusterId, clusterId(), "formatted once");
      List<String> values = consume(second.bootstrapServers(), topic, 20);
      assertEquals(20, values.size());
      assertTrue(values.stream().allMatch(v -> v.startsWith("before-restart-")), values.toString());
      produce(second.bootstrapServers(), topic, "after-restart", 5);
      assertEquals(25, consume(second.bootstrapServers(), topic, 25).size());
    }
  }

  private String clusterId() throws Exception {
    Properties meta = new Properties();
    try (var in = Files.newInputStream(stateDir.resolve("kafka").resolve("meta.properties"))) {
      meta.load(in);
    }
    return meta.getProperty("cluster.id");
  }

  private static void produce(String bootstrap, String topic, String prefix, int n) throws Exception {
    Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < n; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, prefix + "-" + i)).get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** Reads the whole topic from the start with a fresh consumer (no group). */
  private static List<String> consume(String bootstrap, String topic, int expected) {
    Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      var partitions = consumer.partitionsFor(topic).stream()
          .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
        return values.size() >= expected;
      });
    }
    return values;
  }
}
