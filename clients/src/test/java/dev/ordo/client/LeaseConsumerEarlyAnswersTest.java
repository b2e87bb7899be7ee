package dev.ordo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ordo.reply.early.all} (decisions D49): a lease consumer's deliveries and outcomes go outside the
 * stream thread's transaction, so under exactly-once they reach it with no commit at all. The queue
 * here commits once a minute and never for an answer, so items handled within seconds went early.
 */
@KafkaCluster
class LeaseConsumerEarlyAnswersTest extends LeaseConsumerTestBase {
  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    queue = TestQueue.start(kafka, "lce",
        Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2,
            StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 60_000L,
            StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 120_000),
        Map.of(QueueConfig.REPLY_EARLY_ALL_CONFIG, true, QueueConfig.REPLY_COMMIT_GAP_CONFIG, -1L));
    producer = new QueueProducer(queue.producerConfig());
  }

  @Test
  void aLeaseConsumersItemsReachItBeforeAnyCommit() {
    Set<ItemId> handled = ConcurrentHashMap.newKeySet();
    LeaseConsumer c = consumer("early-group", "early", Map.of());
    c.start(item -> handled.add(item.id()));
    awaitAssigned(c);
    Set<ItemId> ids = enqueue("early", 40, i -> item("early", "e-" + i));

    // Well inside the minute before the first regular commit.
    await().atMost(Duration.ofSeconds(30)).until(() -> handled.containsAll(ids));
    await().atMost(Duration.ofSeconds(10)).until(() -> c.stats().acked() == ids.size());
    assertEquals(ids, handled);
    assertTrue(queue.metrics().get(QueueMetrics.EARLY_ANSWERS) >= 1, "the deliveries went early");
    assertEquals(0, queue.metrics().get(QueueMetrics.COMMITTED_ANSWERS), "nothing for the consumer waited for a commit");
  }
}
