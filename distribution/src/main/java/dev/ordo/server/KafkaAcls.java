package dev.ordo.server;

import dev.ordo.api.ClusterTopics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The Kafka ACLs each Ordo role needs on one cluster {@code C}, and no more: the one list behind
 * docs/security.md ("Kafka ACLs (least privilege)"), {@code ordo acls} and {@code KafkaAclsTest}, which
 * runs every role with only these on a broker that denies everything else.
 *
 * <p>Read, Write, Delete and Alter imply Describe in Kafka, so Describe is never listed. No role needs
 * anything on the cluster resource: a Kafka 3.0+ broker lets an idempotent producer start with Write on
 * any topic instead of IdempotentWrite (KIP-679).
 */
public final class KafkaAcls {
  private KafkaAcls() {}

  /** Who gets the ACLs. */
  public enum Role {
    /** {@code ordo server}: every instance of the cluster. */
    SERVER,
    /** A {@code QueueProducer}, and a Connect sink's items producer (its {@code ordo.kafka.*} settings). */
    PRODUCER,
    /** A {@code LeaseConsumer} of one consumer group. */
    LEASE_CONSUMER
  }

  /** One resource pattern, what the role does with it, and why. */
  public record Grant(ResourceType type, PatternType pattern, String name, Set<AclOperation> operations, String why) {
    public Grant {
      if (operations.isEmpty()) {
        throw new IllegalArgumentException("a grant on " + type + " " + name + " needs an operation");
      }
      operations = Collections.unmodifiableSet(EnumSet.copyOf(operations)); // iterates in Kafka's order
    }

    /** One ALLOW binding per operation, for {@code principal} (e.g. {@code User:ordo}) from any host. */
    public List<AclBinding> bindings(String principal) {
      ResourcePattern resource = new ResourcePattern(type, name, pattern);
      return sortedOperations().stream()
          .map(op -> new AclBinding(resource, new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)))
          .toList();
    }

    /** The {@code kafka-acls.sh} command that adds this grant. */
    public String kafkaAclsCommand(String principal, String bootstrapServer, String commandConfig) {
      StringBuilder b = new StringBuilder("kafka-acls.sh --bootstrap-server ").append(bootstrapServer);
      if (commandConfig != null) {
        b.append(" --command-config ").append(commandConfig);
      }
      b.append(" --add --allow-principal ").append(principal);
      switch (type) {
        case TOPIC -> b.append(" --topic ").append(name);
        case GROUP -> b.append(" --group ").append(name);
        case TRANSACTIONAL_ID -> b.append(" --transactional-id ").append(name);
        default -> throw new IllegalStateException("no kafka-acls.sh flag for " + type);
      }
      if (pattern == PatternType.PREFIXED) {
        b.append(" --resource-pattern-type prefixed");
      }
      operationNames().forEach(op -> b.append(" --operation ").append(op));
      return b.toString();
    }

    /** The operations as kafka-acls.sh and Kafka's docs spell them ({@code DescribeConfigs}), in Kafka's order. */
    public List<String> operationNames() {
      return sortedOperations().stream().map(op -> camel(op.name())).toList();
    }

    private List<AclOperation> sortedOperations() {
      return List.copyOf(operations);
    }
  }

  /** The grants of {@code role} on cluster {@code cluster}; {@code groupId} is the lease consumer's group. */
  public static List<Grant> grants(Role role, String cluster, String groupId, boolean backpressure) {
    ClusterTopics topics = new ClusterTopics(cluster);
    return switch (role) {
      case SERVER -> server(topics);
      case PRODUCER -> producer(topics, backpressure);
      case LEASE_CONSUMER -> leaseConsumer(topics, groupId);
    };
  }

  /**
   * {@code ordo server}: its topics (made and checked at start, read and written by the queue, the
   * forwarders, the dead-letter jobs and the HTTP API); Kafka Streams' changelog topics, group and
   * exactly-once transactional ids, named after the application id {@code C-queue}; the delay-tier
   * forwarders' groups and transactional ids ({@code C.delay.<d>.forwarder[-<instance>]}); the
   * dead-letter job runner's group and transactional id ({@code C-dlq-jobs}).
   */
  public static List<Grant> server(ClusterTopics topics) {
    String cluster = topics.cluster();
    String streams = topics.applicationId();
    String delay = cluster + "." + ClusterLayout.DELAY_PREFIX;
    String dlqJobs = cluster + "-dlq-jobs"; // DlqJobRunner's group and transactional id
    return List.of(
        new Grant(ResourceType.TOPIC, PatternType.PREFIXED, cluster + ".",
            EnumSet.of(AclOperation.CREATE, AclOperation.DESCRIBE_CONFIGS, AclOperation.READ, AclOperation.WRITE),
            "the cluster's topics: created when missing, their configs checked when present, read and written"),
        new Grant(ResourceType.TOPIC, PatternType.PREFIXED, streams + "-",
            EnumSet.of(AclOperation.CREATE, AclOperation.READ, AclOperation.WRITE),
            "Kafka Streams' changelog topics: created, written, restored from"),
        new Grant(ResourceType.GROUP, PatternType.LITERAL, streams, EnumSet.of(AclOperation.READ),
            "Kafka Streams' consumer group (its application id)"),
        new Grant(ResourceType.TRANSACTIONAL_ID, PatternType.PREFIXED, streams + "-", EnumSet.of(AclOperation.WRITE),
            "Kafka Streams' exactly-once producers (<application id>-<process>-<thread>)"),
        new Grant(ResourceType.GROUP, PatternType.PREFIXED, delay, EnumSet.of(AclOperation.READ),
            "the delay-tier forwarders' consumer groups (<cluster>.delay.<d>.forwarder)"),
        new Grant(ResourceType.TRANSACTIONAL_ID, PatternType.PREFIXED, delay, EnumSet.of(AclOperation.WRITE),
            "the forwarders' transactional producers (<cluster>.delay.<d>.forwarder-<instance>)"),
        new Grant(ResourceType.GROUP, PatternType.LITERAL, dlqJobs, EnumSet.of(AclOperation.READ),
            "the dead-letter job runners' group"),
        new Grant(ResourceType.TRANSACTIONAL_ID, PatternType.LITERAL, dlqJobs, EnumSet.of(AclOperation.WRITE),
            "the dead-letter job runner's transactional producer"));
  }

  /**
   * A {@code QueueProducer}: writes items; with backpressure (on by default) reads the topics' counts
   * and the namespace policies too, by position (no group).
   */
  public static List<Grant> producer(ClusterTopics topics, boolean backpressure) {
    List<Grant> grants = new ArrayList<>();
    grants.add(new Grant(ResourceType.TOPIC, PatternType.LITERAL, topics.items(), EnumSet.of(AclOperation.WRITE),
        "enqueue"));
    if (backpressure) {
      grants.add(new Grant(ResourceType.TOPIC, PatternType.LITERAL, topics.topicStats(), EnumSet.of(AclOperation.READ),
          "backpressure: the namespaces' backlogs"));
      grants.add(new Grant(ResourceType.TOPIC, PatternType.LITERAL, topics.namespaces(), EnumSet.of(AclOperation.READ),
          "backpressure: the namespace policies' maxBacklog"));
    }
    return List.copyOf(grants);
  }

  /**
   * A {@code LeaseConsumer} of group {@code groupId}: its group's partitions of the deliveries, its
   * commands (demands, acks, nacks, heartbeats), and the topics' counts (its embedded {@code QueueClient}
   * reads its reply partition and the counts by position).
   */
  public static List<Grant> leaseConsumer(ClusterTopics topics, String groupId) {
    if (groupId == null || groupId.isBlank()) {
      throw new IllegalArgumentException("a lease consumer's ACLs need its group id");
    }
    return List.of(
        new Grant(ResourceType.TOPIC, PatternType.LITERAL, topics.deliveries(), EnumSet.of(AclOperation.READ),
            "items leased to it and the answers to its commands"),
        new Grant(ResourceType.TOPIC, PatternType.LITERAL, topics.commands(), EnumSet.of(AclOperation.WRITE),
            "demands, acks, nacks, heartbeats"),
        new Grant(ResourceType.TOPIC, PatternType.LITERAL, topics.topicStats(), EnumSet.of(AclOperation.READ),
            "the topics' counts"),
        new Grant(ResourceType.GROUP, PatternType.LITERAL, groupId, EnumSet.of(AclOperation.READ),
            "its consumer group on the deliveries"));
  }

  /** Every binding of {@code grants} for {@code principal}. */
  public static List<AclBinding> bindings(List<Grant> grants, String principal) {
    return grants.stream().flatMap(g -> g.bindings(principal).stream()).toList();
  }

  /** {@code DESCRIBE_CONFIGS} as kafka-acls.sh spells it: {@code DescribeConfigs}. */
  private static String camel(String upperSnake) {
    StringBuilder b = new StringBuilder();
    for (String part : upperSnake.split("_")) {
      b.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
    }
    return b.toString();
  }
}
