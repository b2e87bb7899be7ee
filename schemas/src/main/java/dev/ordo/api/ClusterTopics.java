package dev.ordo.api;

import java.time.Duration;
import java.util.List;

/** The Kafka topic names of one Ordo cluster: its prefix plus a fixed suffix each. */
public record ClusterTopics(String cluster) {
  public ClusterTopics {
    if (cluster == null || !cluster.matches("[A-Za-z0-9._-]{1,100}")) {
      throw new IllegalArgumentException(
          "cluster name must be 1-100 characters of letters, digits, '.', '_' or '-', got '" + cluster + "'");
    }
  }

  public String items() {
    return cluster + ".items";
  }

  public String commands() {
    return cluster + ".commands";
  }

  public String deliveries() {
    return cluster + ".deliveries";
  }

  public String dlq() {
    return cluster + ".dlq";
  }

  /**
   * Dead-letter jobs and marks: compacted, one partition. Redrive and purge jobs (definition and
   * progress) and what became of each dead letter they handled (docs/decisions/0027-dlq-jobs-on-compacted-topic.md).
   */
  public String dlqState() {
    return cluster + ".dlq.state";
  }

  public String topicStats() {
    return cluster + ".topics";
  }

  /**
   * Purge jobs' progress: compacted, one partition, keyed {@code <job>/<partition>}, written by each
   * partition's processor in the transaction of the deletions it counts (docs/decisions/0056-purge-by-age.md).
   */
  public String purges() {
    return cluster + ".purges";
  }

  /** Namespace policies: compacted, keyed by namespace. */
  public String namespaces() {
    return cluster + ".namespaces";
  }

  /** Principals of the HTTP API (names, grants, token hashes): compacted, keyed by name. */
  public String principals() {
    return cluster + ".principals";
  }

  /** The audit log of admin and operator actions. */
  public String audit() {
    return cluster + ".audit";
  }

  /** The SQS endpoint's queues (attributes, tags): compacted, keyed by namespace and queue name. */
  public String sqsQueues() {
    return cluster + ".sqs.queues";
  }

  /** The Kafka Streams application id of the queue topology. */
  public String applicationId() {
    return cluster + "-queue";
  }

  public String delayTier(Duration delay) {
    return cluster + ".delay." + Durations.format(delay);
  }

  public List<String> coPartitioned() {
    return List.of(items(), commands(), deliveries());
  }
}
