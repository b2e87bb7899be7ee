package dev.ordo.server;

import java.util.Map;

/**
 * One Kafka topic of a cluster: its name, partition count and the topic configs Ordo needs.
 *
 * @param role what the topic is for, e.g. {@code items} or {@code delay.30s}
 * @param configs topic-level configs set at creation; the replication factor is the Kafka
 *     cluster's {@code default.replication.factor}
 * @param required the subset of {@code configs} that an existing topic must have too
 */
public record TopicSpec(String role, String name, int partitions, Map<String, String> configs,
    Map<String, String> required) {
  public TopicSpec {
    configs = Map.copyOf(configs);
    required = Map.copyOf(required);
  }
}
