package dev.ordo.serde;

import org.apache.kafka.common.errors.SerializationException;

/** Bytes that are not a record of the expected type, or a record that cannot be written. */
public class OrdoSerdeException extends SerializationException {
  public OrdoSerdeException(String message, Throwable cause) {
    super(message, cause);
  }

  public OrdoSerdeException(String message) {
    super(message);
  }
}
