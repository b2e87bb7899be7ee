package dev.ordo.serde;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.Ack;
import dev.ordo.schema.AttemptRecord;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.ReEntry;
import dev.ordo.schema.RecordHeader;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.schema.TopicStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

class SerdeRoundTripTest {
  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  static Item item() {
    return Item.newBuilder()
        .setNamespace("billing").setTopic("invoices").setPriority(-3).setPayload(bytes("pay"))
        .setMetadata(bytes("meta")).setDeliverAfter(1_700_000_000_000L).setLeaseDurationMs(5_000L)
        .setTtlMs(60_000L).setDeliverySemantics(DeliverySemantics.AT_MOST_ONCE).setMaxAttempts(3)
        .setGroupKey("tenant-7").setTraceId("trace-1")
        .build();
  }

  private static <T extends SpecificRecord> void roundTrip(AvroCodec<T> codec, T record) {
    byte[] encoded = codec.encode(record);
    assertEquals((byte) 0xC3, encoded[0], "single-object marker");
    assertEquals((byte) 0x01, encoded[1], "single-object marker");
    // The codec encodes with the generated classes' own encoders: byte for byte what Avro's
    // single-object encoder writes with its generic one.
    try {
      ByteBuffer avros = new BinaryMessageEncoder<T>(SpecificData.getForClass(record.getClass()), record.getSchema())
          .encode(record);
      byte[] expected = new byte[avros.remaining()];
      avros.get(expected);
      assertArrayEquals(expected, encoded, record.getSchema().getName());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertEquals(record, codec.decode(encoded));
    Serde<T> serde = OrdoSerdes.serde(codec);
    assertEquals(record, serde.deserializer().deserialize("t", serde.serializer().serialize("t", record)));
  }

  @Test
  void everyRecordTypeSurvivesARoundTrip() {
    Requester r = new Requester("consumer-1", 2);
    roundTrip(OrdoSerdes.ITEM, item());
    StoredItem stored = StoredItem.newBuilder()
        .setItem(item()).setState(ItemState.LEASED).setAttempts(2).setEnqueuedAt(1L).setReadyAt(2L)
        .setLeaseDurationMs(5_000L).setMaxAttempts(3).setSemantics(DeliverySemantics.AT_LEAST_ONCE)
        .setExpiresAt(9L).setLeaseId("a2-ff").setLeasedAt(3L).setLeaseExpiresAt(4L).setLeaseHolder(r)
        .setSidelined(true).setSlot(11L).setFlat(true).setOrdered(true)
        .setHistory(List.of(new AttemptRecord(1, 1L, 2L, "NACK", "boom")))
        .build();
    // Every field of the item table's value set to something but its default, so a field the codec lost
    // (or a new field this test does not set) fails here.
    for (org.apache.avro.Schema.Field f : StoredItem.getClassSchema().getFields()) {
      Object value = stored.get(f.pos());
      assertNotNull(value, () -> "StoredItem." + f.name() + " is not set in this test");
      if (f.hasDefaultValue()) {
        assertNotEquals(SpecificData.get().getDefaultValue(f), value, () -> "StoredItem." + f.name() + " is its default");
      }
    }
    roundTrip(OrdoSerdes.STORED_ITEM, stored);
    for (Object body : List.of(new Ack("0-1", "l"), new Nack("0-1", "l", 100L, bytes("m"), "err", false),
        new Extend("0-1", "l", 5_000L), new Release("0-1", "l", null),
        new Demand("billing", Map.of("*", 10, "invoices", 2), 3_000L, true, false, false, -1L, 0L), new ReEntry("0-1", 99L),
        new Cancel("0-1"))) {
      roundTrip(OrdoSerdes.COMMAND, new Command(r, 42L, body, true, null));
    }
    roundTrip(OrdoSerdes.DELIVERY, new Delivery("consumer-1", DeliveredItem.newBuilder()
        .setItemId("0-1").setLeaseId("l").setNamespace("n").setTopic("t").setPriority(1).setAttempt(1)
        .setPayload(bytes("p")).setEnqueuedAt(1L).setLeaseExpiresAt(2L).setSemantics(DeliverySemantics.AT_LEAST_ONCE)
        .build()));
    roundTrip(OrdoSerdes.DELIVERY, new Delivery("consumer-1",
        new Outcome("0-1", CommandKind.ACK, OutcomeResult.STALE_LEASE, "why", null, null, null, null, null)));
    roundTrip(OrdoSerdes.DELAYED_RECORD, DelayedRecord.newBuilder().setDueAt(5L).setTargetTopic("x")
        .setTargetPartition(3).setKey(bytes("k")).setValue(bytes("v"))
        .setHeaders(List.of(new RecordHeader("h", bytes("hv")), new RecordHeader("null", null)))
        .setScheduledAt(1L).build());
    roundTrip(OrdoSerdes.DEAD_LETTER, DeadLetter.newBuilder().setReason(DeadLetterReason.MALFORMED)
        .setDetail("bad").setRawValue(bytes("raw")).setSourceTopic("ordo.items").setSourcePartition(1)
        .setSourceOffset(7L).setDeadAt(8L).build());
    roundTrip(OrdoSerdes.TOPIC_STATS, TopicStats.newBuilder().setNamespace("n").setTopic("t").setPartition(0)
        .setReady(1).setDelayed(2).setLeased(3).setParked(4).setHeadPriority(-1).setOldestReadyAt(5L)
        .setUpdatedAt(6L).build());
  }

  @Test
  void aRecordThatFailsHalfEncodedLeavesNothingInTheNextOnesBytes() {
    StoredItem good = StoredItem.newBuilder()
        .setItem(item()).setState(ItemState.READY).setAttempts(0).setEnqueuedAt(1L).setReadyAt(2L)
        .setLeaseDurationMs(5_000L).setMaxAttempts(3).setSemantics(DeliverySemantics.AT_LEAST_ONCE)
        .setHistory(List.of())
        .build();
    StoredItem broken = StoredItem.newBuilder(good).build();
    broken.setState(null); // a required field, after the item: its bytes are encoded, then it fails
    assertThrows(OrdoSerdeException.class, () -> OrdoSerdes.STORED_ITEM.encode(broken));
    roundTrip(OrdoSerdes.STORED_ITEM, good); // same thread: byte for byte Avro's encoding of good
  }

  @Test
  void bytesThatAreNotARecordGiveAClearError() {
    OrdoSerdeException notAvro = assertThrows(OrdoSerdeException.class,
        () -> OrdoSerdes.ITEM.decode("hello".getBytes(StandardCharsets.UTF_8)));
    assertTrue(notAvro.getMessage().contains("Item"), notAvro.getMessage());
    OrdoSerdeException otherType = assertThrows(OrdoSerdeException.class,
        () -> OrdoSerdes.ITEM.decode(OrdoSerdes.COMMAND.encode(new Command(null, 1L, new Cancel("0-1"), false, null))));
    assertTrue(otherType.getMessage().contains("unknown schema"), otherType.getMessage());
    byte[] truncated = OrdoSerdes.ITEM.encode(item());
    assertThrows(OrdoSerdeException.class,
        () -> OrdoSerdes.ITEM.decode(java.util.Arrays.copyOf(truncated, truncated.length - 5)));
    assertThrows(OrdoSerdeException.class, () -> OrdoSerdes.ITEM.decode(null));
  }
}
