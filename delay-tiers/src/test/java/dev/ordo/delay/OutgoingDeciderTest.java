package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class OutgoingDeciderTest {
  private static final DelayTiersConfig CONFIG = new DelayTiersConfig(Map.of("bootstrap.servers", "k:9092",
      DelayTiersConfig.CLUSTER_CONFIG, "shop", DelayTiersConfig.TIERS_CONFIG, "200ms,2s"));
  private static final Duration TIER = Duration.ofMillis(200);
  private static final String TIER_TOPIC = CONFIG.topics().delayTier(TIER);
  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
  private static final long APPENDED = 1_000_000;

  private final OutgoingDecider decider = new OutgoingDecider(CONFIG, TIER);
  private final TargetTopics orders = new TargetTopics(t -> {
    if (!t.equals("orders")) {
      throw new TimeoutException("no " + t);
    }
    List<PartitionInfo> list = new ArrayList<>();
    list.add(new PartitionInfo(t, 0, null, null, null));
    return list;
  });

  private static ConsumerRecord<byte[], byte[]> record(byte[] value) {
    return new ConsumerRecord<>(TIER_TOPIC, 0, 42, APPENDED, TimestampType.LOG_APPEND_TIME, KEY.length,
        value.length, KEY, value, new RecordHeaders(), Optional.empty());
  }

  private static byte[] envelope(String target, long dueAt) {
    return OrdoSerdes.DELAYED_RECORD.encode(DelayedRecords.envelope(target, null, KEY,
        "v".getBytes(StandardCharsets.UTF_8), null, dueAt, APPENDED));
  }

  private Outgoing.Produce produce(Outgoing out, Outgoing.Kind kind) {
    Outgoing.Produce produce = assertInstanceOf(Outgoing.Produce.class, out);
    assertEquals(kind, produce.kind());
    return produce;
  }

  @Test
  void aDueRecordGoesToItsTargetAndSaysHowLate() {
    long now = APPENDED + 250;
    Outgoing.Produce p = produce(decider.decide(record(envelope("orders", APPENDED + 200)), null, orders, now),
        Outgoing.Kind.TARGET);
    assertEquals("orders", p.record().topic());
    assertEquals(50, p.lateMs());
  }

  @Test
  void aRecordNotReleasedYetWaitsAtTheHead() {
    Outgoing out = decider.decide(record(envelope("orders", APPENDED + 5_000)), null, orders, APPENDED + 100);
    assertEquals(new Outgoing.Later(APPENDED + 200, false), out);
  }

  @Test
  void aMalformedRecordOrAMissingTargetIsDeadLettered() {
    long now = APPENDED + 250;
    Outgoing.Produce garbage = produce(decider.decide(record(new byte[] {7, 7}), null, orders, now),
        Outgoing.Kind.DEAD_LETTER);
    assertEquals(CONFIG.topics().dlq(), garbage.record().topic());
    produce(decider.decide(record(envelope("gone", APPENDED + 200)), null, orders, now), Outgoing.Kind.DEAD_LETTER);
  }

  @Test
  void aRecordThatCouldNotBeWrittenIsDeadLetteredWithThenWithoutItsBytesThenDropped() {
    ConsumerRecord<byte[], byte[]> r = record(envelope("orders", APPENDED + 200));
    long now = APPENDED + 250;
    Outgoing.Produce first = produce(decider.decide(r, new SendBlame.Failure(1, "too large"), orders, now),
        Outgoing.Kind.DEAD_LETTER);
    assertArrayEquals(KEY, first.record().key());
    Outgoing.Produce second = produce(decider.decide(r, new SendBlame.Failure(2, "too large"), orders, now),
        Outgoing.Kind.DEAD_LETTER);
    assertNull(second.record().key());
    assertEquals(new Outgoing.Skip(),
        decider.decide(r, new SendBlame.Failure(OutgoingDecider.MAX_SEND_FAILURES, "too large"), orders, now));
  }

  @Test
  void aSuspectNotYetBlamedIsDecidedAsUsual() {
    Outgoing out = decider.decide(record(envelope("orders", APPENDED + 200)), new SendBlame.Failure(0, "?"), orders,
        APPENDED + 250);
    produce(out, Outgoing.Kind.TARGET);
  }
}
