package dev.ordo.client.stream;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.internal.Backoff;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.client.internal.Validators;
import dev.ordo.client.stream.internal.ClogGuard;
import dev.ordo.delay.DelayTiersConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;

/**
 * Configuration of a {@link StreamConsumer}: the keys below, plus the delay tiers' keys
 * ({@link DelayTiersConfig}: {@code ordo.cluster} names the tier topics and the dead-letter topic,
 * {@code ordo.delay.tiers} must list the tiers the cluster's forwarders run). Every key not starting
 * with {@code ordo.} is a Kafka client setting for the consumer and the producer; {@code consumer.}-
 * and {@code producer.}-prefixed keys go to that client only. What the consumer's guarantees rest on
 * (no auto commit, read_committed, byte-array serdes, an idempotent acks=all producer) cannot be
 * overridden.
 */
public final class StreamConsumerConfig extends AbstractConfig {
  public static final String GROUP_ID_CONFIG = ConsumerConfig.GROUP_ID_CONFIG;
  public static final String GROUP_ID_DOC = "The consumer group. Its members share the partitions of the source"
      + " topics and of the retry topic, and the group's committed offsets say where each partition resumes. It"
      + " also names the default retry topic, <group.id>.retry.";

  public static final String TOPICS_CONFIG = "ordo.stream.topics";
  public static final String TOPICS_DOC = "The source topics to consume (a list). Any Kafka topic: records are"
      + " handed to the handler as bytes.";

  public static final String RETRY_TOPIC_CONFIG = "ordo.stream.retry.topic";
  public static final String RETRY_TOPIC_DOC = "The topic failed records come back on after their backoff, read by"
      + " the same group. Empty: <group.id>.retry. It must exist (create it like the source topics; its partition"
      + " count bounds how many members share retries) and belong to this group alone: another group reading it"
      + " would run this group's retries.";

  public static final String MAX_ATTEMPTS_CONFIG = "ordo.stream.max.attempts";
  public static final String MAX_ATTEMPTS_DOC = "How many times a record is handled before it goes to the"
      + " dead-letter topic <cluster>.dlq with its last error and raw bytes (reason MAX_ATTEMPTS). 1: never"
      + " retried. More attempts ride out longer outages but keep a bad record around longer.";

  public static final String BACKOFF_INITIAL_CONFIG = "ordo.stream.retry.backoff.initial.ms";
  public static final String BACKOFF_INITIAL_DOC = "Delay before the second attempt of a failed record; it doubles"
      + " with each attempt up to the maximum. A delay shorter than the shortest delay tier is waited in this"
      + " process's memory (the record's offset is committed only once the copy is written, so a crash makes the"
      + " record run again from its source, nothing is lost); longer ones travel the delay tiers.";

  public static final String BACKOFF_MAX_CONFIG = "ordo.stream.retry.backoff.max.ms";
  public static final String BACKOFF_MAX_DOC = "Longest delay between two attempts of a record.";

  public static final String BACKOFF_JITTER_CONFIG = "ordo.stream.retry.backoff.jitter";
  public static final String BACKOFF_JITTER_DOC = "Up to this fraction of each retry delay is taken off at random,"
      + " so that records that failed together do not all come back together.";

  public static final String THREADS_CONFIG = "ordo.stream.threads";
  public static final String THREADS_DOC = "Worker threads: how many handlers run at once, over all partitions.";

  public static final String MAX_IN_FLIGHT_CONFIG = "ordo.stream.max.in.flight";
  public static final String MAX_IN_FLIGHT_DOC = "Most records handed to workers and not finished, over all"
      + " partitions (beyond the threads they wait for one). When reached, partitions with records waiting are"
      + " paused until slots free up (backpressure; the consumer keeps polling, so it stays in its group).";

  public static final String PARTITION_MAX_IN_FLIGHT_CONFIG = "ordo.stream.partition.max.in.flight";
  public static final String PARTITION_MAX_IN_FLIGHT_DOC = "Most records of one partition handed to workers and not"
      + " finished. They run in parallel and finish in any order; the committed offset stays at the first"
      + " unfinished one, so a slow record holds back the commit (not the work) of its partition, and a crash"
      + " runs again the records finished above it. 1: one record at a time per partition, in offset order.";

  public static final String COMMIT_INTERVAL_CONFIG = "ordo.stream.commit.interval.ms";
  public static final String COMMIT_INTERVAL_DOC = "How often the committable offsets are committed (asynchronously)."
      + " Shorter: fewer records run again after a crash; more commit requests.";

  public static final String REVOKE_WAIT_CONFIG = "ordo.stream.revoke.wait.ms";
  public static final String REVOKE_WAIT_DOC = "When a rebalance takes partitions away, how long the consumer waits"
      + " for their running records (and the writes of their retry copies) before it commits what is finished and"
      + " lets go. Results arriving later are dropped: the new owner runs those records again. Longer: fewer"
      + " repeats; the whole group waits that much longer for the rebalance.";

  public static final String CLOSE_GRACE_CONFIG = "ordo.stream.close.grace.ms";
  public static final String CLOSE_GRACE_DOC = "On close, how long running records may finish (and their retry"
      + " copies be written) before the handlers are interrupted and what is finished is committed.";

  public static final String CLOG_ENABLED_CONFIG = "ordo.stream.clog.enabled";
  public static final String CLOG_ENABLED_DOC = "Whether the clog guard may stop the stream when most records fail."
      + " false: every failure is copied into the delay tiers, even in a full outage (the whole stream then moves"
      + " through the tiers).";

  public static final String CLOG_WINDOW_CONFIG = "ordo.stream.clog.window.ms";
  public static final String CLOG_WINDOW_DOC = "The sliding window over which the failure ratio is measured."
      + " Shorter: reacts faster, and also to short bursts of failures.";

  public static final String CLOG_MIN_RECORDS_CONFIG = "ordo.stream.clog.min.records";
  public static final String CLOG_MIN_RECORDS_DOC = "The fewest handler outcomes in the window that can clog the"
      + " stream. It bounds how many records are copied into the tiers before the guard reacts to an outage.";

  public static final String CLOG_FAILURE_RATIO_CONFIG = "ordo.stream.clog.failure.ratio";
  public static final String CLOG_FAILURE_RATIO_DOC = "The share of failed outcomes in the window at which the stream"
      + " clogs: partitions pause at their first unfinished record, failures stop being copied to the tiers, and"
      + " single records probe the handler until one succeeds. Lower: clogs on partial outages too.";

  public static final String CLOG_PROBE_INITIAL_CONFIG = "ordo.stream.clog.probe.backoff.initial.ms";
  public static final String CLOG_PROBE_INITIAL_DOC = "How long a clogged stream waits before its first probe. Each"
      + " failed probe (and a clog soon after a recovery) doubles it, up to the maximum.";

  public static final String CLOG_PROBE_MAX_CONFIG = "ordo.stream.clog.probe.backoff.max.ms";
  public static final String CLOG_PROBE_MAX_DOC = "Longest wait between probes of a clogged stream: how late, at"
      + " most, the stream notices that its handler recovered.";

  private static final ConfigDef CONFIG = new ConfigDef(DelayTiersConfig.configDef())
      .define(GROUP_ID_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Validators.nonEmpty(), Importance.HIGH,
          GROUP_ID_DOC)
      .define(TOPICS_CONFIG, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, topicList(), Importance.HIGH, TOPICS_DOC)
      .define(RETRY_TOPIC_CONFIG, Type.STRING, "", optionalTopic(), Importance.HIGH, RETRY_TOPIC_DOC)
      .define(MAX_ATTEMPTS_CONFIG, Type.INT, 5, Range.between(1, 1_000), Importance.HIGH, MAX_ATTEMPTS_DOC)
      .define(BACKOFF_INITIAL_CONFIG, Type.LONG, 1_000L, Range.between(0, 86_400_000L), Importance.MEDIUM,
          BACKOFF_INITIAL_DOC)
      .define(BACKOFF_MAX_CONFIG, Type.LONG, 600_000L, Range.between(0, 7 * 86_400_000L), Importance.MEDIUM,
          BACKOFF_MAX_DOC)
      .define(BACKOFF_JITTER_CONFIG, Type.DOUBLE, 0.2, Range.between(0.0, 1.0), Importance.LOW, BACKOFF_JITTER_DOC)
      .define(THREADS_CONFIG, Type.INT, 8, Range.between(1, 1_000), Importance.HIGH, THREADS_DOC)
      .define(MAX_IN_FLIGHT_CONFIG, Type.INT, 64, Range.between(1, 100_000), Importance.MEDIUM, MAX_IN_FLIGHT_DOC)
      .define(PARTITION_MAX_IN_FLIGHT_CONFIG, Type.INT, 16, Range.between(1, 100_000), Importance.MEDIUM,
          PARTITION_MAX_IN_FLIGHT_DOC)
      .define(COMMIT_INTERVAL_CONFIG, Type.LONG, 1_000L, Range.between(1, 600_000), Importance.LOW,
          COMMIT_INTERVAL_DOC)
      .define(REVOKE_WAIT_CONFIG, Type.LONG, 5_000L, Range.between(0, 300_000), Importance.LOW, REVOKE_WAIT_DOC)
      .define(CLOSE_GRACE_CONFIG, Type.LONG, 10_000L, Range.between(0, 3_600_000L), Importance.MEDIUM,
          CLOSE_GRACE_DOC)
      .define(CLOG_ENABLED_CONFIG, Type.BOOLEAN, true, Importance.MEDIUM, CLOG_ENABLED_DOC)
      .define(CLOG_WINDOW_CONFIG, Type.LONG, 10_000L, Range.between(10, 3_600_000L), Importance.LOW, CLOG_WINDOW_DOC)
      .define(CLOG_MIN_RECORDS_CONFIG, Type.INT, 20, Range.between(1, 1_000_000), Importance.MEDIUM,
          CLOG_MIN_RECORDS_DOC)
      .define(CLOG_FAILURE_RATIO_CONFIG, Type.DOUBLE, 0.9, Range.between(0.01, 1.0), Importance.MEDIUM,
          CLOG_FAILURE_RATIO_DOC)
      .define(CLOG_PROBE_INITIAL_CONFIG, Type.LONG, 1_000L, Range.between(0, 3_600_000L), Importance.LOW,
          CLOG_PROBE_INITIAL_DOC)
      .define(CLOG_PROBE_MAX_CONFIG, Type.LONG, 60_000L, Range.between(0, 86_400_000L), Importance.LOW,
          CLOG_PROBE_MAX_DOC);

  private final DelayTiersConfig delayConfig;
  private final String retryTopic;
  private final Time time;

  public StreamConsumerConfig(Map<String, ?> props) {
    this(props, Time.SYSTEM);
  }

  /** {@code time}: the clock of the consumer's close grace, revoke waits and dead letters (a mock one in tests). */
  public StreamConsumerConfig(Map<String, ?> props, Time time) {
    super(CONFIG, props);
    this.time = java.util.Objects.requireNonNull(time, "time");
    if (getLong(BACKOFF_MAX_CONFIG) < getLong(BACKOFF_INITIAL_CONFIG)) {
      throw new ConfigException(BACKOFF_MAX_CONFIG, getLong(BACKOFF_MAX_CONFIG),
          "must be at least " + BACKOFF_INITIAL_CONFIG + " (" + getLong(BACKOFF_INITIAL_CONFIG) + ")");
    }
    if (getLong(CLOG_PROBE_MAX_CONFIG) < getLong(CLOG_PROBE_INITIAL_CONFIG)) {
      throw new ConfigException(CLOG_PROBE_MAX_CONFIG, getLong(CLOG_PROBE_MAX_CONFIG),
          "must be at least " + CLOG_PROBE_INITIAL_CONFIG + " (" + getLong(CLOG_PROBE_INITIAL_CONFIG) + ")");
    }
    String retry = getString(RETRY_TOPIC_CONFIG);
    this.retryTopic = retry.isEmpty() ? getString(GROUP_ID_CONFIG) + ".retry" : retry;
    if (getList(TOPICS_CONFIG).contains(retryTopic)) {
      throw new ConfigException(RETRY_TOPIC_CONFIG, retryTopic, "the retry topic must not be one of the source topics "
          + TOPICS_CONFIG + "=" + getList(TOPICS_CONFIG));
    }
    try {
      Topic.validate(retryTopic);
    } catch (RuntimeException e) {
      throw new ConfigException(RETRY_TOPIC_CONFIG, retryTopic, e.getMessage());
    }
    // Only the tiers, the cluster and the client's routing settings matter to the DelayClient, which
    // writes with this consumer's producer.
    Map<String, Object> delay = new HashMap<>(originals());
    delay.remove(GROUP_ID_CONFIG);
    this.delayConfig = new DelayTiersConfig(delay);
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  /** The delay tiers' settings, for the {@link dev.ordo.delay.DelayClient} that writes retry copies. */
  public DelayTiersConfig delayConfig() {
    return delayConfig;
  }

  public ClusterTopics topics() {
    return delayConfig.topics();
  }

  public String groupId() {
    return getString(GROUP_ID_CONFIG);
  }

  public List<String> sourceTopics() {
    return getList(TOPICS_CONFIG);
  }

  /** The retry topic: {@code ordo.stream.retry.topic}, or {@code <group.id>.retry}. */
  public String retryTopic() {
    return retryTopic;
  }

  public int maxAttempts() {
    return getInt(MAX_ATTEMPTS_CONFIG);
  }

  public Backoff backoff() {
    return new Backoff(getLong(BACKOFF_INITIAL_CONFIG), getLong(BACKOFF_MAX_CONFIG), getDouble(BACKOFF_JITTER_CONFIG));
  }

  public int threads() {
    return getInt(THREADS_CONFIG);
  }

  public int maxInFlight() {
    return getInt(MAX_IN_FLIGHT_CONFIG);
  }

  public int partitionMaxInFlight() {
    return getInt(PARTITION_MAX_IN_FLIGHT_CONFIG);
  }

  public Duration commitInterval() {
    return Duration.ofMillis(getLong(COMMIT_INTERVAL_CONFIG));
  }

  public Duration revokeWait() {
    return Duration.ofMillis(getLong(REVOKE_WAIT_CONFIG));
  }

  public Duration closeGrace() {
    return Duration.ofMillis(getLong(CLOSE_GRACE_CONFIG));
  }

  public ClogGuard.Settings clogGuard() {
    return new ClogGuard.Settings(getBoolean(CLOG_ENABLED_CONFIG), getLong(CLOG_WINDOW_CONFIG),
        getInt(CLOG_MIN_RECORDS_CONFIG), getDouble(CLOG_FAILURE_RATIO_CONFIG), getLong(CLOG_PROBE_INITIAL_CONFIG),
        getLong(CLOG_PROBE_MAX_CONFIG));
  }

  /**
   * Settings of the group consumer: no auto commit (offsets are committed up to the first unfinished
   * record), read_committed (the delay tiers write retry copies in transactions), byte arrays, new groups
   * start at the earliest offset unless {@code auto.offset.reset} says otherwise, cooperative rebalancing
   * under the classic protocol (partitions that stay keep their records running).
   */
  public Map<String, Object> consumerConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.CONSUMER_PREFIX, Set.of());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId());
    props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, groupId() + "-stream");
    props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    String protocol = String.valueOf(props.getOrDefault(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic"));
    if ("classic".equalsIgnoreCase(protocol)) {
      props.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
    }
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  /** Settings of the producer of retry copies and dead letters: idempotent, acks=all, byte arrays. */
  public Map<String, Object> producerConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.PRODUCER_PREFIX, Set.of(GROUP_ID_CONFIG));
    props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, groupId() + "-stream-producer");
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  /** Settings of the admin client that checks, at start, that the topics it writes to exist. */
  public Map<String, Object> adminConfigs() {
    Map<String, Object> props = KafkaProps.of(originals(), KafkaProps.PRODUCER_PREFIX, Set.of(GROUP_ID_CONFIG));
    props.keySet().retainAll(AdminClientConfig.configNames());
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, groupId() + "-stream-admin");
    return props;
  }

  private static ConfigDef.Validator topicList() {
    return (name, value) -> {
      @SuppressWarnings("unchecked")
      List<String> topics = (List<String>) value;
      if (topics == null || topics.isEmpty()) {
        throw new ConfigException(name, value, "name at least one source topic");
      }
      for (String t : topics) {
        try {
          Topic.validate(t);
        } catch (RuntimeException e) {
          throw new ConfigException(name, value, e.getMessage());
        }
      }
    };
  }

  private static ConfigDef.Validator optionalTopic() {
    return (name, value) -> {
      String t = (String) value;
      if (t != null && !t.isEmpty()) {
        try {
          Topic.validate(t);
        } catch (RuntimeException e) {
          throw new ConfigException(name, value, e.getMessage());
        }
      }
    };
  }

  /** The clock of the consumer built from this configuration: {@link Time#SYSTEM} unless given. */
  public Time time() {
    return time;
  }
}
