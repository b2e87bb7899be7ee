package dev.ordo.server;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Kafka topics of one Ordo cluster and their configs, in one place:
 *
 * <ul>
 *   <li>{@code C.items}, {@code C.commands}, {@code C.deliveries}: co-partitioned, P partitions each;
 *   <li>{@code C.dlq}: P partitions;
 *   <li>{@code C.topics}: per-topic stats, P partitions, {@code cleanup.policy=compact};
 *   <li>{@code C.dlq.state}: dead-letter jobs and marks, one partition, {@code cleanup.policy=compact}
 *       (its one partition's owner in the consumer group {@code C-dlq-jobs} runs the jobs, decisions D27);
 *   <li>{@code C.namespaces}: namespace policies, one partition, {@code cleanup.policy=compact} (every
 *       instance reads it whole into a global store);
 *   <li>{@code C.principals}: the HTTP API's principals, one partition, {@code cleanup.policy=compact}
 *       (every instance reads it whole, docs/security.md);
 *   <li>{@code C.sqs.queues}: the SQS endpoint's queues and their attributes, one partition,
 *       {@code cleanup.policy=compact} (every instance reads it whole, docs/sqs.md);
 *   <li>{@code C.audit}: the audit log, one partition, kept {@link #AUDIT_RETENTION};
 *   <li>{@code C.delay.<d>} per delay tier: P partitions, {@code message.timestamp.type=LogAppendTime}
 *       (a tier forwarder waits d after the broker's append time), retention at least twice the delay.
 * </ul>
 *
 * <p>Kafka Streams' own changelog and repartition topics are not listed: Kafka Streams makes them.
 */
public final class ClusterLayout {
  public static final String ITEMS = "items";
  public static final String COMMANDS = "commands";
  public static final String DELIVERIES = "deliveries";
  public static final String DLQ = "dlq";
  public static final String TOPIC_STATS = "topics";
  public static final String NAMESPACES = "namespaces";
  public static final String DLQ_STATE = "dlq.state";
  public static final String PRINCIPALS = "principals";
  public static final String AUDIT = "audit";
  public static final String SQS_QUEUES = "sqs.queues";
  /** How long the audit log keeps a record, unless its topic says otherwise. */
  static final Duration AUDIT_RETENTION = Duration.ofDays(90);
  public static final String DELAY_PREFIX = "delay.";

  /** Kafka's default retention; tier topics keep records at least this long, or twice the delay. */
  static final Duration MIN_TIER_RETENTION = Duration.ofDays(7);

  private final ClusterTopics topics;
  private final int partitions;
  private final List<Duration> delayTiers;
  private final List<TopicSpec> specs;

  public ClusterLayout(ClusterTopics topics, int partitions, List<Duration> delayTiers) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
    }
    if (delayTiers.isEmpty()) {
      throw new IllegalArgumentException("at least one delay tier is needed");
    }
    this.topics = topics;
    this.partitions = partitions;
    this.delayTiers = List.copyOf(delayTiers);
    List<TopicSpec> list = new ArrayList<>();
    list.add(plain(ITEMS, topics.items()));
    list.add(plain(COMMANDS, topics.commands()));
    list.add(plain(DELIVERIES, topics.deliveries()));
    list.add(plain(DLQ, topics.dlq()));
    Map<String, String> compact = Map.of("cleanup.policy", "compact");
    list.add(new TopicSpec(TOPIC_STATS, topics.topicStats(), partitions, compact, compact));
    list.add(new TopicSpec(NAMESPACES, topics.namespaces(), 1, compact, compact));
    list.add(new TopicSpec(DLQ_STATE, topics.dlqState(), 1, compact, compact));
    list.add(new TopicSpec(PRINCIPALS, topics.principals(), 1, compact, compact));
    list.add(new TopicSpec(SQS_QUEUES, topics.sqsQueues(), 1, compact, compact));
    Map<String, String> audit = Map.of("retention.ms", Long.toString(AUDIT_RETENTION.toMillis()));
    list.add(new TopicSpec(AUDIT, topics.audit(), 1, audit, Map.of()));
    for (Duration tier : delayTiers) {
      Map<String, String> logAppendTime = Map.of("message.timestamp.type", "LogAppendTime");
      long retention = Math.max(MIN_TIER_RETENTION.toMillis(), 2 * tier.toMillis());
      list.add(new TopicSpec(DELAY_PREFIX + Durations.format(tier), topics.delayTier(tier), partitions,
          Map.of("message.timestamp.type", "LogAppendTime", "retention.ms", Long.toString(retention)),
          logAppendTime));
    }
    this.specs = List.copyOf(list);
  }

  private TopicSpec plain(String role, String name) {
    return new TopicSpec(role, name, partitions, Map.of(), Map.of());
  }

  public ClusterTopics topics() {
    return topics;
  }

  public int partitions() {
    return partitions;
  }

  public List<Duration> delayTiers() {
    return delayTiers;
  }

  /** Every topic of the cluster, the co-partitioned ones first. */
  public List<TopicSpec> specs() {
    return specs;
  }

  /** The topics that must have equal partition counts: items, commands, deliveries. */
  public List<TopicSpec> coPartitioned() {
    return specs.subList(0, 3);
  }

  /** The delay tier topics, shortest first. */
  public List<TopicSpec> delayTierSpecs() {
    return specs.stream().filter(s -> s.role().startsWith(DELAY_PREFIX)).toList();
  }

  public Optional<TopicSpec> spec(String role) {
    return specs.stream().filter(s -> s.role().equals(role)).findFirst();
  }

  /** The same layout with another partition count (e.g. the count of existing topics). */
  public ClusterLayout withPartitions(int partitions) {
    return partitions == this.partitions ? this : new ClusterLayout(topics, partitions, delayTiers);
  }
}
