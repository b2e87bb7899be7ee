package dev.ordo.connect.internal;

import dev.ordo.api.ItemHeaders;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.connect.internal.Values.WrongType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.ConverterType;

/**
 * Maps a sink record to an {@link EnqueueRequest}, or to the reason it is a bad record. Pure: no I/O,
 * no clock (a delay stays relative; the producer adds it to its send time). Not thread-safe (one per task).
 *
 * <p>Per item field: read its {@link FieldSource}; absent (or null) means a bad record for a required
 * field (namespace, topic) and the queue's namespace default otherwise; present but of the wrong
 * type is a bad record. Then the payload (see {@link PayloadFormat}) and its size limit, the
 * record's headers the item keeps ({@link HeaderSelection}, converted by {@link #headerValue}) and
 * their size limit, and finally {@link EnqueueRequest.Builder#build()}'s own checks (names, positive
 * durations...).
 */
public final class RecordMapper {
  private final Map<ItemField, FieldSource> sources;
  private final PayloadFormat format;
  private final int payloadMaxBytes;
  private final HeaderSelection headers;
  private final int headersMaxBytes;
  private final JsonConverter json = new JsonConverter();

  /**
   * @param headers which record headers the item keeps
   * @param headersMaxBytes the largest total size of the kept headers (names' UTF-8 bytes plus
   *     values, as {@link ItemHeaders#sizeBytes()} counts and the producer checks)
   */
  public RecordMapper(Map<ItemField, FieldSource> sources, PayloadFormat format, int payloadMaxBytes,
      HeaderSelection headers, int headersMaxBytes) {
    this.sources = new EnumMap<>(sources);
    this.format = format;
    this.payloadMaxBytes = payloadMaxBytes;
    this.headers = headers;
    this.headersMaxBytes = headersMaxBytes;
    json.configure(Map.of(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, "false",
        JsonConverterConfig.TYPE_CONFIG, ConverterType.VALUE.getName()));
  }

  public Mapped map(SinkRecord record) {
    Map<ItemField, Object> values = new EnumMap<>(ItemField.class);
    for (Map.Entry<ItemField, FieldSource> e : sources.entrySet()) {
      ItemField field = e.getKey();
      FieldSource source = e.getValue();
      Object raw = source.read(record);
      if (raw == null) {
        if (field.required()) {
          return new Mapped.Rejected(field.key() + ": " + source.describe() + " is missing");
        }
        continue;
      }
      try {
        values.put(field, field.convert(raw));
      } catch (WrongType w) {
        return new Mapped.Rejected(field.key() + ": " + source.describe() + ": " + w.getMessage());
      }
    }
    if (!values.containsKey(ItemField.NAMESPACE) || !values.containsKey(ItemField.TOPIC)) {
      return new Mapped.Rejected("no source for " + (values.containsKey(ItemField.NAMESPACE)
          ? ItemField.TOPIC.key() : ItemField.NAMESPACE.key()));
    }
    byte[] payload;
    try {
      payload = payload(record);
    } catch (WrongType w) {
      return new Mapped.Rejected(SettingNames.PAYLOAD_FORMAT + ": " + w.getMessage());
    }
    if (payload.length > payloadMaxBytes) {
      return new Mapped.Rejected("the payload of " + payload.length + " bytes is over "
          + SettingNames.PAYLOAD_MAX_BYTES + " (" + payloadMaxBytes + ")");
    }
    ItemHeaders kept;
    try {
      kept = headers(record);
    } catch (WrongType w) {
      return new Mapped.Rejected(SettingNames.HEADERS + ": " + w.getMessage());
    }
    if (!kept.isEmpty() && kept.sizeBytes() > headersMaxBytes) { // QueueProducer's own check, as a bad record
      return new Mapped.Rejected(SettingNames.HEADERS + ": the headers kept come to " + kept.sizeBytes()
          + " bytes (names and values), over " + SettingNames.HEADERS_MAX_BYTES
          + " (" + headersMaxBytes + ")");
    }
    EnqueueRequest.Builder b = EnqueueRequest.builder(
        (String) values.get(ItemField.NAMESPACE), (String) values.get(ItemField.TOPIC), payload);
    for (Map.Entry<ItemField, Object> e : values.entrySet()) {
      e.getKey().apply(b, e.getValue());
    }
    if (!kept.isEmpty()) {
      b.headers(kept);
    }
    try {
      return new Mapped.Item(b.build());
    } catch (IllegalArgumentException invalid) { // EnqueueRequest's own checks signal so; the message names the field
      return new Mapped.Rejected("invalid item: " + invalid.getMessage());
    }
  }

  /**
   * The record's headers the selection keeps, in the record's order, repeated names included;
   * reserved ({@value ItemHeaders#RESERVED_PREFIX}...) and empty names are skipped.
   */
  private ItemHeaders headers(SinkRecord record) throws WrongType {
    if (headers.isNone() || record.headers().isEmpty()) {
      return ItemHeaders.EMPTY;
    }
    ItemHeaders.Builder kept = null;
    for (Header h : record.headers()) {
      if (headers.keeps(h.key())) {
        if (kept == null) {
          kept = ItemHeaders.builder();
        }
        kept.add(h.key(), headerValue(h));
      }
    }
    return kept == null ? ItemHeaders.EMPTY : kept.build();
  }

  /**
   * A Connect header's value as the bytes the item keeps: null stays null (Kafka's null value),
   * bytes as they are, a string as UTF-8, anything else (number, boolean, Connect date or decimal,
   * struct, map, array) as UTF-8 of the text Connect's {@code Values.convertToString} writes for
   * it, which is what the worker's default {@code SimpleHeaderConverter} would write back to Kafka
   * ({@code 3600000}, {@code true}, {@code {"a":1}}, {@code [1,2]}).
   */
  static byte[] headerValue(Header h) throws WrongType {
    Object v = h.value();
    if (v == null) {
      return null;
    }
    byte[] raw = asBytes(v);
    if (raw != null) {
      return raw;
    }
    try {
      return org.apache.kafka.connect.data.Values.convertToString(h.schema(), v).getBytes(StandardCharsets.UTF_8);
    } catch (DataException e) {
      throw new WrongType("header '" + h.key() + "': " + Values.described(v) + " does not convert to text: "
          + e.getMessage());
    }
  }

  /** Bytes as they are, a byte buffer's remaining bytes, text as UTF-8; null for any other value. */
  private static byte[] asBytes(Object v) {
    if (v instanceof byte[] b) {
      return b;
    }
    if (v instanceof ByteBuffer bb) {
      byte[] b = new byte[bb.remaining()];
      bb.duplicate().get(b);
      return b;
    }
    if (v instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    return null;
  }

  private byte[] payload(SinkRecord record) throws WrongType {
    Object v = record.value();
    if (v == null) {
      throw new WrongType("the record has no value (a tombstone)");
    }
    byte[] raw = asBytes(v);
    if (raw != null) {
      return raw;
    }
    if (format == PayloadFormat.BYTES) {
      throw new WrongType("format BYTES takes bytes or string values, got " + Values.described(v));
    }
    try {
      return json.fromConnectData(record.topic(), record.valueSchema(), v);
    } catch (DataException e) {
      throw new WrongType("the value does not convert to JSON: " + e.getMessage());
    }
  }
}
