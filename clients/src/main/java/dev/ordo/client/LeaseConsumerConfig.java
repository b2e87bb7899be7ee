package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.internal.Backoff;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.client.internal.Validators;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;

/**
 * Configuration of a {@link LeaseConsumer}: every {@link QueueClientConfig} key (for the embedded
 * client that sends acks and heartbeats and serves the low-level calls), plus the keys below.
 * Other keys are Kafka client settings as for {@link QueueClientConfig}; {@code group.id} is given
 * to the group consumer only.
 */
public final class LeaseConsumerConfig extends AbstractConfig {
  public static final String GROUP_ID_CONFIG = ConsumerConfig.GROUP_ID_CONFIG;
  public static final String GROUP_ID_DOC = "The consumer group on <cluster>.deliveries. Its members share the"
      + " partitions, each asking the queue for items of the partitions it owns. A member that leaves gracefully"
      + " hands over the items in transit to it; one that crashes leaves its items to lease expiry.";

  public static final String NAMESPACE_CONFIG = "ordo.consumer.namespace";
  public static final String NAMESPACE_DOC = "The namespace whose items this consumer works on.";

  public static final String TOPICS_CONFIG = "ordo.consumer.topics";
  public static final String TOPICS_DOC = "The topics of the namespace to work on, or * for all of them in one"
      + " priority order. With several named topics each may fill the whole capacity of a partition, and what"
      + " arrives beyond max.in.flight is released again (a wasted round trip); * has no such cost.";

  public static final String MAX_IN_FLIGHT_CONFIG = "ordo.consumer.max.in.flight";
  public static final String MAX_IN_FLIGHT_DOC = "Most items leased to this consumer at once, running or"
      + " waiting for a worker thread. Split evenly over the partitions it owns (the remainder rotating), so an"
      + " item waits for a free slot of its own partition. More: more throughput when each item's round trip"
      + " through the queue (delivery, ack, new demand) rather than the handler is the limit, and more items"
      + " whose leases a crash leaves to expire.";

  public static final String QUEUEING_TARGET_CONFIG = "ordo.consumer.queueing.target.ms";
  public static final String QUEUEING_TARGET_DOC = "The consumer holds fewer than max.in.flight items when more would"
      + " only queue: when even the shortest delay of a quarter second (an item's wait here for a worker plus its"
      + " ack's round trip through the queue, the handler's time not counted) is longer than the shortest of the"
      + " last 30 s by more than this, it asks the queue for fewer (a fifth, more the longer the delay, half at"
      + " most; never below the workers, at least 8), and"
      + " grows back by 5% a quarter second while the delays stay within it. Items that only queue hold leases a"
      + " crash leaves to expire, and wait, here or as acks and demands ahead of new items at the queue, without"
      + " adding throughput. 0: always max.in.flight.";

  public static final String WORKERS_CONFIG = "ordo.consumer.workers";
  public static final String WORKERS_DOC = "Worker threads running the handler; 0 means as many as max.in.flight,"
      + " so that every leased item runs at once. Fewer: leased items wait in order for a worker, their leases"
      + " heartbeated meanwhile, which keeps the queue's pipeline full for fast handlers without a thread per"
      + " item.";

  public static final String DEMAND_REFRESH_CONFIG = "ordo.consumer.demand.refresh.ms";
  public static final String DEMAND_REFRESH_DOC = "How often the consumer re-sends its demand to each partition it"
      + " owns (the free slots, replacing the previous demand) and commits its read positions. Demand is soft"
      + " state that the queue loses when a partition's task moves; this bounds how long the consumer then"
      + " waits for items. Shorter: faster recovery, more command records, and under load more items arriving"
      + " beyond capacity (released again).";

  public static final String DEMAND_VALIDITY_CONFIG = "ordo.consumer.demand.validity.ms";
  public static final String DEMAND_VALIDITY_DOC = "How long the queue keeps a demand that is not refreshed. Must"
      + " exceed the refresh interval. Longer: survives slow refreshes; shorter: a crashed consumer stops"
      + " receiving items sooner (items delivered to it wait for their lease to expire).";

  public static final String HEARTBEAT_FRACTION_CONFIG = "ordo.consumer.heartbeat.fraction";
  public static final String HEARTBEAT_FRACTION_DOC = "A running item's lease is extended (by its original"
      + " duration) when this fraction of it has passed. Lower: more extend commands, more time to retry a"
      + " failed heartbeat before the lease is given up and the handler interrupted.";

  public static final String BACKOFF_INITIAL_CONFIG = "ordo.consumer.retry.backoff.initial.ms";
  public static final String BACKOFF_INITIAL_DOC = "Delay before retrying an item whose handler failed on its first"
      + " attempt; it doubles with each attempt up to the maximum. 0: retry at once.";

  public static final String BACKOFF_MAX_CONFIG = "ordo.consumer.retry.backoff.max.ms";
  public static final String BACKOFF_MAX_DOC = "Longest retry delay. Long delays travel the queue's delay tiers.";

  public static final String BACKOFF_JITTER_CONFIG = "ordo.consumer.retry.backoff.jitter";
  public static final String BACKOFF_JITTER_DOC = "Up to this fraction of each retry delay is taken off at random,"
      + " so that items that failed together (a downstream outage) do not all come back together.";

  public static final String CLOSE_GRACE_CONFIG = "ordo.consumer.close.grace.ms";
  public static final String CLOSE_GRACE_DOC = "On close, how long running handlers may finish (and be acked or"
      + " nacked) after the consumer stopped asking for items. Then they are interrupted and their items"
      + " released: ready again at once, no attempt counted.";

  private static final ConfigDef CONFIG = QueueClientConfig.define(new ConfigDef())
      .define(GROUP_ID_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Validators.nonEmpty(), Importance.HIGH,
          GROUP_ID_DOC)
      .define(NAMESPACE_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Validators.name("namespace"),
          Importance.HIGH, NAMESPACE_DOC)
      .define(TOPICS_CONFIG, Type.LIST, "*", Validators.topics(), Importance.HIGH, TOPICS_DOC)
      .define(MAX_IN_FLIGHT_CONFIG, Type.INT, 10, Range.between(1, 10_000), Importance.HIGH, MAX_IN_FLIGHT_DOC)
      .define(QUEUEING_TARGET_CONFIG, Type.LONG, 25L, Range.between(0, 60_000), Importance.LOW,
          QUEUEING_TARGET_DOC)
      .define(WORKERS_CONFIG, Type.INT, 0, Range.between(0, 10_000), Importance.MEDIUM, WORKERS_DOC)
      .define(DEMAND_REFRESH_CONFIG, Type.LONG, 500L, Range.between(10, 60_000), Importance.LOW, DEMAND_REFRESH_DOC)
      .define(DEMAND_VALIDITY_CONFIG, Type.LONG, 3_000L, Range.between(20, 600_000), Importance.LOW,
          DEMAND_VALIDITY_DOC)
      .define(HEARTBEAT_FRACTION_CONFIG, Type.DOUBLE, 0.5, Range.between(0.1, 0.9), Importance.LOW,
          HEARTBEAT_FRACTION_DOC)
      .define(BACKOFF_INITIAL_CONFIG, Type.LONG, 1_000L, Range.between(0, 86_400_000L), Importance.MEDIUM,
          BACKOFF_INITIAL_DOC)
      .define(BACKOFF_MAX_CONFIG, Type.LONG, 300_000L, Range.between(0, 86_400_000L), Importance.MEDIUM,
          BACKOFF_MAX_DOC)
      .define(BACKOFF_JITTER_CONFIG, Type.DOUBLE, 0.2, Range.between(0.0, 1.0), Importance.LOW, BACKOFF_JITTER_DOC)
      .define(CLOSE_GRACE_CONFIG, Type.LONG, 10_000L, Range.between(0, 3_600_000L), Importance.MEDIUM,
          CLOSE_GRACE_DOC);

  private final QueueClientConfig clientConfig;
  private final String memberId = UUID.randomUUID().toString().substring(0, 8);

  public LeaseConsumerConfig(Map<String, ?> props) {
    this(props, Time.SYSTEM);
  }

  /** {@code time}: the clock of the consumer and its embedded client (a mock one in tests). */
  public LeaseConsumerConfig(Map<String, ?> props, Time time) {
    super(CONFIG, props);
    if (getLong(DEMAND_VALIDITY_CONFIG) <= getLong(DEMAND_REFRESH_CONFIG)) {
      throw new ConfigException(DEMAND_VALIDITY_CONFIG, getLong(DEMAND_VALIDITY_CONFIG),
          "must exceed " + DEMAND_REFRESH_CONFIG + " (" + getLong(DEMAND_REFRESH_CONFIG) + ")");
    }
    if (getLong(BACKOFF_MAX_CONFIG) < getLong(BACKOFF_INITIAL_CONFIG)) {
      throw new ConfigException(BACKOFF_MAX_CONFIG, getLong(BACKOFF_MAX_CONFIG),
          "must be at least " + BACKOFF_INITIAL_CONFIG + " (" + getLong(BACKOFF_INITIAL_CONFIG) + ")");
    }
    Map<String, Object> client = new HashMap<>(originals());
    if (getString(QueueClientConfig.CLIENT_ID_CONFIG).isEmpty()) {
      client.put(QueueClientConfig.CLIENT_ID_CONFIG, "lease-" + memberId);
    }
    this.clientConfig = new QueueClientConfig(client, time);
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public ClusterTopics topics() {
    return clientConfig.topics();
  }

  /** The clock of the consumer and its embedded client: {@link Time#SYSTEM} unless given. */
  public Time time() {
    return clientConfig.time();
  }

  public QueueClientConfig clientConfig() {
    return clientConfig;
  }

  public String groupId() {
    return getString(GROUP_ID_CONFIG);
  }

  /**
   * This member's requester id, {@code <group>/m-<random>}: unique per instance, and recognisable
   * by the group's other members, which adopt what was in transit to it when it handed a partition over.
   */
  public String requesterId() {
    return groupId() + "/m-" + memberId;
  }

  public String namespace() {
    return getString(NAMESPACE_CONFIG);
  }

  public List<String> topicNames() {
    return getList(TOPICS_CONFIG);
  }

  public int maxInFlight() {
    return getInt(MAX_IN_FLIGHT_CONFIG);
  }

  /** Worker threads: {@code ordo.consumer.workers}, or max.in.flight when that is 0; never more than max.in.flight. */
  public int workers() {
    int w = getInt(WORKERS_CONFIG);
    return w == 0 ? maxInFlight() : Math.min(w, maxInFlight());
  }

  /** {@code ordo.consumer.queueing.target.ms}: zero keeps the window at max.in.flight. */
  public Duration queueingTarget() {
    return Duration.ofMillis(getLong(QUEUEING_TARGET_CONFIG));
  }

  public Duration demandRefresh() {
    return Duration.ofMillis(getLong(DEMAND_REFRESH_CONFIG));
  }

  public Duration demandValidity() {
    return Duration.ofMillis(getLong(DEMAND_VALIDITY_CONFIG));
  }

  public double heartbeatFraction() {
    return getDouble(HEARTBEAT_FRACTION_CONFIG);
  }

  public Backoff backoff() {
    return new Backoff(getLong(BACKOFF_INITIAL_CONFIG), getLong(BACKOFF_MAX_CONFIG), getDouble(BACKOFF_JITTER_CONFIG));
  }

  public Duration closeGrace() {
    return Duration.ofMillis(getLong(CLOSE_GRACE_CONFIG));
  }

  /**
   * Settings of the group consumer: read_committed, no auto commit (positions are committed by the
   * consumer itself, with a hand-over mark on revoke), new groups start at the end, cooperative
   * rebalancing under the classic protocol.
   */
  Map<String, Object> groupConsumerConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.CONSUMER_PREFIX, Set.of());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId());
    props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, groupId() + "-" + memberId);
    String protocol = String.valueOf(props.getOrDefault(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic"));
    if ("classic".equalsIgnoreCase(protocol)) {
      props.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
    }
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }
}
