package dev.ordo.client.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Splits a client configuration into the settings of its Kafka clients: every key not starting
 * with {@code ordo.} is a Kafka client setting; a key prefixed with {@code consumer.} or
 * {@code producer.} goes to that client only (prefix removed) and wins over the plain key.
 */
public final class KafkaProps {
  public static final String CONSUMER_PREFIX = "consumer.";
  public static final String PRODUCER_PREFIX = "producer.";

  private KafkaProps() {}

  /**
   * The Kafka settings for one client.
   *
   * @param prefix {@link #CONSUMER_PREFIX} or {@link #PRODUCER_PREFIX}
   * @param excluded keys that are Ordo's own although they look like Kafka's (e.g. a group id meant
   *     for one consumer only)
   */
  public static Map<String, Object> of(Map<String, ?> originals, String prefix, Set<String> excluded) {
    Map<String, Object> props = new HashMap<>();
    originals.forEach((k, v) -> {
      if (!k.startsWith("ordo.") && !k.startsWith(CONSUMER_PREFIX) && !k.startsWith(PRODUCER_PREFIX)
          && !excluded.contains(k)) {
        props.put(k, v);
      }
    });
    originals.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        props.put(k.substring(prefix.length()), v);
      }
    });
    return props;
  }
}
