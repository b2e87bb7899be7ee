package dev.ordo.client.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Splits a client configuration into the settings of its Kafka clients: every key not starting
 * with {@code ordo.} is a Kafka client setting; a key prefixed with {@code consumer.} or
 * {@code producer.} goes to that client only (prefix removed) and wins over the plain key.
 */
public final class KafkaProps {
  public static final String CONSUMER_PREFIX = "consumer.";
  public static final String PRODUCER_PREFIX = "producer.";
  /** How long the broker may hold a {@link #positionReader}'s fetch that finds nothing new, in ms. */
  public static final int POSITION_READER_FETCH_WAIT_MS = 10;

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

  /**
   * Settings of a consumer that reads by position what is already on a topic (a range, a topic to
   * its end): no group, no commits, read_committed, and a broker that answers a fetch finding nothing
   * new within {@value #POSITION_READER_FETCH_WAIT_MS} ms. Kafka's default wait, 500 ms, is for a
   * consumer waiting for new records; here a fetch the broker holds keeps the next partition's fetch,
   * and the consumer's close, waiting: listing the dead letters of four partitions took 2.1 s with it.
   */
  public static Map<String, Object> positionReader(Map<String, Object> consumerConfig) {
    Map<String, Object> c = new HashMap<>(consumerConfig);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, POSITION_READER_FETCH_WAIT_MS);
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    c.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    return c;
  }

  /**
   * Settings of a producer of rare records that must be durable when acknowledged (a policy, a
   * principal, an audit record): acks=all, idempotent, no linger (each is sent alone and waited for).
   */
  public static Map<String, Object> durableWriter(Map<String, Object> producerConfig) {
    Map<String, Object> p = new HashMap<>(producerConfig);
    p.put(org.apache.kafka.clients.producer.ProducerConfig.ACKS_CONFIG, "all");
    p.put(org.apache.kafka.clients.producer.ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG, 0);
    return p;
  }
}
