package dev.ordo.client;

import dev.ordo.client.internal.Validators;
import dev.ordo.client.internal.Wire;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The settings every client of an Ordo cluster has, defined once: {@link QueueClientConfig} (and so
 * {@link LeaseConsumerConfig}) and {@link QueueProducerConfig} add them to their own.
 */
final class CommonConfigs {
  static final String CLUSTER_CONFIG = "ordo.cluster";
  static final String CLUSTER_DOC = "The Ordo cluster: the prefix of its topics (<cluster>.items,"
      + " .commands, .deliveries, .topics).";

  static final String SCHEMA_REGISTRY_URL_CONFIG = Wire.SCHEMA_REGISTRY_URL_CONFIG;

  private static final ConfigDef.Validator CLUSTER_VALIDATOR = Validators.cluster();

  private CommonConfigs() {}

  /** Adds the shared settings to {@code def}. */
  static ConfigDef define(ConfigDef def) {
    return def
        .define(CLUSTER_CONFIG, Type.STRING, "ordo", CLUSTER_VALIDATOR, Importance.HIGH, CLUSTER_DOC)
        .define(SCHEMA_REGISTRY_URL_CONFIG, Type.STRING, "", Importance.MEDIUM, Wire.SCHEMA_REGISTRY_URL_DOC);
  }
}
