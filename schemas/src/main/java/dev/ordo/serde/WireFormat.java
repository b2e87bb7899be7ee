package dev.ordo.serde;

import dev.ordo.serde.SchemaResolutionException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;

/**
 * How Ordo's records look on a topic: Avro's single-object encoding ({@link AvroCodec}), or, with a
 * schema registry, the Confluent wire format that every language's Avro serializer speaks.
 *
 * <p>Confluent framing, byte by byte:
 * <ol>
 *   <li>magic byte {@code 0x00};
 *   <li>the writer schema's id in the registry, 4 bytes, big-endian;
 *   <li>the record in Avro binary, written with that schema.
 * </ol>
 * A single-object record starts with {@code C3 01} instead, so {@link #decode} tells the two apart by
 * the first byte and accepts both whatever the format: producers may switch one at a time. Writer
 * schemas are fetched by id once and cached; a writer schema that Avro's schema resolution cannot read
 * as Ordo's (a missing field without a default, a changed type, another record name) is refused with
 * a {@link SchemaResolutionException}, as is an id the registry does not know: the caller
 * dead-letters the record, it is never retried.
 *
 * <p>{@link #encode} writes Confluent framing when a registry is configured (registering the schema
 * under {@code <topic>-value} on first use), the single-object encoding otherwise: without a registry
 * the bytes are exactly those of {@link AvroCodec#encode}. Thread-safe.
 */
public final class WireFormat {
  /** Confluent framing's first byte. */
  public static final byte MAGIC = 0;
  /** Magic byte and schema id. */
  public static final int HEADER_BYTES = 5;
  /** The compatibility Ordo sets on the subjects it registers. */
  public static final String COMPATIBILITY = "BACKWARD";

  /** No registry: the single-object encoding, and Confluent-framed input is refused. */
  public static final WireFormat SINGLE_OBJECT = new WireFormat(null);

  private static final ThreadLocal<BinaryDecoder> DECODER = new ThreadLocal<>();

  private final SchemaRegistryClient registry;
  /** The Confluent header per (topic, record class): the topic's subject's id of the codec's schema. */
  private final Map<String, byte[]> headers = new ConcurrentHashMap<>();
  /** Resolving readers per (record class, writer schema id). */
  private final Map<String, SpecificDatumReader<?>> readers = new ConcurrentHashMap<>();

  private WireFormat(SchemaRegistryClient registry) {
    this.registry = registry;
  }

  public static WireFormat confluent(SchemaRegistryClient registry) {
    return new WireFormat(registry);
  }

  /** {@link #SINGLE_OBJECT} for a null or blank url, Confluent framing through the registry at {@code url} otherwise. */
  public static WireFormat of(String registryUrl, Duration timeout) {
    return registryUrl == null || registryUrl.isBlank() ? SINGLE_OBJECT
        : confluent(new SchemaRegistryClient(registryUrl.trim(), timeout));
  }

  /** True when records are written Confluent-framed (a registry is configured). */
  public boolean confluent() {
    return registry != null;
  }

  /** The registry, or null. */
  public SchemaRegistryClient registry() {
    return registry;
  }

  /** Confluent's subject for a topic's values (TopicNameStrategy). */
  public static String subject(String topic) {
    return topic + "-value";
  }

  /**
   * Registers {@code codec}'s schema under {@code <topic>-value} and sets that subject's compatibility
   * to {@link #COMPATIBILITY}; nothing without a registry.
   *
   * @return the schema id, or -1 without a registry
   * @throws SchemaRegistryClient.RegistryException when the registry refuses or cannot be reached
   */
  public int register(String topic, AvroCodec<?> codec) {
    if (registry == null) {
      return -1;
    }
    int id = registry.register(subject(topic), codec.schema());
    registry.setCompatibility(subject(topic), COMPATIBILITY);
    headers.put(topic + "\u0000" + codec.type().getName(), header(id));
    return id;
  }

  public <T extends SpecificRecord> byte[] encode(AvroCodec<T> codec, String topic, T record) {
    if (registry == null) {
      return codec.encode(record);
    }
    byte[] header = headers.get(topic + "\u0000" + codec.type().getName());
    if (header == null) {
      try {
        register(topic, codec);
      } catch (SchemaRegistryClient.RegistryException e) {
        throw new OrdoSerdeException("cannot write a " + codec.type().getSimpleName() + " to " + topic
            + ": its schema could not be registered: " + e.getMessage(), e);
      }
      header = headers.get(topic + "\u0000" + codec.type().getName());
    }
    return codec.encode(header, record);
  }

  /**
   * Decodes a Confluent-framed or single-object record as {@code codec}'s type.
   *
   * @throws SchemaResolutionException for a Confluent-framed record whose writer schema cannot be had or read as Ordo's
   * @throws OrdoSerdeException for bytes that are neither
   */
  public <T extends SpecificRecord> T decode(AvroCodec<T> codec, byte[] bytes) {
    if (bytes == null || bytes.length < HEADER_BYTES || bytes[0] != MAGIC) {
      return codec.decode(bytes);
    }
    int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
    String what = codec.type().getSimpleName();
    if (registry == null) {
      throw new SchemaResolutionException(Kind.NO_REGISTRY, id, "a Confluent-framed record (schema id " + id
          + ") but no schema registry is configured (ordo.schema.registry.url): cannot read it as a " + what, null);
    }
    SpecificDatumReader<T> reader = reader(codec, id);
    try {
      BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, HEADER_BYTES, bytes.length - HEADER_BYTES,
          DECODER.get());
      DECODER.set(decoder);
      return reader.read(null, decoder);
    } catch (IOException | RuntimeException e) {
      throw new OrdoSerdeException("malformed Confluent-framed " + what + " record (schema id " + id + ", "
          + bytes.length + " bytes): " + e, e);
    }
  }

  @SuppressWarnings("unchecked")
  private <T extends SpecificRecord> SpecificDatumReader<T> reader(AvroCodec<T> codec, int id) {
    String key = codec.type().getName() + "\u0000" + id;
    SpecificDatumReader<?> known = readers.get(key);
    if (known != null) {
      return (SpecificDatumReader<T>) known;
    }
    String what = codec.type().getSimpleName();
    Schema writer;
    try {
      writer = registry.schema(id);
    } catch (SchemaRegistryClient.RegistryException e) {
      if (e.notFound()) {
        throw new SchemaResolutionException(Kind.UNKNOWN_ID, id, "unknown schema id " + id + ": the schema registry at "
            + registry.url() + " has no such schema (cannot read the record as a " + what + ")", e);
      }
      if (e.unreachable()) {
        throw new SchemaResolutionException(Kind.REGISTRY_UNAVAILABLE, id, "schema id " + id
            + " could not be fetched: " + e.getMessage(), e);
      }
      throw new SchemaResolutionException(Kind.INCOMPATIBLE, id, "schema id " + id + " cannot be used: "
          + e.getMessage(), e);
    }
    SchemaCompatibility.SchemaPairCompatibility check =
        SchemaCompatibility.checkReaderWriterCompatibility(codec.schema(), writer);
    if (check.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      throw new SchemaResolutionException(Kind.INCOMPATIBLE, id, "the writer schema id " + id + " ("
          + writer.getFullName() + ") cannot be resolved to Ordo's " + codec.schema().getFullName() + ": "
          + check.getResult().getIncompatibilities().stream()
              .map(i -> i.getType() + " at " + i.getLocation() + (i.getMessage() == null ? "" : " (" + i.getMessage() + ")"))
              .toList(), null);
    }
    SpecificDatumReader<T> reader = new SpecificDatumReader<>(writer, codec.schema(), codec.model());
    readers.put(key, reader);
    return reader;
  }

  private static byte[] header(int id) {
    return ByteBuffer.allocate(HEADER_BYTES).put(MAGIC).putInt(id).array();
  }
}
