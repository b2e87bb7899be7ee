package dev.ordo.client.stream;

import static dev.ordo.client.stream.StreamTestKit.utf8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Records of a partition run in parallel and finish out of order, but the group's committed offset
 * (what a restart or a new owner resumes from) never passes one that has not finished.
 */
@KafkaCluster
class UnfinishedRecordTest {

  @Test
  void theCommittedOffsetStaysAtARecordStillRunningWhileLaterOnesFinish(RealKafka kafka) throws Exception {
    String source = "ledger";
    String group = "ledger-workers";
    try (StreamTestKit kit = StreamTestKit.start(kafka, "unfinished", 1, source, group + ".retry")) {
      kit.produce(200, i -> new ProducerRecord<>(source, 0, utf8("k" + i), utf8("entry-" + i)));
      Map<String, Object> config = kit.config(group, source);
      config.put(StreamConsumerConfig.THREADS_CONFIG, 4);
      config.put(StreamConsumerConfig.PARTITION_MAX_IN_FLIGHT_CONFIG, 8);
      CountDownLatch release = new CountDownLatch(1);
      Set<Long> finished = ConcurrentHashMap.newKeySet();
      StreamConsumer consumer = kit.consumer(config);
      consumer.start(record -> {
        if (record.offset() == 50) {
          assertTrue(release.await(60, TimeUnit.SECONDS), "released");
        }
        finished.add(record.offset());
      });

      // Everything else finishes around the stuck record...
      await().atMost(Duration.ofSeconds(30)).until(() -> finished.size() == 199);
      TopicPartition ledger = new TopicPartition(source, 0);
      // ...and the commits go up to it, and stay there.
      await().atMost(Duration.ofSeconds(10)).until(() -> kit.committed(group).getOrDefault(ledger, -1L) == 50L);
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
          .until(() -> kit.committed(group).get(ledger) == 50L);
      assertEquals(1, consumer.stats().running(), "only the stuck record runs");

      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> kit.committed(group).get(ledger) == 200L);
      assertEquals(200, finished.size());
    }
  }

  @Test
  void aFailedRecordIsCommittedOnlyOnceItsRetryCopyIsWritten(RealKafka kafka) throws Exception {
    String source = "payments";
    String group = "payment-workers";
    // A 4 s backoff is shorter than the only tier (5 s): the delay client holds the copy in memory for 4 s
    // and writes it straight to the retry topic then. Until that write, the record is not finished.
    try (StreamTestKit kit = StreamTestKit.start(kafka, "written", "5s", 1, source, group + ".retry")) {
      kit.produce(100, i -> new ProducerRecord<>(source, 0, utf8("k" + i), utf8("payment-" + i)));
      Map<String, Object> config = kit.config(group, source);
      config.put(StreamConsumerConfig.BACKOFF_INITIAL_CONFIG, 4_000L);
      config.put(StreamConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0);
      Set<Long> finished = ConcurrentHashMap.newKeySet();
      StreamConsumer consumer = kit.consumer(config);
      consumer.start(record -> {
        if (record.sourceOffset() == 30 && !record.isRetry()) {
          throw new IllegalStateException("first attempt fails");
        }
        finished.add(record.sourceOffset());
      });
      TopicPartition payments = new TopicPartition(source, 0);
      await().atMost(Duration.ofSeconds(30)).until(() -> finished.size() == 99);
      await().atMost(Duration.ofSeconds(10)).until(() -> kit.committed(group).getOrDefault(payments, -1L) == 30L);
      // A commit past the failed record is only ever seen after its copy was written (counted before the
      // commit is sent, so reading the commit first makes this check free of races).
      await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20)).until(() -> {
        long committed = kit.committed(group).get(payments);
        long retried = consumer.stats().retried();
        assertTrue(committed <= 30 || retried == 1, "committed " + committed + " before the copy was written");
        return committed == 100;
      });
      await().atMost(Duration.ofSeconds(15)).until(() -> finished.size() == 100);
    }
  }
}
