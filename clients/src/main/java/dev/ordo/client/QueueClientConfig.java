package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.client.internal.Validators;
import dev.ordo.client.internal.Wire;
import dev.ordo.serde.WireFormat;
import java.time.Duration;
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
 * Configuration of a {@link QueueClient}. Keys starting with {@code ordo.} are Ordo's, defined
 * below. Every other key is a Kafka client setting ({@code bootstrap.servers}, security...) given
 * to the client's consumer and producer; a key prefixed with {@code consumer.} or {@code producer.}
 * goes to that client only and wins. Settings the protocol depends on (read_committed, idempotence,
 * acks=all, serializers, no auto commit) cannot be overridden.
 */
public final class QueueClientConfig extends AbstractConfig {
  public static final String CLUSTER_CONFIG = CommonConfigs.CLUSTER_CONFIG;
  public static final String CLUSTER_DOC = CommonConfigs.CLUSTER_DOC;

  public static final String CLIENT_ID_CONFIG = "ordo.client.id";
  public static final String CLIENT_ID_DOC = "This client's name, in its Kafka client ids and requester ids"
      + " (<id>/<random incarnation>/d<n> for dequeues, .../c<n> for commands, so clients sharing a name never"
      + " take each other's replies). Its hash picks the reply partition unless one is set. Empty:"
      + " ordo-client-<random>.";

  public static final String REPLY_PARTITION_CONFIG = "ordo.client.reply.partition";
  public static final String REPLY_PARTITION_DOC = "The partition of <cluster>.deliveries this client reads its"
      + " deliveries and outcomes from. Clients on the same partition read each other's replies and skip"
      + " them, so spread busy clients over partitions. -1: chosen by a hash of the client id.";

  public static final String REQUEST_TIMEOUT_CONFIG = "ordo.client.request.timeout.ms";
  public static final String REQUEST_TIMEOUT_DOC = "How long ack, nack, extend, release and cancel wait for"
      + " their outcome before failing with a TimeoutException. The command may still be applied later:"
      + " a timeout means 'unknown', not 'refused'. Longer rides out a queue instance failing over (a few"
      + " seconds); shorter frees callers sooner.";

  public static final String ACK_LINGER_CONFIG = "ordo.client.ack.linger.ms";
  public static final String ACK_LINGER_DOC = "A lease consumer's acks to one partition that come within this"
      + " many milliseconds of each other travel as one command (up to 500 acks), answered by one outcome"
      + " record: fewer Kafka records per item at the price of this much later ack outcomes. 0 sends each"
      + " ack at once, still as a batch of what is waiting. The caller's own ack() is never delayed.";

  public static final String DEQUEUE_GATHER_CONFIG = "ordo.client.dequeue.gather.ms";
  public static final String DEQUEUE_GATHER_DOC = "A dequeue that long-polls (the stats showed nothing ready for"
      + " it) asks every partition for a share of its count and returns this long after the first item arrived."
      + " Longer: better priority order across partitions (their answers arrive up to a commit interval of the"
      + " queue apart) and fuller batches, more latency. 0: return with the first answer. A dequeue that asked"
      + " the partitions its stats showed items on returns as soon as they all answered.";

  public static final String DEQUEUE_STICKY_CONFIG = "ordo.client.dequeue.sticky.ms";
  public static final String DEQUEUE_STICKY_DOC = "Among partitions whose best items have the same priority, a"
      + " dequeue asks first the partition that served this client's last dequeue, as long as that partition's"
      + " oldest ready item is at most this many milliseconds younger than the oldest ready item of the same"
      + " priority anywhere (as the topics' stats show them). Concurrent dequeues then work one partition at a time"
      + " instead of all of them, which under exactly-once makes each of the queue's transactions touch fewer"
      + " partitions (decisions D40). 0: no preference; the partition holding the most ready items first.";

  public static final String DEQUEUE_MIN_WAIT_CONFIG = "ordo.client.dequeue.min.wait.ms";
  public static final String DEQUEUE_MIN_WAIT_DOC = "The shortest a dequeue waits for items, even when asked"
      + " not to wait: the round trip through the queue (produce, one commit interval of the queue's"
      + " transactions, fetch). Shorter than that round trip, a dequeue can come back empty while items are"
      + " ready.";

  public static final String DEMAND_REFRESH_CONFIG = "ordo.client.demand.refresh.ms";
  public static final String DEMAND_REFRESH_DOC = "A long-polling dequeue refreshes its demand this often, and"
      + " each demand lapses after twice this unless refreshed. Demand is soft state: it is lost when a queue"
      + " partition moves between instances, and a dequeue whose client died must stop receiving items."
      + " Shorter: faster recovery, more command records.";

  public static final String DEQUEUE_MAX_ITEMS_CONFIG = "ordo.client.dequeue.max.items";
  public static final String DEQUEUE_MAX_ITEMS_DOC = "Most items one dequeue may ask for, over all its topics; more is"
      + " refused with an IllegalArgumentException. The partitions the stats show ready items on are asked for"
      + " what they hold; when the stats show fewer than wanted, every partition is asked for a share of the"
      + " rest, so this bounds the work one call can cause.";

  public static final String SCHEMA_REGISTRY_URL_CONFIG = CommonConfigs.SCHEMA_REGISTRY_URL_CONFIG;

  private static final ConfigDef CONFIG = define(new ConfigDef());

  private final ClusterTopics topics;
  private final String clientId;
  private final WireFormat wire;
  private final Time time;

  public static final String BUSY_WINDOW_CONFIG = "ordo.client.busy.window.ms";
  public static final String BUSY_WINDOW_DOC = "The sliding window of ordo_consumer_busy_ratio (decisions D58): the"
      + " fraction of this window a lease consumer's handler slots spent running handlers (the HTTP API: the"
      + " fraction a consumer group held items with none of its workers waiting in a dequeue). Longer smooths"
      + " bursts, shorter shows a change sooner; an autoscaler should look at a window longer than a worker's"
      + " start-up time.";

  public static final String BREAKER_TIMEOUTS_CONFIG = "ordo.client.partition.breaker.timeouts";
  public static final String BREAKER_TIMEOUTS_DOC = "A dequeue's breaker per queue partition (decisions D58): after"
      + " this many dequeue rounds in a row in which the partition did not answer in time, the client stops asking"
      + " it (dequeues are served by the other partitions) until a probe finds it answering again. A hung owner (a"
      + " stuck stream thread, a GC pause, a stalled broker) then no longer holds every dequeue for its wait. 0"
      + " turns the breaker off: every partition is always asked.";

  public static final String BREAKER_OPEN_CONFIG = "ordo.client.partition.breaker.open.ms";
  public static final String BREAKER_OPEN_DOC = "How long an open breaker keeps its partition out of dequeues"
      + " before one dequeue probes it again; doubled after each failed probe, up to 8 times this. Shorter finds a"
      + " recovered partition sooner, at the cost of a probing dequeue waiting on a partition still hung"
      + " (it is served by the others meanwhile, only its items from that partition are missed).";

  public QueueClientConfig(Map<String, ?> props) {
    this(props, Time.SYSTEM);
  }

  /** {@code time}: the clock of the client's timeouts, waits and stats (a mock one in tests). */
  public QueueClientConfig(Map<String, ?> props, Time time) {
    super(CONFIG, props);
    this.time = java.util.Objects.requireNonNull(time, "time");
    this.topics = new ClusterTopics(getString(CLUSTER_CONFIG));
    String id = getString(CLIENT_ID_CONFIG);
    this.wire = WireFormat.of(getString(SCHEMA_REGISTRY_URL_CONFIG), Wire.TIMEOUT);
    this.clientId = id.isEmpty() ? "ordo-client-" + UUID.randomUUID().toString().substring(0, 8) : id;
    if (consumerConfigs().get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG) == null) {
      throw new ConfigException(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, null, "the Kafka bootstrap servers are required");
    }
  }

  /** The clock of the client built from this configuration: {@link Time#SYSTEM} unless given. */
  public Time time() {
    return time;
  }

  /** How the queue's records are read: single-object, or Confluent-framed through the schema registry. */
  public WireFormat wireFormat() {
    return wire;
  }

  /** Adds this configuration's keys to {@code def}: {@link LeaseConsumerConfig} builds on them. */
  static ConfigDef define(ConfigDef def) {
    return CommonConfigs.define(def)
        .define(CLIENT_ID_CONFIG, Type.STRING, "", Validators.optionalId(), Importance.MEDIUM, CLIENT_ID_DOC)
        .define(REPLY_PARTITION_CONFIG, Type.INT, -1, Range.atLeast(-1), Importance.LOW, REPLY_PARTITION_DOC)
        .define(REQUEST_TIMEOUT_CONFIG, Type.LONG, 10_000L, Range.between(1, 600_000), Importance.MEDIUM,
            REQUEST_TIMEOUT_DOC)
        .define(ACK_LINGER_CONFIG, Type.LONG, 5L, Range.between(0, 1_000), Importance.LOW, ACK_LINGER_DOC)
        .define(DEQUEUE_GATHER_CONFIG, Type.LONG, 50L, Range.between(0, 10_000), Importance.LOW, DEQUEUE_GATHER_DOC)
        .define(DEQUEUE_STICKY_CONFIG, Type.LONG, 1_000L, Range.between(0, 3_600_000), Importance.LOW,
            DEQUEUE_STICKY_DOC)
        .define(DEQUEUE_MIN_WAIT_CONFIG, Type.LONG, 250L, Range.between(0, 60_000), Importance.LOW,
            DEQUEUE_MIN_WAIT_DOC)
        .define(DEMAND_REFRESH_CONFIG, Type.LONG, 1_000L, Range.between(10, 60_000), Importance.LOW,
            DEMAND_REFRESH_DOC)
        .define(DEQUEUE_MAX_ITEMS_CONFIG, Type.INT, 1_000, Range.between(1, 1_000_000), Importance.LOW,
            DEQUEUE_MAX_ITEMS_DOC)
        .define(BUSY_WINDOW_CONFIG, Type.LONG, 60_000L, Range.between(100, 3_600_000), Importance.LOW, BUSY_WINDOW_DOC)
        .define(BREAKER_TIMEOUTS_CONFIG, Type.INT, 3, Range.between(0, 1_000), Importance.LOW, BREAKER_TIMEOUTS_DOC)
        .define(BREAKER_OPEN_CONFIG, Type.LONG, 5_000L, Range.between(10, 3_600_000), Importance.LOW,
            BREAKER_OPEN_DOC);
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public ClusterTopics topics() {
    return topics;
  }

  /** The configured client id, or the random one chosen once for this config. */
  public String clientId() {
    return clientId;
  }

  public int replyPartition() {
    return getInt(REPLY_PARTITION_CONFIG);
  }

  public Duration requestTimeout() {
    return Duration.ofMillis(getLong(REQUEST_TIMEOUT_CONFIG));
  }

  public Duration ackLinger() {
    return Duration.ofMillis(getLong(ACK_LINGER_CONFIG));
  }

  public Duration dequeueGather() {
    return Duration.ofMillis(getLong(DEQUEUE_GATHER_CONFIG));
  }

  public Duration dequeueSticky() {
    return Duration.ofMillis(getLong(DEQUEUE_STICKY_CONFIG));
  }

  public Duration dequeueMinWait() {
    return Duration.ofMillis(getLong(DEQUEUE_MIN_WAIT_CONFIG));
  }

  public Duration demandRefresh() {
    return Duration.ofMillis(getLong(DEMAND_REFRESH_CONFIG));
  }

  public int dequeueMaxItems() {
    return getInt(DEQUEUE_MAX_ITEMS_CONFIG);
  }

  public Duration busyWindow() {
    return Duration.ofMillis(getLong(BUSY_WINDOW_CONFIG));
  }

  /** Rounds in a row a partition may leave unanswered before its breaker opens; 0: no breaker. */
  public int breakerTimeouts() {
    return getInt(BREAKER_TIMEOUTS_CONFIG);
  }

  public Duration breakerOpen() {
    return Duration.ofMillis(getLong(BREAKER_OPEN_CONFIG));
  }

  /** Settings of the reply consumer: assigned (no group), read_committed, no commits. */
  Map<String, Object> consumerConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.CONSUMER_PREFIX, Set.of(ConsumerConfig.GROUP_ID_CONFIG));
    props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-replies");
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  /** Settings of the command producer: idempotent, acks=all, no linger (commands are latency-bound). */
  Map<String, Object> producerConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.PRODUCER_PREFIX, Set.of(ConsumerConfig.GROUP_ID_CONFIG));
    props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-commands");
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0);
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
}
