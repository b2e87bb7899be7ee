package dev.ordo.api;

import dev.ordo.schema.ItemHeader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.header.Header;

/**
 * The headers kept with an item: the Kafka headers of the record that enqueued it (for example a W3C
 * {@code traceparent}), delivered with the item on every lease, through nacks, delays, restarts and
 * the dead-letter topic. Immutable.
 *
 * <p>As in Kafka, a header is a name and a byte value (which may be null), names may repeat, and the
 * order is kept; {@link #lastValue} reads the last value of a name, as Kafka's {@code lastHeader}
 * does. Names starting with {@value #RESERVED_PREFIX} are Ordo's own (e.g. {@code ordo.redriven.from}
 * on a redriven item's record): they describe a Kafka record, not the item, so they are not kept
 * with an item and an enqueue refuses them.
 *
 * <p>Size: {@link #sizeBytes()} counts every name's UTF-8 bytes and every value's bytes; the queue
 * refuses items over {@code ordo.headers.max.bytes} (default 8 KiB).
 */
public final class ItemHeaders {
  /** Header names with this prefix are Ordo's own and are not kept with items. */
  public static final String RESERVED_PREFIX = "ordo.";

  /** No headers: what an item without any has (shared, nothing allocated). */
  public static final ItemHeaders EMPTY = new ItemHeaders(List.of());

  /** One header: a name and a value (null allowed, as in Kafka). */
  public record Entry(String name, byte[] value) {
    public Entry {
      Objects.requireNonNull(name, "header name");
    }

    /** The value as UTF-8 text, or null when it is null or not valid UTF-8. */
    public String valueAsString() {
      return utf8(value);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e && name.equals(e.name) && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
      return 31 * name.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      String text = valueAsString();
      return name + "=" + (value == null ? "null" : text != null ? text : "<" + value.length + " bytes>");
    }
  }

  private final List<Entry> entries;

  private ItemHeaders(List<Entry> entries) {
    this.entries = entries;
  }

  /** Headers from names and UTF-8 text values, in the map's order. */
  public static ItemHeaders ofStrings(Map<String, String> headers) {
    if (headers == null || headers.isEmpty()) {
      return EMPTY;
    }
    Builder b = builder();
    headers.forEach(b::add);
    return b.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  public int size() {
    return entries.size();
  }

  /** Every header, in order, repeated names included. */
  public List<Entry> entries() {
    return entries;
  }

  /** The last value of {@code name}, or null when there is none (or it is null). */
  public byte[] lastValue(String name) {
    for (int i = entries.size() - 1; i >= 0; i--) {
      if (entries.get(i).name().equals(name)) {
        return entries.get(i).value();
      }
    }
    return null;
  }

  /** The last value of {@code name} as UTF-8 text; null when none, null, or not valid UTF-8. */
  public String lastString(String name) {
    return utf8(lastValue(name));
  }

  /** Every value of {@code name}, in order. */
  public List<byte[]> values(String name) {
    List<byte[]> values = new ArrayList<>();
    for (Entry e : entries) {
      if (e.name().equals(name)) {
        values.add(e.value());
      }
    }
    return values;
  }

  /** The last value of each name, in the order names first appear. */
  public Map<String, byte[]> lastValues() {
    Map<String, byte[]> map = new LinkedHashMap<>();
    for (Entry e : entries) {
      map.put(e.name(), e.value());
    }
    return map;
  }

  /** The bytes these headers count against the limit: names as UTF-8 plus values. */
  public int sizeBytes() {
    return sizeBytes(entries);
  }

  // ---- between Ordo's Avro records and Kafka headers ----

  /** The headers an item record holds; {@link #EMPTY} for null. The values are copied out. */
  public static ItemHeaders fromRecords(List<ItemHeader> records) {
    if (records == null || records.isEmpty()) {
      return EMPTY;
    }
    List<Entry> entries = new ArrayList<>(records.size());
    for (ItemHeader h : records) {
      entries.add(new Entry(h.getKey(), h.getValue() == null ? null : bytes(h.getValue())));
    }
    return new ItemHeaders(Collections.unmodifiableList(entries));
  }

  /** These headers as an item record's field: null when there are none (the field's default). */
  public List<ItemHeader> toRecords() {
    if (entries.isEmpty()) {
      return null;
    }
    List<ItemHeader> records = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      records.add(new ItemHeader(e.name(), e.value() == null ? null : ByteBuffer.wrap(e.value())));
    }
    return records;
  }

  /**
   * The headers an item arriving in a Kafka record keeps: the item record's own field ({@code fromItem},
   * null or empty when it has none) followed by the record's Kafka headers whose names are not
   * reserved. Returns {@code fromItem} itself when the record has no headers to add, so an item
   * without headers costs nothing here.
   */
  public static List<ItemHeader> merge(List<ItemHeader> fromItem, Header[] kafkaHeaders) {
    if (kafkaHeaders.length == 0) {
      return fromItem;
    }
    List<ItemHeader> merged = null;
    for (Header h : kafkaHeaders) {
      if (isReserved(h.key())) {
        continue;
      }
      if (merged == null) {
        merged = fromItem == null ? new ArrayList<>(kafkaHeaders.length) : new ArrayList<>(fromItem);
      }
      merged.add(new ItemHeader(h.key(), h.value() == null ? null : ByteBuffer.wrap(h.value())));
    }
    return merged == null ? fromItem : merged;
  }

  /** The size of an item record's headers, as {@link #sizeBytes()} counts it; 0 for null. */
  public static int recordsSizeBytes(List<ItemHeader> records) {
    if (records == null) {
      return 0;
    }
    int size = 0;
    for (ItemHeader h : records) {
      size += utf8Length(h.getKey()) + (h.getValue() == null ? 0 : h.getValue().remaining());
    }
    return size;
  }

  /** Whether {@code name} is one of Ordo's own header names ({@value #RESERVED_PREFIX}...). */
  public static boolean isReserved(String name) {
    return name.startsWith(RESERVED_PREFIX);
  }

  private static int sizeBytes(List<Entry> entries) {
    int size = 0;
    for (Entry e : entries) {
      size += utf8Length(e.name()) + (e.value() == null ? 0 : e.value().length);
    }
    return size;
  }

  private static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  /** {@code value} as UTF-8 text; null when null or not valid UTF-8. */
  public static String utf8(byte[] value) {
    if (value == null) {
      return null;
    }
    try {
      CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(value));
      return chars.toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ItemHeaders h && entries.equals(h.entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  @Override
  public String toString() {
    return entries.toString();
  }

  /** Collects headers in order. */
  public static final class Builder {
    private final List<Entry> entries = new ArrayList<>();

    private Builder() {}

    /** Adds a header; {@code value} may be null. */
    public Builder add(String name, byte[] value) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("a header name must not be empty");
      }
      entries.add(new Entry(name, value == null ? null : value.clone()));
      return this;
    }

    /** Adds a header whose value is {@code value} as UTF-8; null stays null. */
    public Builder add(String name, String value) {
      return add(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    public ItemHeaders build() {
      return entries.isEmpty() ? EMPTY : new ItemHeaders(List.copyOf(entries));
    }
  }
}
