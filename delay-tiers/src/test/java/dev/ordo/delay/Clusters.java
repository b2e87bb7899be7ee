package dev.ordo.delay;

import static org.awaitility.Awaitility.await;

import dev.ordo.testing.RealKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;

/** Test set-up on a {@link RealKafka}: an Ordo cluster's tier topics, target and dlq, and readiness checks. */
final class Clusters {
  private Clusters() {}

  static Map<String, Object> config(RealKafka kafka, String cluster, String tiers, String instanceId) {
    Map<String, Object> props = new HashMap<>();
    props.put("bootstrap.servers", kafka.bootstrapServers());
    props.put(DelayTiersConfig.CLUSTER_CONFIG, cluster);
    props.put(DelayTiersConfig.TIERS_CONFIG, tiers);
    props.put(DelayTiersConfig.INSTANCE_ID_CONFIG, instanceId);
    return props;
  }

  /**
   * Creates the tier topics (3 partitions), the dlq and any extra topics (3 partitions each); returns
   * once they take writes.
   */
  static void createTopics(RealKafka kafka, DelayTiersConfig config, String... extra) throws Exception {
    List<NewTopic> topics = new ArrayList<>(DelayTiers.newTopics(config, 3, (short) 1));
    topics.add(new NewTopic(config.topics().dlq(), 1, (short) 1));
    for (String t : extra) {
      topics.add(new NewTopic(t, 3, (short) 1));
    }
    try (Admin admin = kafka.admin()) {
      admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
    }
    kafka.awaitTopics(topics.stream().map(NewTopic::name).toArray(String[]::new));
  }

  /** Waits until the forwarder groups of {@code tiers} have all 3 partitions of their topic assigned. */
  static void awaitForwarders(RealKafka kafka, DelayTiersConfig config, Collection<Duration> tiers) {
    List<String> groups = tiers.stream().map(config::forwarderGroupId).toList();
    try (Admin admin = kafka.admin()) {
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
        Map<String, ConsumerGroupDescription> d = admin.describeConsumerGroups(groups).all().get();
        return d.values().stream().allMatch(g -> g.members().stream()
            .map(MemberDescription::assignment).mapToInt(a -> a.topicPartitions().size()).sum() == 3);
      });
    }
  }
}
