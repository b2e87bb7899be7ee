package dev.ordo.client.stream;

import static dev.ordo.client.stream.StreamTestKit.text;
import static dev.ordo.client.stream.StreamTestKit.utf8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * A record that always fails, among 10,000 good ones: it must neither stop its partition nor be lost.
 * It goes round through the delay tiers up to its last attempt, then to the dlq with its last error and
 * raw bytes, while everything else is handled.
 */
@KafkaCluster
class PoisonRecordTest {
  private static final int RECORDS = 10_000;
  private static final int POISON = 4_321;
  private static final int MAX_ATTEMPTS = 4;

  @Test
  void onePoisonRecordAmongTenThousandDoesNotStopTheRestAndEndsInTheDlq(RealKafka kafka) throws Exception {
    String source = "orders";
    String group = "order-workers";
    try (StreamTestKit kit = StreamTestKit.start(kafka, "poison", 3, source, group + ".retry")) {
      List<RecordMetadata> produced = kit.produce(RECORDS, i -> {
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", utf8("t-" + i));
        return new ProducerRecord<>(source, null, utf8("k" + i), utf8(i == POISON ? "poison" : "order-" + i), headers);
      });
      RecordMetadata poisonAt = produced.get(POISON);

      Map<String, Object> config = kit.config(group, source);
      config.put(StreamConsumerConfig.MAX_ATTEMPTS_CONFIG, MAX_ATTEMPTS);
      config.put(StreamConsumerConfig.BACKOFF_INITIAL_CONFIG, 250L); // 250, 500, 1000 ms: through the tiers
      config.put(StreamConsumerConfig.BACKOFF_MAX_CONFIG, 1_000L);
      config.put(StreamConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0);
      config.put(StreamConsumerConfig.THREADS_CONFIG, 4);
      config.put(StreamConsumerConfig.PARTITION_MAX_IN_FLIGHT_CONFIG, 8);
      Set<String> handled = ConcurrentHashMap.newKeySet();
      List<StreamRecord> poisonRuns = new CopyOnWriteArrayList<>();
      StreamConsumer consumer = kit.consumer(config);
      long start = System.nanoTime();
      consumer.start(record -> {
        String value = text(record.value());
        if (value.equals("poison")) {
          poisonRuns.add(record);
          throw new IllegalStateException("cannot parse order (attempt " + record.attempt() + ")");
        }
        handled.add(value);
      });

      await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == RECORDS - 1);
      long handledMs = (System.nanoTime() - start) / 1_000_000;
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> !kit.deadLetters().isEmpty());
      System.out.printf("[stream] %d records handled in %d ms; the poison record was dead-lettered after %d ms; %s%n",
          RECORDS - 1, handledMs, (System.nanoTime() - start) / 1_000_000, consumer.stats());

      List<DeadLetter> dead = kit.deadLetters();
      assertEquals(1, dead.size(), "only the poison record is dead");
      DeadLetter d = dead.get(0);
      assertEquals(DeadLetterReason.MAX_ATTEMPTS, d.getReason());
      assertEquals(MAX_ATTEMPTS, d.getAttempts());
      assertEquals("java.lang.IllegalStateException: cannot parse order (attempt 4)", d.getLastError());
      assertArrayEquals(utf8("poison"), bytes(d.getRawValue()));
      assertArrayEquals(utf8("k" + POISON), bytes(d.getRawKey()));
      assertEquals(source, d.getSourceTopic());
      assertEquals(poisonAt.partition(), d.getSourcePartition());
      assertEquals(poisonAt.offset(), d.getSourceOffset());

      // Every attempt ran once, the retries read from the retry topic with the original's coordinates,
      // headers and the previous attempt's error.
      assertEquals(List.of(1, 2, 3, 4), poisonRuns.stream().map(StreamRecord::attempt).toList());
      for (StreamRecord run : poisonRuns.subList(1, MAX_ATTEMPTS)) {
        assertEquals(group + ".retry", run.topic());
        assertEquals(source, run.sourceTopic());
        assertEquals(poisonAt.partition(), run.sourcePartition());
        assertEquals(poisonAt.offset(), run.sourceOffset());
        assertEquals("java.lang.IllegalStateException: cannot parse order (attempt " + (run.attempt() - 1) + ")",
            run.previousError());
        assertNotNull(run.headers().lastHeader("trace"));
        assertEquals("t-" + POISON, text(run.headers().lastHeader("trace").value()));
      }
      int tierRecords = kit.readAll(kit.tierTopics().toArray(String[]::new)).size();
      assertTrue(tierRecords >= MAX_ATTEMPTS - 1, "the retries went through the tiers: " + tierRecords + " tier records");

      StreamConsumerStats stats = consumer.stats();
      assertEquals(RECORDS - 1, stats.handled());
      assertEquals(MAX_ATTEMPTS, stats.failed());
      assertEquals(MAX_ATTEMPTS - 1, stats.retried());
      assertEquals(1, stats.deadLettered());
      assertEquals(0, stats.clogs(), "one failure in 10,000 is no outage");
      kit.awaitFullyCommitted(group, source);
      kit.awaitFullyCommitted(group, group + ".retry");
    }
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
