package dev.ordo.serde;

/**
 * A Confluent-framed record whose writer schema could not be used: its id is unknown to the
 * registry, the schema cannot be resolved to Ordo's (Avro schema resolution refuses it), no registry
 * is configured, or the registry could not be asked. Terminal for that record: it is dead-lettered
 * with this message, never retried.
 */
public final class SchemaResolutionException extends OrdoSerdeException {
  /** Why the writer schema could not be used. */
  public enum Kind { UNKNOWN_ID, INCOMPATIBLE, NO_REGISTRY, REGISTRY_UNAVAILABLE }

  private final Kind kind;
  private final int schemaId;

  public SchemaResolutionException(Kind kind, int schemaId, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.schemaId = schemaId;
  }

  public Kind kind() {
    return kind;
  }

  /** The schema id the record named. */
  public int schemaId() {
    return schemaId;
  }
}
