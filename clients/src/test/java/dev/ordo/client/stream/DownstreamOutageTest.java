package dev.ordo.client.stream;

import static dev.ordo.client.stream.StreamTestKit.utf8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A downstream outage: every record fails. Copying them all into the delay tiers would move the whole
 * stream there (Meta's Async tier: "we will clog the stream completely instead of copying it into Delay
 * service"). The clog guard pauses the stream after a few failures, probes, and lets it flow again once
 * the handler recovers, with nothing lost.
 */
@KafkaCluster
class DownstreamOutageTest {
  private static final int RECORDS = 3_000;
  private static final int MIN_RECORDS = 20;
  private static final int MAX_IN_FLIGHT = 16;

  @Test
  void aFullOutageClogsTheStreamInsteadOfFloodingTheTiersAndRecoveryResumesIt(RealKafka kafka) throws Exception {
    String source = "events";
    String group = "event-workers";
    String retry = group + ".retry";
    try (StreamTestKit kit = StreamTestKit.start(kafka, "outage", 3, source, retry)) {
      kit.produce(RECORDS, i -> new ProducerRecord<>(source, utf8("k" + i), utf8("event-" + i)));
      Map<String, Object> config = kit.config(group, source);
      config.put(StreamConsumerConfig.THREADS_CONFIG, 4);
      config.put(StreamConsumerConfig.MAX_IN_FLIGHT_CONFIG, MAX_IN_FLIGHT);
      config.put(StreamConsumerConfig.PARTITION_MAX_IN_FLIGHT_CONFIG, 8);
      config.put(StreamConsumerConfig.MAX_ATTEMPTS_CONFIG, 50); // the outage must not dead-letter anything
      // Every copy comes back after 500 ms: one record in the 500ms tier each.
      config.put(StreamConsumerConfig.BACKOFF_INITIAL_CONFIG, 500L);
      config.put(StreamConsumerConfig.BACKOFF_MAX_CONFIG, 500L);
      config.put(StreamConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0);
      config.put(StreamConsumerConfig.CLOG_MIN_RECORDS_CONFIG, MIN_RECORDS);
      config.put(StreamConsumerConfig.CLOG_FAILURE_RATIO_CONFIG, 0.9);
      config.put(StreamConsumerConfig.CLOG_PROBE_INITIAL_CONFIG, 200L);
      config.put(StreamConsumerConfig.CLOG_PROBE_MAX_CONFIG, 1_000L);

      AtomicBoolean down = new AtomicBoolean(true);
      AtomicInteger runs = new AtomicInteger();
      Set<String> done = ConcurrentHashMap.newKeySet();
      StreamConsumer consumer = kit.consumer(config);
      consumer.start(record -> {
        runs.incrementAndGet();
        if (down.get()) {
          throw new IOException("downstream unavailable");
        }
        done.add(record.sourcePartition() + "@" + record.sourceOffset());
      });

      // The guard clogs the stream and probes it, with growing backoff (200, 400, 800 ms).
      await().atMost(Duration.ofSeconds(30)).until(() -> consumer.stats().clogs() == 1 && consumer.stats().probes() >= 3);
      assertTrue(consumer.clogState() != ClogState.FLOWING);
      int tierRecords = kit.readAll(kit.tierTopics().toArray(String[]::new)).size();
      long committedWhileDown = kit.committed(group).entrySet().stream()
          .filter(e -> e.getKey().topic().equals(source)).mapToLong(Map.Entry::getValue).sum();
      int runsWhileDown = runs.get();
      StreamConsumerStats whileDown = consumer.stats(); // read last: its counts only grow
      System.out.printf("[stream] outage: %d handler runs over %d records, %d records written to the tiers; %s%n",
          runsWhileDown, RECORDS, tierRecords, whileDown);
      // Copies into the tiers: the failures before the guard reacted (19: the 20th clogged the stream),
      // plus one per failed probe. Without the guard, all 3,000 records would have gone there, and again
      // at every attempt.
      assertTrue(whileDown.retried() <= MIN_RECORDS + whileDown.probes(), "copied " + whileDown.retried());
      assertTrue(tierRecords >= MIN_RECORDS - 1 && tierRecords <= MIN_RECORDS + whileDown.probes(),
          tierRecords + " tier records");
      assertTrue(runsWhileDown < RECORDS / 20, runsWhileDown + " handler runs while down: the stream ran on");
      // Only the copied records were committed past; the clogged ones stay uncommitted.
      assertTrue(committedWhileDown <= whileDown.retried(), "the commits passed " + committedWhileDown
          + " records, more than were copied (" + whileDown.retried() + ")");
      // Still clogged a while later: no flood meanwhile.
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
          .until(() -> consumer.stats().retried() <= MIN_RECORDS + consumer.stats().probes());

      down.set(false);
      await().atMost(Duration.ofSeconds(60)).until(() -> done.size() == RECORDS);
      StreamConsumerStats after = consumer.stats();
      System.out.printf("[stream] after recovery: %d runs for %d records; %s%n", runs.get(), RECORDS, after);
      assertEquals(ClogState.FLOWING, consumer.clogState());
      assertEquals(0, after.deadLettered());
      assertTrue(after.retried() <= MIN_RECORDS + after.probes(), "no flood after the recovery: " + after.retried());
      kit.awaitFullyCommitted(group, source);
      kit.awaitFullyCommitted(group, retry);
      assertTrue(kit.deadLetters().isEmpty());
      for (TopicPartition tp : kit.endOffsets(source).keySet()) {
        assertTrue(done.stream().anyMatch(d -> d.startsWith(tp.partition() + "@")), "partition " + tp + " ran");
      }
    }
  }
}
