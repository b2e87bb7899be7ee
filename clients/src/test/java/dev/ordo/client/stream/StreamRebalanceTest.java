package dev.ordo.client.stream;

import static dev.ordo.client.stream.StreamTestKit.utf8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Partitions move while records run and retry copies are being written: a member joins mid-stream
 * (cooperative rebalance, the old owner waits for the moving partitions' records and commits) and the
 * first member leaves. No record is lost, the group ends fully committed, and few run twice.
 */
@KafkaCluster
class StreamRebalanceTest {
  private static final int RECORDS = 4_000;

  @Test
  void recordsRunningWhenPartitionsMoveAreNeitherLostNorLeftUncommitted(RealKafka kafka) throws Exception {
    String source = "clicks";
    String group = "click-workers";
    String retry = group + ".retry";
    try (StreamTestKit kit = StreamTestKit.start(kafka, "moving", 4, source, retry)) {
      kit.produce(RECORDS, i -> new ProducerRecord<>(source, utf8("k" + i), utf8("click-" + i)));
      Map<String, Object> config = kit.config(group, source);
      config.put(StreamConsumerConfig.THREADS_CONFIG, 2);
      config.put(StreamConsumerConfig.BACKOFF_INITIAL_CONFIG, 300L);
      Map<String, Integer> runs = new ConcurrentHashMap<>();
      StreamHandler handler = record -> {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // the work
        if (record.sourceOffset() % 100 == 7 && !record.isRetry()) {
          throw new IllegalStateException("fails once");
        }
        runs.merge(record.sourcePartition() + "@" + record.sourceOffset(), 1, Integer::sum);
      };
      StreamConsumer first = kit.consumer(config);
      first.start(handler);
      await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() >= 500);

      StreamConsumer second = kit.consumer(config);
      second.start(handler);
      await().atMost(Duration.ofSeconds(30)).until(() -> !second.assignment().isEmpty() && runs.size() >= 1_500);
      assertTrue(runs.size() < RECORDS, "the second member joined mid-stream");
      first.close(Duration.ofSeconds(5));
      await().atMost(Duration.ofSeconds(30)).until(() -> second.assignment().size() == 8);

      await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() == RECORDS);
      kit.awaitFullyCommitted(group, source);
      kit.awaitFullyCommitted(group, retry);
      int twice = runs.values().stream().mapToInt(n -> n - 1).sum();
      System.out.printf("[stream] %d records over two rebalances: %d ran more than once; first %s, second %s%n",
          RECORDS, twice, first.stats(), second.stats());
      assertTrue(twice <= 32, twice + " records ran twice: the hand-over should finish what runs");
      long failing = kit.endOffsets(source).values().stream().mapToLong(end -> (end + 92) / 100).sum(); // offsets 7, 107...
      assertEquals(failing, first.stats().retried() + second.stats().retried(), "one copy per failing record");
      assertTrue(kit.deadLetters().isEmpty());
    }
  }
}
