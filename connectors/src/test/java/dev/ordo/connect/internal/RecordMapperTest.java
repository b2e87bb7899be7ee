package dev.ordo.connect.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemHeaders;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.connect.OrdoSinkConfig;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class RecordMapperTest {
  private static final Schema CUSTOMER = SchemaBuilder.struct().name("Customer")
      .field("id", Schema.STRING_SCHEMA).field("tier", Schema.OPTIONAL_INT32_SCHEMA).build();
  private static final Schema ORDER = SchemaBuilder.struct().name("Order")
      .field("customer", CUSTOMER).field("priority", Schema.OPTIONAL_INT64_SCHEMA)
      .field("due", Timestamp.builder().optional().build()).build();
  private static final Schema EVENT = SchemaBuilder.struct().name("Event")
      .field("tenant", Schema.OPTIONAL_STRING_SCHEMA).field("order", ORDER).build();

  private static Struct event(String tenant, String customer, Long priority, Date due) {
    Struct c = new Struct(CUSTOMER).put("id", customer).put("tier", 2);
    Struct o = new Struct(ORDER).put("customer", c).put("priority", priority).put("due", due);
    return new Struct(EVENT).put("tenant", tenant).put("order", o);
  }

  private static SinkRecord record(Schema schema, Object value, ConnectHeaders headers) {
    return new SinkRecord("orders", 0, Schema.STRING_SCHEMA, "k", schema, value, 17, 0L,
        org.apache.kafka.common.record.TimestampType.CREATE_TIME, headers);
  }

  private static RecordMapper mapper(Map<String, String> settings) {
    Map<String, Object> props = new HashMap<>(settings);
    props.put(OrdoSinkConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
    return new OrdoSinkConfig(props).mapper();
  }

  private static EnqueueRequest item(Mapped m) {
    return assertInstanceOf(Mapped.Item.class, m, () -> "rejected: " + m).request();
  }

  private static String rejected(Mapped m) {
    return assertInstanceOf(Mapped.Rejected.class, m, () -> "mapped: " + m).reason();
  }

  @Test
  void nestedStructFieldsHeadersAndConstantsMakeTheItem() {
    RecordMapper mapper = mapper(Map.of(
        "ordo.namespace", "field:tenant",
        "ordo.topic", "header:queue",
        "ordo.priority", "field:order.priority",
        "ordo.group.key", "field:order.customer.id",
        "ordo.deliver.after", "field:order.due",
        "ordo.ttl", "header:ttl",
        "ordo.lease", "PT45S",
        "ordo.max.attempts", "const:7",
        "ordo.trace.id", "key"));
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("queue", "emails").addLong("ttl", 60_000L);
    EnqueueRequest r = item(mapper.map(record(EVENT, event("shop", "c-9", 3L, new Date(1_800_000_000_000L)), headers)));
    assertEquals("shop", r.namespace());
    assertEquals("emails", r.topic());
    assertEquals(3, r.priority());
    assertEquals("c-9", r.groupKey());
    assertEquals(Instant.ofEpochMilli(1_800_000_000_000L), r.deliverAfter());
    assertNull(r.delay());
    assertEquals(Duration.ofMinutes(1), r.ttl());
    assertEquals(Duration.ofSeconds(45), r.lease());
    assertEquals(7, r.maxAttempts());
    assertEquals("k", r.traceId());
    String json = new String(r.payload(), StandardCharsets.UTF_8);
    assertEquals("{\"tenant\":\"shop\",\"order\":{\"customer\":{\"id\":\"c-9\",\"tier\":2},\"priority\":3,"
        + "\"due\":1800000000000}}", json, "a struct payload is schemaless JSON");
  }

  @Test
  void schemalessMapsAreWalkedLikeStructsAndNumbersFromTextConvert() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "shop", "ordo.topic", "field:kind",
        "ordo.priority", "field:order.priority", "ordo.group.key", "field:order.customer.id",
        "ordo.delay", "header:delay"));
    Map<String, Object> order = new LinkedHashMap<>();
    order.put("customer", Map.of("id", 42L)); // JsonConverter makes JSON integers Longs
    order.put("priority", "-5");
    Map<String, Object> value = new LinkedHashMap<>(Map.of("kind", "sms"));
    value.put("order", order);
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("delay", "PT2M");
    EnqueueRequest r = item(mapper.map(record(null, value, headers)));
    assertEquals("sms", r.topic());
    assertEquals(-5, r.priority());
    assertEquals("42", r.groupKey(), "a numeric id is a group key as its text");
    assertEquals(Duration.ofMinutes(2), r.delay());
    assertNull(r.ttl(), "unset fields take the namespace defaults");
    assertNull(r.maxAttempts());
  }

  @Test
  void aMissingOptionalFieldTakesTheDefaultAndAMissingRequiredOneRejectsTheRecordNamingIt() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "field:tenant", "ordo.topic", "t",
        "ordo.priority", "field:order.missing", "ordo.group.key", "field:order.customer.nothing.deeper"));
    EnqueueRequest r = item(mapper.map(record(EVENT, event("shop", "c", null, null), new ConnectHeaders())));
    assertEquals(0, r.priority());
    assertNull(r.groupKey());

    String reason = rejected(mapper.map(record(EVENT, event(null, "c", 1L, null), new ConnectHeaders())));
    assertEquals("ordo.namespace: field 'tenant' is missing", reason);
  }

  @Test
  void theDeduplicationIdComesFromItsSourceAndABadOneRejectsTheRecord() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.dedup.id", "field:event_id"));
    assertEquals("evt-1", item(mapper.map(record(null, Map.of("event_id", "evt-1"), new ConnectHeaders()))).dedupId());
    assertEquals("42", item(mapper.map(record(null, Map.of("event_id", 42), new ConnectHeaders()))).dedupId(),
        "a number as its text");
    assertNull(item(mapper.map(record(null, Map.of("other", 1), new ConnectHeaders()))).dedupId(), "absent: none");
    assertEquals("ordo.dedup.id: field 'event_id': dedupId is longer than 128 characters (129)",
        rejected(mapper.map(record(null, Map.of("event_id", "e".repeat(129)), new ConnectHeaders()))));
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("msg-id", "m-7");
    RecordMapper byHeader = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.dedup.id", "header:msg-id"));
    assertEquals("m-7", item(byHeader.map(record(null, Map.of(), headers))).dedupId());
  }

  @Test
  void aValueOfTheWrongTypeRejectsTheRecordWithTheSettingFieldAndValue() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "field:t",
        "ordo.priority", "field:p", "ordo.ttl", "field:ttl"));
    assertEquals("ordo.priority: field 'p': 'high' is not an integer",
        rejected(mapper.map(record(null, Map.of("p", "high", "t", "x"), new ConnectHeaders()))));
    assertEquals("ordo.priority: field 'p': 2.5 is not a whole number (an integer was expected)",
        rejected(mapper.map(record(null, Map.of("p", 2.5, "t", "x"), new ConnectHeaders()))));
    assertEquals("ordo.priority: field 'p': 3000000000 is out of the int range",
        rejected(mapper.map(record(null, Map.of("p", 3_000_000_000L, "t", "x"), new ConnectHeaders()))));
    assertEquals("ordo.topic: field 't': a map is not a string",
        rejected(mapper.map(record(null, Map.of("t", Map.of("a", 1)), new ConnectHeaders()))));
    assertTrue(rejected(mapper.map(record(null, Map.of("t", "x", "ttl", "PTX"), new ConnectHeaders())))
        .startsWith("ordo.ttl: field 'ttl': 'PTX' is not an ISO-8601 duration"));
    assertEquals("invalid item: ttl must be positive, got PT-1S",
        rejected(mapper.map(record(null, Map.of("t", "x", "ttl", -1000), new ConnectHeaders()))));
    assertEquals("ordo.topic: field 't': topic 'a/b' contains a '/' or a control character",
        rejected(mapper.map(record(null, Map.of("t", "a/b"), new ConnectHeaders()))));
  }

  @Test
  void aPayloadOverTheLimitOrATombstoneIsRejected() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.payload.max.bytes", "8"));
    assertArrayEquals("12345678".getBytes(StandardCharsets.UTF_8),
        item(mapper.map(record(Schema.STRING_SCHEMA, "12345678", new ConnectHeaders()))).payload(),
        "a string payload is its text as it is");
    assertEquals("the payload of 9 bytes is over ordo.payload.max.bytes (8)",
        rejected(mapper.map(record(Schema.STRING_SCHEMA, "123456789", new ConnectHeaders()))));
    assertEquals("ordo.payload.format: the record has no value (a tombstone)",
        rejected(mapper.map(record(null, null, new ConnectHeaders()))));
  }

  @Test
  void bytesFormatTakesBytesAsTheyAreAndRefusesStructuredValues() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.payload.format", "BYTES"));
    byte[] raw = {0, 1, (byte) 0xff};
    assertArrayEquals(raw, item(mapper.map(record(Schema.BYTES_SCHEMA, raw, new ConnectHeaders()))).payload());
    assertEquals("ordo.payload.format: format BYTES takes bytes or string values, got a map",
        rejected(mapper.map(record(null, Map.of("a", 1), new ConnectHeaders()))));
    RecordMapper json = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t"));
    assertEquals("[1,2]", new String(item(json.map(record(null, List.of(1, 2), new ConnectHeaders()))).payload(),
        StandardCharsets.UTF_8));
  }

  @Test
  void headerBytesAreReadAsText() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "header:q", "ordo.priority", "header:p"));
    ConnectHeaders headers = new ConnectHeaders();
    headers.addBytes("q", "jobs".getBytes(StandardCharsets.UTF_8)).addBytes("p", "9".getBytes(StandardCharsets.UTF_8));
    EnqueueRequest r = item(mapper.map(record(Schema.STRING_SCHEMA, "x", headers)));
    assertEquals("jobs", r.topic());
    assertEquals(9, r.priority());
    assertEquals("ordo.topic: header 'q' is missing",
        rejected(mapper.map(record(Schema.STRING_SCHEMA, "x", new ConnectHeaders()))));
  }

  // ---- the record's headers kept with the item (ordo.headers) ----

  private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  /** Headers with a repeated name, a reserved one and the one the topic is read from. */
  private static ConnectHeaders mixedHeaders() {
    ConnectHeaders h = new ConnectHeaders();
    h.addString("traceparent", TRACEPARENT)
        .addBytes("tenant", "acme".getBytes(StandardCharsets.UTF_8))
        .addString("tag", "a")
        .addString("ordo.redriven.from", "x-0@1")
        .addString("queue", "emails")
        .addString("tag", "b");
    return h;
  }

  private static List<String> entries(ItemHeaders headers) {
    return headers.entries().stream().map(ItemHeaders.Entry::toString).toList();
  }

  @Test
  void byDefaultEveryHeaderIsKeptInOrderWithRepeatsAndTheMappedOneButNotOrdosOwn() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "header:queue",
        "ordo.trace.id", "header:traceparent"));
    EnqueueRequest r = item(mapper.map(record(Schema.STRING_SCHEMA, "x", mixedHeaders())));
    assertEquals("emails", r.topic());
    assertEquals(TRACEPARENT, r.traceId());
    assertEquals(List.of("traceparent=" + TRACEPARENT, "tenant=acme", "tag=a", "queue=emails", "tag=b"),
        entries(r.headers()), "record order, repeats kept, headers read by header: sources kept, ordo.* skipped");
    assertEquals(TRACEPARENT, r.headers().lastString("traceparent"));
    assertEquals(List.of("a", "b"), r.headers().values("tag").stream()
        .map(v -> new String(v, StandardCharsets.UTF_8)).toList());

    ConnectHeaders onlyReserved = headersOf("queue", "q");
    onlyReserved.addString("ordo.redrive.job", "j");
    assertEquals(List.of("queue=q"), entries(item(mapper.map(record(Schema.STRING_SCHEMA, "x", onlyReserved))).headers()));
  }

  @Test
  void noneKeepsNoHeaderAndTheMappingStillReadsThem() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "header:queue", "ordo.headers", "None"));
    EnqueueRequest r = item(mapper.map(record(Schema.STRING_SCHEMA, "x", mixedHeaders())));
    assertEquals("emails", r.topic());
    assertTrue(r.headers().isEmpty(), r.headers().toString());
  }

  @Test
  void aListKeepsOnlyTheNamedHeadersInTheRecordsOrderWithRepeats() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "header:queue",
        "ordo.headers", "tag, traceparent,absent"));
    EnqueueRequest r = item(mapper.map(record(Schema.STRING_SCHEMA, "x", mixedHeaders())));
    assertEquals(List.of("traceparent=" + TRACEPARENT, "tag=a", "tag=b"), entries(r.headers()),
        "the record's order, not the list's; names are case-sensitive and absent ones are no matter");
    RecordMapper upper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.headers", "TAG"));
    assertTrue(item(upper.map(record(Schema.STRING_SCHEMA, "x", mixedHeaders()))).headers().isEmpty());
  }

  @Test
  void headerValuesBecomeBytesBytesAsTheyAreTextAsUtf8NullAsNullOtherTypesAsConnectText() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t"));
    Schema point = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).field("n", Schema.INT32_SCHEMA).build();
    byte[] binary = {0, (byte) 0xff, (byte) 0xc3, 7};
    ConnectHeaders h = new ConnectHeaders();
    h.addBytes("raw", binary)
        .add("buffer", ByteBuffer.wrap(new byte[] {9, 8, 7, 6}, 1, 2), Schema.BYTES_SCHEMA)
        .addString("text", "zürich ✓")
        .add("nothing", null, null)
        .addString("nullString", null)
        .addInt("int", 3_600_000)
        .addLong("long", -42L)
        .addDouble("double", 2.5)
        .addBoolean("bool", true)
        .addDecimal("decimal", new BigDecimal("1.50"))
        .addMap("map", Map.of("a", 1), SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
        .addList("list", List.of(1, 2), SchemaBuilder.array(Schema.INT32_SCHEMA).build())
        .addStruct("struct", new Struct(point).put("id", "x").put("n", 3))
        .add("schemaless", Map.of("k", List.of(1, "two", true)), null);
    ItemHeaders got = item(mapper.map(record(Schema.STRING_SCHEMA, "x", h))).headers();
    assertArrayEquals(binary, got.lastValue("raw"), "bytes as they are, even when not UTF-8");
    assertArrayEquals(new byte[] {8, 7}, got.lastValue("buffer"), "a ByteBuffer's remaining bytes");
    assertArrayEquals("zürich ✓".getBytes(StandardCharsets.UTF_8), got.lastValue("text"));
    assertNull(got.lastValue("nothing"));
    assertNull(got.lastValue("nullString"));
    assertEquals(List.of("raw", "buffer", "text", "nothing", "nullString", "int", "long", "double", "bool", "decimal",
        "map", "list", "struct", "schemaless"), got.entries().stream().map(ItemHeaders.Entry::name).toList(),
        "a null value is a header too");
    assertEquals("3600000", got.lastString("int"));
    assertEquals("-42", got.lastString("long"));
    assertEquals("2.5", got.lastString("double"));
    assertEquals("true", got.lastString("bool"));
    assertEquals("1.50", got.lastString("decimal"));
    assertEquals("{\"a\":1}", got.lastString("map"));
    assertEquals("[1,2]", got.lastString("list"));
    assertEquals("{\"id\":\"x\",\"n\":3}", got.lastString("struct"));
    assertEquals("{\"k\":[1,\"two\",true]}", got.lastString("schemaless"));
  }

  @Test
  void aHeaderValueConnectCannotWriteAsTextRejectsTheRecord() {
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t"));
    ConnectHeaders h = new ConnectHeaders();
    h.add("odd", new Object() { }, null); // only a transform could put such a value there
    String reason = rejected(mapper.map(record(Schema.STRING_SCHEMA, "x", h)));
    assertTrue(reason.startsWith("ordo.headers: header 'odd': "), reason);
    assertTrue(reason.contains("does not convert to text"), reason);
    RecordMapper none = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.headers", "none"));
    item(none.map(record(Schema.STRING_SCHEMA, "x", h)));
  }

  @Test
  void keptHeadersOverTheLimitRejectTheRecordWithTheirSize() {
    // "traceparent" is 11 bytes: with a 9-byte value the header is 20 bytes, the limit.
    RecordMapper mapper = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.headers.max.bytes", "20"));
    EnqueueRequest atLimit = item(mapper.map(record(Schema.STRING_SCHEMA, "x", headersOf("traceparent", "123456789"))));
    assertEquals(20, atLimit.headers().sizeBytes());

    ConnectHeaders over = headersOf("traceparent", "123456789");
    over.addString("b", null); // a name costs its bytes even without a value
    assertEquals("ordo.headers: the headers kept come to 21 bytes (names and values), over"
        + " ordo.headers.max.bytes (20)", rejected(mapper.map(record(Schema.STRING_SCHEMA, "x", over))));

    ConnectHeaders reservedExtra = headersOf("traceparent", "123456789");
    reservedExtra.addString("ordo.redriven.from", "x".repeat(100));
    assertEquals(20, item(mapper.map(record(Schema.STRING_SCHEMA, "x", reservedExtra))).headers().sizeBytes(),
        "headers not kept do not count");
    RecordMapper selected = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t", "ordo.headers.max.bytes", "20",
        "ordo.headers", "traceparent"));
    assertEquals(20, item(selected.map(record(Schema.STRING_SCHEMA, "x", over))).headers().sizeBytes());

    RecordMapper byDefault = mapper(Map.of("ordo.namespace", "n", "ordo.topic", "t"));
    ConnectHeaders big = headersOf("big", "x".repeat(8 * 1024));
    assertEquals("ordo.headers: the headers kept come to 8195 bytes (names and values), over"
        + " ordo.headers.max.bytes (8192)", rejected(byDefault.map(record(Schema.STRING_SCHEMA, "x", big))),
        "the default is the producer's and the queue's 8 KiB");
  }

  private static ConnectHeaders headersOf(String name, String value) {
    ConnectHeaders h = new ConnectHeaders();
    h.addString(name, value);
    return h;
  }
}
