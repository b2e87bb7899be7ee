package dev.ordo.connect.internal;

/** How a record value becomes an item's payload bytes. */
public enum PayloadFormat {
  /**
   * Bytes and strings as they are (UTF-8); any other value (struct, map, array, number, boolean) as
   * schemaless JSON written by Connect's {@code JsonConverter}. The default: it works with whatever
   * value converter the worker runs (JSON, Avro, Protobuf, string).
   */
  JSON,
  /** Only bytes or string values (e.g. with {@code ByteArrayConverter}); any other value is a bad record. */
  BYTES
}
