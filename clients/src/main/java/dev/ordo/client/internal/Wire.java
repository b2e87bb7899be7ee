package dev.ordo.client.internal;

import dev.ordo.serde.WireFormat;
import java.time.Duration;
import java.util.Map;

/** The clients' {@link WireFormat}, from their {@code ordo.schema.registry.url} setting. */
public final class Wire {
  public static final String SCHEMA_REGISTRY_URL_CONFIG = "ordo.schema.registry.url";
  public static final String SCHEMA_REGISTRY_URL_DOC = "The schema registry the Ordo cluster is configured with"
      + " (its ordo.schema.registry.url), e.g. http://host:8081 or Apicurio's http://host:port/apis/ccompat/v7. With"
      + " it the queue writes deliveries, dlq and topics Confluent-framed, and this client resolves their schema ids"
      + " there (cached) and writes items Confluent-framed too. Empty: Avro single-object records only; a"
      + " Confluent-framed record is then skipped with a warning naming this setting.";
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  private Wire() {}

  /** The format named by {@code config}'s {@value #SCHEMA_REGISTRY_URL_CONFIG} (single-object when absent). */
  public static WireFormat of(Map<String, ?> config) {
    Object url = config.get(SCHEMA_REGISTRY_URL_CONFIG);
    return WireFormat.of(url == null ? null : url.toString(), TIMEOUT);
  }
}
