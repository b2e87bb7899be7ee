package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.client.internal.Validators;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;

/**
 * Configuration of a {@link QueueProducer}. Keys starting with {@code ordo.} are Ordo's; every other
 * key is a Kafka producer setting ({@code bootstrap.servers}, {@code linger.ms}, security...); a key
 * prefixed with {@code producer.} wins, one prefixed with {@code consumer.} goes to the stats
 * consumer of the backlog limit only. Idempotence and acks=all cannot be turned off.
 */
public final class QueueProducerConfig extends AbstractConfig {
  public static final String CLUSTER_CONFIG = CommonConfigs.CLUSTER_CONFIG;
  public static final String CLUSTER_DOC = CommonConfigs.CLUSTER_DOC;

  public static final String PAYLOAD_MAX_BYTES_CONFIG = "ordo.payload.max.bytes";
  public static final String PAYLOAD_MAX_BYTES_DOC = "Largest payload enqueue accepts; larger ones are refused"
      + " with a PayloadTooLargeException before anything is written. Keep it at or below the queue's own"
      + " limit (ordo.payload.max.bytes of the cluster, 10 KiB by default): the queue dead-letters larger"
      + " items, which the producer would only learn from the dead-letter topic.";

  public static final String HEADERS_MAX_BYTES_CONFIG = "ordo.headers.max.bytes";
  public static final String HEADERS_MAX_BYTES_DOC = "Largest total size of an item's headers (every name's UTF-8"
      + " bytes plus every value's bytes) enqueue accepts; larger ones are refused with a HeadersTooLargeException"
      + " before anything is written. Keep it at or below the queue's own limit (ordo.headers.max.bytes of the"
      + " cluster, 8 KiB by default): the queue dead-letters items over it.";

  public static final String BACKLOG_MAX_ITEMS_CONFIG = "ordo.producer.backlog.max.items";
  public static final String BACKLOG_MAX_ITEMS_DOC = "Backpressure: refuse (BacklogFullException) an enqueue to a"
      + " namespace whose items not being worked on (ready + delayed + parked, over all its topics, from"
      + " <cluster>.topics) number at least this many. The counts lag by the queue's stats interval (1 s), so the"
      + " limit is soft. 0: no limit, and no stats consumer is started.";

  public static final String BACKPRESSURE_CONFIG = "ordo.producer.backpressure";
  public static final String BACKPRESSURE_DOC = "Backpressure from the namespace policies: an enqueue to a namespace"
      + " whose items waiting (ready + delayed + parked + overflow, from <cluster>.topics) reach its policy's"
      + " maxBacklog waits up to max.block.ms for room, then fails with BacklogFullException. The counts lag by"
      + " the queue's stats interval (1 s), so the limit is soft; items that still arrive wait in OVERFLOW."
      + " false: no stats consumer (unless ordo.producer.backlog.max.items is set), and only OVERFLOW protects.";

  public static final String SCHEMA_REGISTRY_URL_CONFIG = CommonConfigs.SCHEMA_REGISTRY_URL_CONFIG;

  private static final ConfigDef CONFIG = CommonConfigs.define(new ConfigDef())
      .define(PAYLOAD_MAX_BYTES_CONFIG, Type.INT, 10 * 1024, Range.atLeast(0), Importance.MEDIUM, PAYLOAD_MAX_BYTES_DOC)
      .define(HEADERS_MAX_BYTES_CONFIG, Type.INT, 8 * 1024, Range.atLeast(0), Importance.MEDIUM, HEADERS_MAX_BYTES_DOC)
      .define(BACKLOG_MAX_ITEMS_CONFIG, Type.LONG, 0L, Range.atLeast(0), Importance.MEDIUM, BACKLOG_MAX_ITEMS_DOC)
      .define(BACKPRESSURE_CONFIG, Type.BOOLEAN, true, Importance.MEDIUM, BACKPRESSURE_DOC);

  private final ClusterTopics topics;
  private final Time time;
  private final String clientId = "ordo-producer-" + UUID.randomUUID().toString().substring(0, 8);

  public QueueProducerConfig(Map<String, ?> props) {
    this(props, Time.SYSTEM);
  }

  /** {@code time}: the clock of the producer's delays and backlog waits (a mock one in tests). */
  public QueueProducerConfig(Map<String, ?> props, Time time) {
    super(CONFIG, props);
    this.time = java.util.Objects.requireNonNull(time, "time");
    this.topics = new ClusterTopics(getString(CLUSTER_CONFIG));
    if (producerConfigs().get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG) == null) {
      throw new ConfigException(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, null, "the Kafka bootstrap servers are required");
    }
  }

  /** Items written Confluent-framed through the schema registry, or single-object without one. */
  public dev.ordo.serde.WireFormat wireFormat() {
    return dev.ordo.serde.WireFormat.of(getString(SCHEMA_REGISTRY_URL_CONFIG), dev.ordo.client.internal.Wire.TIMEOUT);
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  /** The clock of the producer built from this configuration: {@link Time#SYSTEM} unless given. */
  public Time time() {
    return time;
  }

  public ClusterTopics topics() {
    return topics;
  }

  public int payloadMaxBytes() {
    return getInt(PAYLOAD_MAX_BYTES_CONFIG);
  }

  public int headersMaxBytes() {
    return getInt(HEADERS_MAX_BYTES_CONFIG);
  }

  public long backlogMaxItems() {
    return getLong(BACKLOG_MAX_ITEMS_CONFIG);
  }

  public boolean backpressure() {
    return getBoolean(BACKPRESSURE_CONFIG);
  }

  /** How long an enqueue waits for room in a full backlog: the Kafka producer's {@code max.block.ms} (60 s by default). */
  public long maxBlockMs() {
    Object v = producerConfigs().get(ProducerConfig.MAX_BLOCK_MS_CONFIG);
    return v == null ? 60_000L : Long.parseLong(v.toString());
  }

  /** Settings of the items producer: idempotent, acks=all. */
  Map<String, Object> producerConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.PRODUCER_PREFIX, Set.of());
    props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    // Keep the last known brokers while none answers (decisions D26): with Kafka's default, "rebootstrap",
    // the producer forgets every topic's metadata when no broker answers, and each send then blocks for
    // max.block.ms and fails instead of waiting in the buffer until Kafka is back.
    props.putIfAbsent(CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG, "none");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  /** Settings of the stats consumer behind the backlog limit: assigned, read_committed. */
  Map<String, Object> statsConsumerConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.CONSUMER_PREFIX, Set.of());
    props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-stats");
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }
}
