package dev.ordo.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.api.ItemHeaders;
import dev.ordo.schema.AttemptRecord;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemHeader;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * Records written before item headers existed (the schema history's Item-v2, StoredItem-v2,
 * Delivery-v2 and DeadLetter-v1) still decode, with no headers; and headers round-trip today.
 */
class HeadersSchemaCompatTest {
  static Schema history(String file) throws Exception {
    try (InputStream in = HeadersSchemaCompatTest.class.getResourceAsStream("/dev/ordo/schema/history/" + file)) {
      return new Schema.Parser().parse(in);
    }
  }

  /**
   * {@code record}'s bytes as a writer on {@code old} wrote them: the record projected onto the old
   * schema (Avro resolution drops what the old one lacks), in the single-object encoding.
   */
  static byte[] writtenWith(Schema old, SpecificRecord record) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
    new SpecificDatumWriter<SpecificRecord>(record.getSchema()).write(record, enc);
    enc.flush();
    GenericRecord projected = new GenericDatumReader<GenericRecord>(record.getSchema(), old)
        .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
    ByteBuffer buf = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), old).encode(projected);
    byte[] bytes = new byte[buf.remaining()];
    buf.get(bytes);
    return bytes;
  }

  private static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private static Item item(List<ItemHeader> headers) {
    return Item.newBuilder().setNamespace("shop").setTopic("mails").setPriority(3).setPayload(utf8("hi"))
        .setGroupKey("g").setTraceId("t1").setHeaders(headers).build();
  }

  private static StoredItem stored(Item item) {
    return StoredItem.newBuilder().setItem(item).setState(ItemState.READY).setAttempts(1).setEnqueuedAt(10)
        .setReadyAt(10).setLeaseDurationMs(1_000).setMaxAttempts(5).setSemantics(DeliverySemantics.AT_LEAST_ONCE)
        .setHistory(List.of(new AttemptRecord(1, 11L, 12L, "NACKED", "boom")))
        .build();
  }

  @Test
  void theHistoryFilesAreTheSchemasBeforeHeaders() throws Exception {
    for (String[] f : new String[][] {{"Item-v2.avsc", "Item"}, {"StoredItem-v2.avsc", "StoredItem"},
        {"Delivery-v2.avsc", "Delivery"}, {"DeadLetter-v1.avsc", "DeadLetter"}}) {
      Schema old = history(f[0]);
      assertEquals("dev.ordo.schema." + f[1], old.getFullName());
      assertNotEquals(SchemaNormalization.parsingFingerprint64(old), SchemaNormalization.parsingFingerprint64(
          new Schema.Parser().parse(current(f[1]).toString())), f[0] + " differs from today's on the wire");
    }
    assertNull(history("Item-v2.avsc").getField("headers"));
  }

  private static Schema current(String name) {
    return switch (name) {
      case "Item" -> Item.getClassSchema();
      case "StoredItem" -> StoredItem.getClassSchema();
      case "Delivery" -> Delivery.getClassSchema();
      default -> DeadLetter.getClassSchema();
    };
  }

  @Test
  void anItemWrittenBeforeHeadersIsReadWithNone() throws Exception {
    Item read = OrdoSerdes.ITEM.decode(writtenWith(history("Item-v2.avsc"), item(null)));
    assertEquals("mails", read.getTopic());
    assertEquals("t1", read.getTraceId());
    assertNull(read.getHeaders(), "the new field takes its default");
  }

  @Test
  void aStoredItemWrittenBeforeHeadersIsReadWithNone() throws Exception {
    StoredItem read = OrdoSerdes.STORED_ITEM.decode(writtenWith(history("StoredItem-v2.avsc"), stored(item(null))));
    assertEquals(stored(item(null)), read, "every other field as written");
    assertNull(read.getItem().getHeaders());
  }

  @Test
  void aDeliveryWrittenBeforeHeadersIsReadWithNone() throws Exception {
    DeliveredItem d = DeliveredItem.newBuilder().setItemId("0-1").setLeaseId("l").setNamespace("shop")
        .setTopic("mails").setPriority(0).setAttempt(1).setPayload(utf8("x")).setEnqueuedAt(1).setLeaseExpiresAt(2)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE).build();
    Delivery read = OrdoSerdes.DELIVERY.decode(writtenWith(history("Delivery-v2.avsc"), new Delivery("c1", d)));
    assertEquals(d, read.getBody());
    assertNull(((DeliveredItem) read.getBody()).getHeaders());
  }

  @Test
  void aDeadLetterWrittenBeforeHeadersIsReadWithNone() throws Exception {
    DeadLetter dl = DeadLetter.newBuilder().setReason(DeadLetterReason.MAX_ATTEMPTS).setItemId("0-1")
        .setItem(item(null)).setAttempts(5).setDeadAt(99).build();
    DeadLetter read = OrdoSerdes.DEAD_LETTER.decode(writtenWith(history("DeadLetter-v1.avsc"), dl));
    assertEquals(dl, read);
    assertNull(read.getItem().getHeaders());
  }

  @Test
  void headersRoundTripInOrderWithRepeatedNamesBinaryAndNullValues() {
    List<ItemHeader> headers = List.of(new ItemHeader("traceparent", utf8("00-ab-cd-01")),
        new ItemHeader("tag", utf8("a")), new ItemHeader("tag", utf8("b")),
        new ItemHeader("bin", ByteBuffer.wrap(new byte[] {(byte) 0xff, 0})), new ItemHeader("none", null));
    StoredItem read = OrdoSerdes.STORED_ITEM.decode(OrdoSerdes.STORED_ITEM.encode(stored(item(headers))));
    ItemHeaders h = ItemHeaders.fromRecords(read.getItem().getHeaders());
    assertEquals(ItemHeaders.builder().add("traceparent", "00-ab-cd-01").add("tag", "a").add("tag", "b")
        .add("bin", new byte[] {(byte) 0xff, 0}).add("none", (byte[]) null).build(), h);
    assertEquals("b", h.lastString("tag"));
    assertNull(h.lastString("bin"), "not UTF-8");
    assertNotNull(h.lastValue("bin"));
    assertEquals(11 + 11 + 4 + 4 + 3 + 2 + 4, h.sizeBytes(), "names' UTF-8 bytes plus values' bytes");
  }
}
