package dev.ordo.connect;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueItem;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.QueueService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sink task restarted after a failure sends again the records whose offsets were not committed
 * (Connect's at-least-once, decisions D28); with {@code ordo.dedup.id} mapped to the records' event
 * ids, the queue takes each event in once (decisions D57). The task runs here without a worker, on a
 * real cluster and queue: what the worker does on a restart is to hand the same records to a new task.
 */
@KafkaCluster
class SinkRestartDuplicatesTest {
  private static final String CLUSTER = "sinkdedup";
  private static final int PARTITIONS = 3;
  private static RealKafka kafka;
  private static Path stateDir;
  private static QueueService queue;

  @BeforeAll
  static void start(RealKafka cluster) throws Exception {
    kafka = cluster;
    ClusterTopics topics = new ClusterTopics(CLUSTER);
    kafka.createTopics(PARTITIONS, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(),
        topics.topicStats());
    kafka.createTopics(1, topics.namespaces());
    stateDir = Files.createTempDirectory("ordo-sinkdedup");
    queue = new QueueService(Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()),
        Map.of(QueueConfig.CLUSTER_CONFIG, CLUSTER, QueueConfig.STATS_MS_CONFIG, 200L), PARTITIONS);
    queue.start();
    await().atMost(Duration.ofSeconds(60)).until(queue::isRunning);
  }

  @AfterAll
  static void stop() {
    queue.close();
  }

  private static OrdoSinkTask task() {
    OrdoSinkTask task = new OrdoSinkTask();
    task.initialize(new NoContext());
    Map<String, String> props = new HashMap<>();
    props.put("ordo.bootstrap.servers", kafka.bootstrapServers());
    props.put("ordo.cluster", CLUSTER);
    props.put("ordo.namespace", "events");
    props.put("ordo.topic", "field:kind");
    props.put("ordo.dedup.id", "field:event_id");
    task.start(props);
    return task;
  }

  private static List<SinkRecord> records(int from, int to) {
    List<SinkRecord> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(new SinkRecord("source", 0, Schema.STRING_SCHEMA, "k", null,
          Map.of("kind", "signup", "event_id", "evt-" + i, "n", i), i));
    }
    return out;
  }

  @Test
  void recordsSentAgainByARestartedTaskAreEnqueuedOnce() throws Exception {
    OrdoSinkTask first = task();
    first.put(records(0, 20));
    first.preCommit(Map.of(new TopicPartition("source", 0), new org.apache.kafka.clients.consumer.OffsetAndMetadata(20)));
    first.stop(); // as if it failed before the worker committed the offsets: they will come again

    OrdoSinkTask restarted = task();
    restarted.put(records(0, 30)); // the 20 again, then 10 new
    restarted.preCommit(Map.of(new TopicPartition("source", 0), new org.apache.kafka.clients.consumer.OffsetAndMetadata(30)));
    restarted.stop();

    await().atMost(Duration.ofSeconds(30))
        .until(() -> queue.metrics().get(QueueMetrics.DEDUP_DUPLICATE) >= 20);
    Set<String> payloads = new TreeSet<>();
    int delivered = 0;
    try (QueueClient client = new QueueClient(Map.of("bootstrap.servers", kafka.bootstrapServers(),
        QueueClientConfig.CLUSTER_CONFIG, CLUSTER))) {
      while (true) {
        List<QueueItem> got = client.dequeue("events", "signup", 50, Duration.ofSeconds(delivered == 0 ? 5 : 1))
            .get(30, TimeUnit.SECONDS);
        if (got.isEmpty()) {
          break;
        }
        delivered += got.size();
        for (QueueItem d : got) {
          payloads.add(new String(d.payload(), StandardCharsets.UTF_8));
        }
      }
    }
    assertEquals(30, delivered, "each event once: " + payloads);
    assertEquals(30, payloads.size());
    assertEquals(20, queue.metrics().get(QueueMetrics.DEDUP_DUPLICATE), "the 20 sent again were refused");
  }

  /** A task context with nothing behind it: no errant-record reporter, no metrics. */
  private static final class NoContext implements SinkTaskContext {
    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {}

    @Override
    public void offset(TopicPartition tp, long offset) {}

    @Override
    public void timeout(long timeoutMs) {}

    @Override
    public Set<TopicPartition> assignment() {
      return Set.of(new TopicPartition("source", 0));
    }

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
