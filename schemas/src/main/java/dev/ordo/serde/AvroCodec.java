package dev.ordo.serde;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Encodes and decodes one record type in Avro's single-object encoding: two marker bytes
 * {@code C3 01}, the 8-byte CRC-64-AVRO fingerprint of the writer's schema, then Avro binary.
 *
 * <p>The fingerprint lets schemas evolve: the decoder knows the current schema and every older
 * version listed in {@code dev/ordo/schema/history/index.txt}, and resolves a record written with
 * any of them to the current one (Avro schema resolution: new fields take their defaults).
 * Thread-safe: Avro's encoder and decoder keep their buffers per thread.
 */
public final class AvroCodec<T extends SpecificRecord> {
  private static final String HISTORY = "/dev/ordo/schema/history/";

  static {
    trustOrdoSchemas();
  }

  /**
   * Avro 1.12 refuses to instantiate classes it was not told to trust (a guard against gadget
   * classes named in hostile schemas). Ordo's generated classes are trusted here, once, on top of
   * whatever the JVM already trusts, so no system property is needed.
   */
  public static synchronized void trustOrdoSchemas() {
    ClassSecurityValidator.ClassSecurityPredicate current = ClassSecurityValidator.getGlobal();
    if (current instanceof OrdoTrust) {
      return;
    }
    ClassSecurityValidator.setGlobal(new OrdoTrust(current));
  }

  private record OrdoTrust(ClassSecurityValidator.ClassSecurityPredicate delegate)
      implements ClassSecurityValidator.ClassSecurityPredicate {
    @Override
    public boolean isTrusted(Class<?> c) {
      return c.getName().startsWith("dev.ordo.schema.") || delegate.isTrusted(c);
    }
  }

  /** Encoding buffers, one per thread, kept while they stay at most {@link #MAX_KEPT_BUFFER} bytes. */
  private static final ThreadLocal<ByteArrayOutputStream> BUFFER =
      ThreadLocal.withInitial(() -> new ByteArrayOutputStream(4096));
  private static final int MAX_KEPT_BUFFER = 1 << 20;

  /** Binary encoders, one per thread, reused (they buffer, and write to the stream in bulk). */
  private static final ThreadLocal<BinaryEncoder> ENCODER = new ThreadLocal<>();

  private final Class<T> type;
  private final Schema schema;
  private final SpecificData model;
  /** The single-object header: {@code C3 01} and the schema's fingerprint, little-endian. */
  private final byte[] header;
  private final SpecificDatumWriter<T> writer;
  private final BinaryMessageDecoder<T> decoder;

  public AvroCodec(Class<T> type) {
    this.type = type;
    this.model = SpecificData.getForClass(type);
    this.schema = model.getSchema(type);
    this.header = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN)
        .put((byte) 0xC3).put((byte) 0x01).putLong(SchemaNormalization.parsingFingerprint64(schema)).array();
    // The generated classes' own encoders (customEncode) instead of Avro's generic walk over the schema
    // (a reflective get per field): the same bytes, a StoredItem in a quarter of the time measured
    // here. Off by default in Avro,
    // so switched on here, for encoding only, on a model of the codec's own.
    SpecificData encoding = new SpecificData(type.getClassLoader());
    encoding.setCustomCoders(true);
    this.writer = new SpecificDatumWriter<>(schema, encoding);
    this.decoder = new BinaryMessageDecoder<>(model, schema);
    for (Schema older : olderVersions(schema.getFullName())) {
      decoder.addSchema(older);
    }
  }

  public Class<T> type() {
    return type;
  }

  /** The record's current (reader and writer) schema. */
  public Schema schema() {
    return schema;
  }

  /** The Avro model of the generated class, for readers that resolve other writer schemas to it. */
  SpecificData model() {
    return model;
  }

  /** Avro's single-object encoding (as BinaryMessageEncoder writes it). */
  public byte[] encode(T record) {
    return encode(header, record);
  }

  /**
   * {@code header}, then the record in Avro binary: a buffer of this thread's, copied out once. For
   * {@link WireFormat}'s Confluent framing as well as the single-object encoding.
   */
  byte[] encode(byte[] header, T record) {
    ByteArrayOutputStream out = BUFFER.get();
    out.reset();
    try {
      out.write(header);
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, ENCODER.get());
      ENCODER.set(encoder);
      writer.write(record, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException | RuntimeException e) {
      // The encoder may still buffer part of the failed record, and reusing it would flush that into
      // the next record's bytes: the thread gets a new one.
      ENCODER.remove();
      throw new OrdoSerdeException("cannot encode " + type.getSimpleName() + ": " + e.getMessage(), e);
    } finally {
      if (out.size() > MAX_KEPT_BUFFER) {
        BUFFER.remove(); // a rare large record: do not keep its buffer for the thread's life
      }
    }
  }

  /**
   * Decodes a single-object record, or throws {@link OrdoSerdeException} saying why the bytes are not
   * one. Confluent-framed records need the registry: {@link WireFormat#decode}.
   */
  public T decode(byte[] bytes) {
    if (bytes == null) {
      throw new OrdoSerdeException("no value: expected a " + type.getSimpleName() + " record");
    }
    try {
      return decoder.decode(bytes);
    } catch (MissingSchemaException e) {
      throw new OrdoSerdeException("unknown schema for " + type.getSimpleName() + ": " + e.getMessage(), e);
    } catch (BadHeaderException e) {
      throw new OrdoSerdeException(
          "not an Avro single-object " + type.getSimpleName() + " record: " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw new OrdoSerdeException(
          "malformed " + type.getSimpleName() + " record (" + bytes.length + " bytes): " + e, e);
    }
  }

  private static List<Schema> olderVersions(String fullName) {
    List<Schema> schemas = new ArrayList<>();
    try (InputStream index = AvroCodec.class.getResourceAsStream(HISTORY + "index.txt")) {
      if (index == null) {
        return schemas;
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(index, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        String file = line.trim();
        if (file.isEmpty() || file.startsWith("#")) {
          continue;
        }
        try (InputStream in = AvroCodec.class.getResourceAsStream(HISTORY + file)) {
          if (in == null) {
            throw new IllegalStateException("schema history lists a missing file: " + file);
          }
          Schema schema = new Schema.Parser().parse(in);
          if (schema.getFullName().equals(fullName)) {
            schemas.add(schema);
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the schema history", e);
    }
    return schemas;
  }
}
