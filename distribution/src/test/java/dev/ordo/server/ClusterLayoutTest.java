package dev.ordo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterLayoutTest {
  private final ClusterLayout layout = new ClusterLayout(new ClusterTopics("c"), 6, Durations.parseList("30s,1m,5m,30m"));

  @Test
  void listsEveryTopicOfTheCluster() {
    assertEquals(List.of("c.items", "c.commands", "c.deliveries", "c.dlq", "c.topics", "c.namespaces", "c.dlq.state",
        "c.principals", "c.sqs.queues", "c.audit", "c.delay.30s", "c.delay.1m", "c.delay.5m", "c.delay.30m"),
        layout.specs().stream().map(TopicSpec::name).toList());
    assertEquals(List.of("c.items", "c.commands", "c.deliveries"),
        layout.coPartitioned().stream().map(TopicSpec::name).toList());
    java.util.Set<String> single = java.util.Set.of(ClusterLayout.NAMESPACES, ClusterLayout.DLQ_STATE,
        ClusterLayout.PRINCIPALS, ClusterLayout.SQS_QUEUES, ClusterLayout.AUDIT);
    layout.specs().stream().filter(s -> !single.contains(s.role()))
        .forEach(s -> assertEquals(6, s.partitions(), s.name()));
    assertEquals(1, layout.spec(ClusterLayout.NAMESPACES).orElseThrow().partitions(), "read whole by every instance");
    assertEquals(1, layout.spec(ClusterLayout.DLQ_STATE).orElseThrow().partitions(), "its one owner runs the jobs");
    assertEquals(1, layout.spec(ClusterLayout.PRINCIPALS).orElseThrow().partitions(), "read whole by every instance");
    assertEquals(Map.of("cleanup.policy", "compact"), layout.spec(ClusterLayout.PRINCIPALS).orElseThrow().required());
    assertEquals(1, layout.spec(ClusterLayout.SQS_QUEUES).orElseThrow().partitions(), "read whole by every instance");
    assertEquals(Map.of("cleanup.policy", "compact"), layout.spec(ClusterLayout.SQS_QUEUES).orElseThrow().required());
    assertEquals("7776000000", layout.spec(ClusterLayout.AUDIT).orElseThrow().configs().get("retention.ms"), "90 days");
  }

  @Test
  void configsOfTheSpecialTopics() {
    assertEquals(Map.of("cleanup.policy", "compact"), layout.spec(ClusterLayout.TOPIC_STATS).orElseThrow().configs());
    assertEquals(Map.of("cleanup.policy", "compact"), layout.spec(ClusterLayout.NAMESPACES).orElseThrow().required());
    assertEquals(Map.of("cleanup.policy", "compact"), layout.spec(ClusterLayout.DLQ_STATE).orElseThrow().required());
    TopicSpec tier = layout.spec("delay.30m").orElseThrow();
    assertEquals("LogAppendTime", tier.configs().get("message.timestamp.type"));
    assertEquals(Map.of("message.timestamp.type", "LogAppendTime"), tier.required());
    assertEquals(Long.toString(7L * 24 * 3600 * 1000), tier.configs().get("retention.ms"));
    assertEquals(Map.of(), layout.spec(ClusterLayout.ITEMS).orElseThrow().configs());
    assertEquals(4, layout.delayTierSpecs().size());
  }

  @Test
  void longTiersKeepRecordsTwiceTheirDelay() {
    ClusterLayout longTiers = new ClusterLayout(new ClusterTopics("c"), 1, Durations.parseList("10d"));
    assertEquals(Long.toString(20L * 24 * 3600 * 1000),
        longTiers.spec("delay.10d").orElseThrow().configs().get("retention.ms"));
  }

  @Test
  void withPartitions() {
    assertEquals(3, layout.withPartitions(3).partitions());
    assertEquals(3, layout.withPartitions(3).spec("dlq").orElseThrow().partitions());
    assertThrows(IllegalArgumentException.class, () -> layout.withPartitions(0));
  }
}
