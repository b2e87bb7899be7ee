package dev.ordo.delay;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Configuration of the delay tiers ({@link DelayTiers}, {@link DelayForwarder}, {@link DelayClient}).
 *
 * <p>Keys starting with {@code ordo.} are Ordo's, defined below. Every other key is a Kafka client
 * setting passed to the consumers and producers ({@code bootstrap.servers}, security settings...);
 * a key prefixed with {@code consumer.} or {@code producer.} goes to that client only and wins.
 * Settings that the forwarders' exactly-once forwarding depends on (transactional id, isolation
 * level, auto commit, serializers) cannot be overridden.
 */
public final class DelayTiersConfig extends AbstractConfig {
  public static final String CLUSTER_CONFIG = "ordo.cluster";
  public static final String CLUSTER_DOC = "The Ordo cluster: the prefix of its topics. Tier topics are "
      + "<cluster>.delay.<tier>, dead letters go to <cluster>.dlq.";

  public static final String TIERS_CONFIG = "ordo.delay.tiers";
  public static final String TIERS_DOC = "The fixed delays of the tier topics, strictly increasing, e.g. "
      + "30s,1m,5m,30m. More tiers mean fewer hops for long delays (less broker traffic) but more topics "
      + "and forwarders. Every instance must run the same list: a record in a tier nobody forwards stays there. "
      + "To change the list, keep forwarding the old tiers until they are empty.";

  public static final String HOP_ALLOWANCE_CONFIG = "ordo.delay.hop.allowance.ms";
  public static final String HOP_ALLOWANCE_DOC = "What one hop through a tier (fetch, produce, commit) is "
      + "expected to cost. The client writes a record that much earlier per planned hop, so that the hops' "
      + "own time does not make it late: it reaches its last tier a little early and that tier's forwarder "
      + "holds it aside until its due time (never early). Too low: records that hops made late leave their "
      + "last tier by their due time out of order and may wait behind its head; too high: more records held "
      + "aside, longer.";

  public static final String ROUTE_SLACK_CONFIG = "ordo.delay.route.slack.ms";
  public static final String ROUTE_SLACK_DOC = "How much longer than a record's remaining delay a tier may "
      + "be and still be chosen; such a record leaves the tier at its due time. It keeps a record on its "
      + "planned path when hops took longer than the allowance. Must be shorter than the shortest tier. "
      + "Larger values let a record hold the head of a tier partition up to that long.";

  public static final String CLIENT_HOLD_RESIDUAL_CONFIG = "ordo.delay.client.hold.residual";
  public static final String CLIENT_HOLD_RESIDUAL_DOC = "Whether DelayClient waits in memory for the part "
      + "of a delay that tiers cannot express (less than the shortest tier) before writing the record. "
      + "true: the returned future completes at the write, up to the shortest tier later, and a client process "
      + "that dies in between has not written the record (its future never completed). false: the record is "
      + "written at once and durable at once; the forwarder of its last tier holds it aside for up to the "
      + "shortest tier, which costs memory there (at most 256 records per partition; beyond that the partition "
      + "waits at its head, delaying the records behind). Delays shorter than the shortest tier are always "
      + "waited by the client (no tier is short enough).";

  public static final String INSTANCE_ID_CONFIG = "ordo.delay.instance.id";
  public static final String INSTANCE_ID_DOC = "A name for this instance that stays the same across restarts "
      + "(a host or pod name). The forwarders' transactional ids are <group>-<instance id>: a restarted "
      + "instance fences its previous incarnation and aborts its open transaction at once. Empty: a random id "
      + "per process; then a crashed forwarder's open transaction holds back read_committed readers of the "
      + "partitions it wrote until " + "ordo.delay.transaction.timeout.ms" + " passes.";

  public static final String TRANSACTION_TIMEOUT_CONFIG = "ordo.delay.transaction.timeout.ms";
  public static final String TRANSACTION_TIMEOUT_DOC = "transaction.timeout.ms of the forwarders' producers: "
      + "how long the broker lets a crashed forwarder's transaction block read_committed readers before "
      + "aborting it. Lower is better for lateness after a crash; it must exceed a forward batch's duration.";

  public static final String MAX_POLL_MS_CONFIG = "ordo.delay.forwarder.max.poll.ms";
  public static final String MAX_POLL_MS_DOC = "The longest a forwarder's poll blocks when no paused "
      + "partition is due sooner. Only bounds how often an idle forwarder loops; due times are met exactly.";

  public static final String ERROR_BACKOFF_CONFIG = "ordo.delay.forwarder.error.backoff.ms";
  public static final String ERROR_BACKOFF_DOC = "After a failed transaction with no record to blame (broker "
      + "unavailable, rebalance), the forwarder pauses its partitions this long and retries. It keeps polling "
      + "meanwhile, so it stays in its group.";

  public static final String CONSUMER_PREFIX = "consumer.";
  public static final String PRODUCER_PREFIX = "producer.";

  private static final ConfigDef CONFIG = new ConfigDef()
      .define(CLUSTER_CONFIG, Type.STRING, "ordo", clusterValidator(), Importance.HIGH, CLUSTER_DOC)
      .define(TIERS_CONFIG, Type.STRING, "30s,1m,5m,30m", tiersValidator(), Importance.HIGH, TIERS_DOC)
      .define(HOP_ALLOWANCE_CONFIG, Type.LONG, 20L, ConfigDef.Range.between(0, 60_000), Importance.LOW,
          HOP_ALLOWANCE_DOC)
      .define(ROUTE_SLACK_CONFIG, Type.LONG, 50L, ConfigDef.Range.atLeast(0), Importance.LOW, ROUTE_SLACK_DOC)
      .define(CLIENT_HOLD_RESIDUAL_CONFIG, Type.BOOLEAN, true, Importance.MEDIUM, CLIENT_HOLD_RESIDUAL_DOC)
      .define(INSTANCE_ID_CONFIG, Type.STRING, "", instanceIdValidator(), Importance.MEDIUM, INSTANCE_ID_DOC)
      .define(TRANSACTION_TIMEOUT_CONFIG, Type.INT, 10_000, ConfigDef.Range.atLeast(1000), Importance.MEDIUM,
          TRANSACTION_TIMEOUT_DOC)
      .define(MAX_POLL_MS_CONFIG, Type.LONG, 1000L, ConfigDef.Range.between(1, 60_000), Importance.LOW,
          MAX_POLL_MS_DOC)
      .define(ERROR_BACKOFF_CONFIG, Type.LONG, 1000L, ConfigDef.Range.between(0, 600_000), Importance.LOW,
          ERROR_BACKOFF_DOC);

  private final List<Duration> tiers;
  private final ClusterTopics topics;
  private final String instanceId;

  public DelayTiersConfig(Map<String, ?> props) {
    super(CONFIG, props);
    this.tiers = Durations.parseList(getString(TIERS_CONFIG));
    this.topics = new ClusterTopics(getString(CLUSTER_CONFIG));
    String id = getString(INSTANCE_ID_CONFIG);
    this.instanceId = id.isEmpty() ? UUID.randomUUID().toString() : id;
    if (getLong(ROUTE_SLACK_CONFIG) >= tiers.get(0).toMillis()) {
      throw new ConfigException(ROUTE_SLACK_CONFIG, getLong(ROUTE_SLACK_CONFIG),
          "must be shorter than the shortest tier " + Durations.format(tiers.get(0)));
    }
    if (clientProps(CONSUMER_PREFIX).get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG) == null
        || clientProps(PRODUCER_PREFIX).get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG) == null) {
      throw new ConfigException(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, null,
          "the Kafka bootstrap servers are required");
    }
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public ClusterTopics topics() {
    return topics;
  }

  public List<Duration> tiers() {
    return tiers;
  }

  /** The instance id (the configured one, or a random one chosen once for this config). */
  public String instanceId() {
    return instanceId;
  }

  public Duration hopAllowance() {
    return Duration.ofMillis(getLong(HOP_ALLOWANCE_CONFIG));
  }

  public Duration routeSlack() {
    return Duration.ofMillis(getLong(ROUTE_SLACK_CONFIG));
  }

  public boolean clientHoldsResidual() {
    return getBoolean(CLIENT_HOLD_RESIDUAL_CONFIG);
  }

  public TierRouter router() {
    return new TierRouter(tiers, routeSlack());
  }

  /** The consumer group of the forwarders of {@code tier}: {@code <cluster>.delay.<d>.forwarder}. */
  public String forwarderGroupId(Duration tier) {
    return topics.delayTier(tier) + ".forwarder";
  }

  /** Consumer settings of a forwarder of {@code tier}. */
  public Map<String, Object> forwarderConsumerConfigs(Duration tier) {
    Map<String, Object> props = new HashMap<>();
    // Latency: a resumed partition is fetched only once the fetch in flight to its broker returns, so
    // the broker must not hold fetches long. 10 ms costs an idle forwarder ~100 cheap requests a second.
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, forwarderGroupId(tier) + "-" + instanceId);
    // Members learn of a rebalance at their next heartbeat; the default 3 s is 3 s of records waiting in
    // the partitions that move when a forwarder leaves or joins.
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
    props.putAll(clientProps(CONSUMER_PREFIX));
    // The classic protocol (the client's default): incremental rebalances keep the paused state and held
    // records of partitions that stay. The consumer protocol (group.protocol=consumer, brokers 4.0+) is
    // incremental by itself and refuses an assignor setting.
    if (!"consumer".equalsIgnoreCase(String.valueOf(props.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG)))) {
      props.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
    }
    props.put(ConsumerConfig.GROUP_ID_CONFIG, forwarderGroupId(tier));
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  /** Producer settings of a forwarder of {@code tier}: transactional, id {@code <group>-<instance id>}. */
  public Map<String, Object> forwarderProducerConfigs(Duration tier) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    // A send to a topic that does not exist blocks this long before it is dead-lettered.
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
    // Back-to-back transactions: the coordinator answers CONCURRENT_TRANSACTIONS while it still writes
    // the previous commit's markers, and the client retries after retry.backoff.ms. The default 100 ms
    // made every transaction that followed another one ~110 ms slower (measured); 5 ms does not.
    props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 2);
    props.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 20);
    props.put(ProducerConfig.CLIENT_ID_CONFIG, forwarderGroupId(tier) + "-" + instanceId + "-producer");
    props.putAll(clientProps(PRODUCER_PREFIX));
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, forwarderGroupId(tier) + "-" + instanceId);
    props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, getInt(TRANSACTION_TIMEOUT_CONFIG));
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  /** Producer settings of a {@link DelayClient} that owns its producer: idempotent, acks=all. */
  public Map<String, Object> clientProducerConfigs() {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    props.putAll(clientProps(PRODUCER_PREFIX));
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  public long maxPollMs() {
    return getLong(MAX_POLL_MS_CONFIG);
  }

  public long errorBackoffMs() {
    return getLong(ERROR_BACKOFF_CONFIG);
  }

  /** Non-Ordo keys, then {@code prefix}-ed keys (prefix removed) on top; other clients' prefixes dropped. */
  private Map<String, Object> clientProps(String prefix) {
    Map<String, Object> props = new HashMap<>();
    originals().forEach((k, v) -> {
      if (!k.startsWith("ordo.") && !k.startsWith(CONSUMER_PREFIX) && !k.startsWith(PRODUCER_PREFIX)) {
        props.put(k, v);
      }
    });
    props.putAll(originalsWithPrefix(prefix));
    return props;
  }

  private static ConfigDef.Validator clusterValidator() {
    return (name, value) -> {
      try {
        new ClusterTopics((String) value);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    };
  }

  private static ConfigDef.Validator tiersValidator() {
    return (name, value) -> {
      try {
        Durations.parseList((String) value);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    };
  }

  private static ConfigDef.Validator instanceIdValidator() {
    return (name, value) -> {
      if (value != null && !((String) value).matches("[A-Za-z0-9._-]{0,100}")) {
        throw new ConfigException(name, value, "up to 100 letters, digits, '.', '_' or '-'");
      }
    };
  }
}
