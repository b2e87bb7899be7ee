package dev.ordo.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.schema.ItemHeader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class ItemHeadersTest {
  private static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aRecordWithoutHeadersLeavesTheItemsOwnFieldAsItIs() {
    Header[] none = new RecordHeaders().toArray();
    assertNull(ItemHeaders.merge(null, none), "no headers anywhere: still null, nothing allocated");
    List<ItemHeader> own = List.of(new ItemHeader("a", utf8("1")));
    assertSame(own, ItemHeaders.merge(own, none));
    Header[] onlyReserved = {new RecordHeader("ordo.redriven.from", "1-2".getBytes(StandardCharsets.UTF_8))};
    assertSame(own, ItemHeaders.merge(own, onlyReserved), "Ordo's own headers are not the item's");
    assertNull(ItemHeaders.merge(null, onlyReserved));
  }

  @Test
  void mergeAppendsTheRecordsHeadersAfterTheItemsOwnInOrder() {
    List<ItemHeader> own = List.of(new ItemHeader("a", utf8("1")));
    Header[] record = {new RecordHeader("b", "2".getBytes(StandardCharsets.UTF_8)),
        new RecordHeader("ordo.redrive.job", "j".getBytes(StandardCharsets.UTF_8)), new RecordHeader("a", null)};
    List<ItemHeader> merged = ItemHeaders.merge(own, record);
    assertEquals(List.of(new ItemHeader("a", utf8("1")), new ItemHeader("b", utf8("2")), new ItemHeader("a", null)),
        merged);
    ItemHeaders h = ItemHeaders.fromRecords(merged);
    assertNull(h.lastValue("a"), "the last value of a repeated name, here null");
    assertEquals(2, h.values("a").size());
    assertEquals(List.of("a", "b"), List.copyOf(h.lastValues().keySet()), "names in the order they first appear");
  }

  @Test
  void sizeCountsNamesAsUtf8BytesPlusValues() {
    ItemHeaders h = ItemHeaders.builder().add("é", new byte[3]).add("😀", (byte[]) null).add("k", "v").build();
    assertEquals(2 + 3 + 4 + 0 + 1 + 1, h.sizeBytes());
    assertEquals(h.sizeBytes(), ItemHeaders.recordsSizeBytes(h.toRecords()));
    assertEquals(0, ItemHeaders.recordsSizeBytes(null));
  }

  @Test
  void recordsRoundTripAndNoHeadersIsNull() {
    assertNull(ItemHeaders.EMPTY.toRecords(), "the Avro field's default");
    assertSame(ItemHeaders.EMPTY, ItemHeaders.fromRecords(null));
    assertSame(ItemHeaders.EMPTY, ItemHeaders.builder().build());
    ItemHeaders h = ItemHeaders.ofStrings(Map.of("traceparent", "00-ab"));
    assertEquals(h, ItemHeaders.fromRecords(h.toRecords()));
    assertEquals("00-ab", h.lastString("traceparent"));
  }

  @Test
  void valuesAreCopiedAndTextIsStrictUtf8() {
    byte[] value = {1, 2};
    ItemHeaders h = ItemHeaders.builder().add("b", value).build();
    value[0] = 9;
    assertArrayEquals(new byte[] {1, 2}, h.lastValue("b"), "the builder copies");
    assertNull(ItemHeaders.utf8(new byte[] {(byte) 0xc3, 0x28}), "not valid UTF-8");
    assertEquals("zürich", ItemHeaders.utf8("zürich".getBytes(StandardCharsets.UTF_8)));
    assertThrows(IllegalArgumentException.class, () -> ItemHeaders.builder().add("", "x"));
  }
}
