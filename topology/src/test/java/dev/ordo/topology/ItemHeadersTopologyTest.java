package dev.ordo.topology;

import static dev.ordo.topology.QueueDriver.ALICE;
import static dev.ordo.topology.QueueDriver.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemHeaders;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemHeader;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Kafka headers of an item's enqueue record stay with the item through its whole life. */
class ItemHeadersTopologyTest {
  private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private QueueDriver q = new QueueDriver();

  @AfterEach
  void close() {
    q.close();
  }

  /** traceparent, a repeated name, a binary value, a null value, and Ordo's own redrive link. */
  private static RecordHeaders headers() {
    RecordHeaders h = new RecordHeaders();
    h.add("traceparent", TRACEPARENT.getBytes(StandardCharsets.UTF_8));
    h.add("tag", "a".getBytes(StandardCharsets.UTF_8));
    h.add("tag", "b".getBytes(StandardCharsets.UTF_8));
    h.add("bin", new byte[] {(byte) 0xff, 0, (byte) 0xfe});
    h.add("empty", null);
    h.add("ordo.redriven.from", "3-9".getBytes(StandardCharsets.UTF_8));
    return h;
  }

  /** What the item keeps of {@link #headers()}: everything but the reserved name, in order. */
  private static ItemHeaders kept() {
    return ItemHeaders.builder()
        .add("traceparent", TRACEPARENT)
        .add("tag", "a")
        .add("tag", "b")
        .add("bin", new byte[] {(byte) 0xff, 0, (byte) 0xfe})
        .add("empty", (byte[]) null)
        .build();
  }

  private DeliveredItem one() {
    List<DeliveredItem> ds = q.delivered();
    assertEquals(1, ds.size(), "expected exactly one delivery, got " + ds);
    return ds.get(0);
  }

  private static ItemHeaders of(DeliveredItem d) {
    return ItemHeaders.fromRecords(d.getHeaders());
  }

  @Test
  void headersOfTheEnqueueRecordAreDeliveredWithTheItemInOrderWithoutReservedNames() {
    String id = q.enqueue(item("t", 0).build(), headers());
    q.demand(ALICE, "t", 1);
    DeliveredItem d = one();
    assertEquals(id, d.getItemId());
    assertEquals(kept(), of(d));
    assertEquals(TRACEPARENT, of(d).lastString("traceparent"));
    assertEquals("b", of(d).lastString("tag"), "the last of a repeated name, as Kafka's lastHeader");
  }

  @Test
  void anItemWithoutHeadersIsDeliveredWithNone() {
    q.enqueue(item("t", 0).build());
    q.demand(ALICE, "t", 1);
    assertNull(one().getHeaders(), "null, not an empty list: nothing is allocated for it");
  }

  @Test
  void headersInTheItemRecordComeFirstThenTheRecordsKafkaHeaders() {
    Item withField = item("t", 0)
        .setHeaders(List.of(new ItemHeader("origin", ByteBuffer.wrap("field".getBytes(StandardCharsets.UTF_8)))))
        .build();
    RecordHeaders h = new RecordHeaders();
    h.add("traceparent", TRACEPARENT.getBytes(StandardCharsets.UTF_8));
    q.enqueue(withField, h);
    q.demand(ALICE, "t", 1);
    assertEquals(ItemHeaders.builder().add("origin", "field").add("traceparent", TRACEPARENT).build(), of(one()));
  }

  @Test
  void headersSurviveANackWithADelayAndTheRedelivery() {
    String id = q.enqueue(item("t", 0).build(), headers());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.nack(one(), 100, "m2");
    q.advance(Duration.ofMillis(150));
    DeliveredItem again = one();
    assertEquals(id, again.getItemId());
    assertEquals(2, again.getAttempt());
    assertEquals(kept(), of(again));
  }

  @Test
  void headersSurviveALongDelayThroughTheTiersAndTheReEntry() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.DELAY_TIERS_CONFIG, "200ms,1s"));
    String id = q.enqueue(item("t", 0).build(), headers());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.nack(one(), 1_500, null);
    DelayedRecord env = q.tier("ordo.delay.1s").get(0);
    q.advance(Duration.ofMillis(1_600));
    assertTrue(q.delivered().isEmpty(), "a parked item waits for its re-entry");
    q.commandRaw(env.getValue().array());
    DeliveredItem d = one();
    assertEquals(id, d.getItemId());
    assertEquals(kept(), of(d));
  }

  @Test
  void headersSurviveALeaseExpiryAndARelease() {
    q.enqueue(item("t", 0).setLeaseDurationMs(100L).build(), headers());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    assertEquals(kept(), of(one()));
    q.advance(Duration.ofMillis(120));
    DeliveredItem expired = one();
    assertEquals(2, expired.getAttempt(), "redelivered after its lease expired");
    assertEquals(kept(), of(expired));
    q.release(expired);
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    DeliveredItem released = one();
    assertEquals(kept(), of(released));
  }

  @Test
  void theHeadersStayOnTheItemsTopicTheStateLogKeepsOnlyTheItemsState() {
    q.enqueue(item("t", 0).setDeliverAfter(q.now() + 60_000).build(), headers());
    List<dev.ordo.schema.ItemStateEntry> entries = q.changelogRecords().stream()
        .filter(r -> r.key()[0] == dev.ordo.store.internal.KeyFamily.STATE_BLOCK && r.value() != null)
        .flatMap(r -> dev.ordo.store.PriorityStore.stateBlockEntries(r.value()).stream()).toList();
    assertEquals(1, entries.size(), "one item's state in the changelog");
    assertEquals(dev.ordo.schema.ItemState.DELAYED, entries.get(0).getState());
    // A rebuild takes the item, its headers merged, from its record (KafkaItemSourceTest).
  }

  @Test
  void aDeadLetterKeepsTheHeadersInItsItemAndAsKafkaHeaders() {
    String id = q.enqueue(item("t", 0).setMaxAttempts(1).build(), headers());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.nack(one(), 0, null);
    List<TestRecord<byte[], byte[]>> records = q.deadLetterRecords();
    assertEquals(1, records.size());
    DeadLetter dl = OrdoSerdes.DEAD_LETTER.decode(records.get(0).value());
    assertEquals(id, dl.getItemId());
    assertEquals(kept(), ItemHeaders.fromRecords(dl.getItem().getHeaders()), "a redrive sends the item with them");
    assertEquals(TRACEPARENT,
        new String(records.get(0).headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8));
    assertEquals(5, records.get(0).headers().toArray().length, "every kept header on the record");
  }

  @Test
  void ttlDeadLetterKeepsTheHeaders() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.TTL_DEAD_LETTER_CONFIG, true));
    q.enqueue(item("t", 0).setTtlMs(100L).build(), headers());
    q.advance(Duration.ofMillis(120));
    DeadLetter dl = q.deadLetters().get(0);
    assertEquals(DeadLetterReason.TTL_EXPIRED, dl.getReason());
    assertEquals(kept(), ItemHeaders.fromRecords(dl.getItem().getHeaders()));
  }

  @Test
  void headersOverTheLimitAreDeadLetteredWithTheRecordAndItsHeaders() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.HEADERS_MAX_BYTES_CONFIG, 64));
    RecordHeaders big = new RecordHeaders();
    big.add("traceparent", TRACEPARENT.getBytes(StandardCharsets.UTF_8)); // 11 + 55 bytes
    String id = q.enqueue(item("t", 0).build(), big);
    q.demand(ALICE, "t", 1);
    assertTrue(q.delivered().isEmpty(), "never stored nor delivered");
    List<TestRecord<byte[], byte[]>> records = q.deadLetterRecords();
    assertEquals(1, records.size());
    DeadLetter dl = OrdoSerdes.DEAD_LETTER.decode(records.get(0).value());
    assertEquals(DeadLetterReason.INVALID, dl.getReason());
    assertEquals(id, dl.getItemId());
    assertTrue(dl.getDetail().contains("headers of 66 bytes are over the limit of 64"), dl.getDetail());
    assertNotNull(dl.getRawValue(), "the raw record is kept");
    assertEquals(TRACEPARENT,
        new String(records.get(0).headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8),
        "and its headers, on the dead letter's record");
  }

  @Test
  void aReservedNameInTheItemRecordsOwnHeadersIsRefused() {
    Item bad = item("t", 0)
        .setHeaders(List.of(new ItemHeader("ordo.redriven.from", ByteBuffer.wrap(new byte[] {1}))))
        .build();
    q.enqueue(bad);
    DeadLetter dl = q.deadLetters().get(0);
    assertEquals(DeadLetterReason.INVALID, dl.getReason());
    assertTrue(dl.getDetail().contains("'ordo.redriven.from' is reserved"), dl.getDetail());
  }
}
