package dev.ordo.delay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Records on a tier topic that cannot be forwarded go to the dlq with why, and the records behind
 * them in the same partition are forwarded as usual: bad input never stops a tier.
 */
@KafkaCluster
class MalformedEnvelopeTest {
  @Test
  void unforwardableRecordsAreDeadLetteredAndTheTierGoesOn(RealKafka kafka) throws Exception {
    Map<String, Object> props = Clusters.config(kafka, "bad", "200ms,1s", "node-1");
    DelayTiersConfig config = new DelayTiersConfig(props);
    String target = "bad.target";
    String small = "bad.small";
    Clusters.createTopics(kafka, config, target);
    try (Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic(small, 1, (short) 1).configs(Map.of("max.message.bytes", "1024"))))
          .all().get(30, TimeUnit.SECONDS);
    }
    kafka.awaitTopics(small);
    String tier = config.topics().delayTier(Duration.ofMillis(200));
    long now = System.currentTimeMillis();
    byte[] garbage = "not an envelope".getBytes(StandardCharsets.UTF_8);
    byte[] badName = envelope("no spaces allowed", null, "v".getBytes(StandardCharsets.UTF_8), now);
    byte[] noSuchPartition = envelope(target, 7, "v".getBytes(StandardCharsets.UTF_8), now);
    byte[] tooLarge = envelope(small, null, new byte[4000], now);
    byte[] good = OrdoSerdes.DELAYED_RECORD.encode(DelayedRecords.envelope(target, null,
        "k".getBytes(StandardCharsets.UTF_8), "the good one".getBytes(StandardCharsets.UTF_8), null, now, now));

    try (DelayTiers tiers = new DelayTiers(config);
         Arrivals arrivals = new Arrivals(kafka.bootstrapServers(), target, config.topics().dlq());
         KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(Map.of(
             ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
             ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
             ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      tiers.start();
      await().atMost(Duration.ofSeconds(30)).until(arrivals::ready);
      // All in partition 0 of the 200ms tier, the good one last. All are due when the tier releases
      // them, so they leave in one transaction, which the too-large record fails: the producer then
      // fails the sends of the others with the same error, and only the too-large one may be blamed.
      List<byte[]> values = Arrays.asList(garbage, null, badName, noSuchPartition, tooLarge, good);
      // One batch: one append time, so the tier releases them together.
      List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
      for (byte[] value : values) {
        sent.add(raw.send(new ProducerRecord<>(tier, 0, "key".getBytes(StandardCharsets.UTF_8), value)));
      }
      raw.flush();
      for (java.util.concurrent.Future<?> f : sent) {
        f.get();
      }

      await().atMost(Duration.ofSeconds(30)).until(() -> arrivals.count() >= 6);
      List<Arrivals.Arrival> delivered = arrivals.of(target);
      assertEquals(1, delivered.size());
      assertArrayEquals("the good one".getBytes(StandardCharsets.UTF_8), delivered.get(0).record().value());

      List<DeadLetter> letters = arrivals.of(config.topics().dlq()).stream()
          .map(a -> OrdoSerdes.DEAD_LETTER.decode(a.record().value()))
          .sorted((x, y) -> Long.compare(x.getSourceOffset(), y.getSourceOffset())).toList();
      letters.forEach(l -> System.out.println("[delay-tiers] dead letter @" + l.getSourceOffset() + " "
          + l.getReason() + ": " + l.getDetail()));
      assertEquals(5, letters.size());
      assertEquals(List.of(DeadLetterReason.MALFORMED, DeadLetterReason.MALFORMED, DeadLetterReason.INVALID,
          DeadLetterReason.INVALID, DeadLetterReason.INVALID), letters.stream().map(DeadLetter::getReason).toList());
      for (int i = 0; i < 5; i++) {
        DeadLetter l = letters.get(i);
        assertEquals(tier, l.getSourceTopic());
        assertEquals(0, l.getSourcePartition());
        assertEquals(i, l.getSourceOffset());
        assertArrayEquals(values.get(i), bytes(l.getRawValue()), "raw value of offset " + i);
        assertArrayEquals("key".getBytes(StandardCharsets.UTF_8), bytes(l.getRawKey()));
      }
      assertTrue(letters.get(2).getDetail().contains("legal Kafka topic name"), letters.get(2).getDetail());
      assertTrue(letters.get(3).getDetail().contains("partition 7"), letters.get(3).getDetail());
      assertTrue(letters.get(4).getDetail().contains("RecordTooLarge"), letters.get(4).getDetail());
      await().atMost(Duration.ofSeconds(10))
          .until(() -> tiers.stats().get(Duration.ofMillis(200)).deadLettered() == 5);
    }
  }

  private static byte[] envelope(String topic, Integer partition, byte[] value, long now) {
    return OrdoSerdes.DELAYED_RECORD.encode(DelayedRecord.newBuilder().setDueAt(now).setTargetTopic(topic)
        .setTargetPartition(partition).setValue(ByteBuffer.wrap(value)).setScheduledAt(now).build());
  }

  private static byte[] bytes(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
