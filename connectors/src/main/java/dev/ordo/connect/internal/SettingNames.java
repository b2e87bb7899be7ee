package dev.ordo.connect.internal;

import dev.ordo.client.QueueProducerConfig;

/**
 * The sink's setting names, for the internal classes that name a setting in an error and for
 * {@code OrdoSinkConfig}, whose public constants are these: the configuration
 * depends on the internals it builds, never the other way round.
 */
public final class SettingNames {
  public static final String NAMESPACE = "ordo.namespace";
  public static final String TOPIC = "ordo.topic";
  public static final String PRIORITY = "ordo.priority";
  public static final String DELAY = "ordo.delay";
  public static final String DELIVER_AFTER = "ordo.deliver.after";
  public static final String TTL = "ordo.ttl";
  public static final String GROUP_KEY = "ordo.group.key";
  public static final String LEASE = "ordo.lease";
  public static final String MAX_ATTEMPTS = "ordo.max.attempts";
  public static final String TRACE_ID = "ordo.trace.id";
  public static final String DEDUP_ID = "ordo.dedup.id";
  public static final String PAYLOAD_FORMAT = "ordo.payload.format";
  public static final String PAYLOAD_MAX_BYTES = QueueProducerConfig.PAYLOAD_MAX_BYTES_CONFIG;
  public static final String HEADERS = "ordo.headers";
  public static final String HEADERS_MAX_BYTES = QueueProducerConfig.HEADERS_MAX_BYTES_CONFIG;

  private SettingNames() {}
}
