package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.Durations;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class DelayTiersConfigTest {
  private static Map<String, Object> every() {
    Map<String, Object> props = new HashMap<>();
    props.put("bootstrap.servers", "localhost:9092");
    props.put(DelayTiersConfig.CLUSTER_CONFIG, "shop");
    props.put(DelayTiersConfig.TIERS_CONFIG, "200ms,500ms,2s,5s");
    props.put(DelayTiersConfig.HOP_ALLOWANCE_CONFIG, "7");
    props.put(DelayTiersConfig.ROUTE_SLACK_CONFIG, "20");
    props.put(DelayTiersConfig.CLIENT_HOLD_RESIDUAL_CONFIG, "false");
    props.put(DelayTiersConfig.INSTANCE_ID_CONFIG, "host-1");
    props.put(DelayTiersConfig.TRANSACTION_TIMEOUT_CONFIG, "5000");
    props.put(DelayTiersConfig.MAX_POLL_MS_CONFIG, "250");
    props.put(DelayTiersConfig.ERROR_BACKOFF_CONFIG, "300");
    props.put("consumer.fetch.max.wait.ms", "5");
    props.put("producer.linger.ms", "1");
    return props;
  }

  @Test
  void everyKeyIsDefinedAndRead() {
    DelayTiersConfig config = new DelayTiersConfig(every());
    assertEquals(Set.of(DelayTiersConfig.CLUSTER_CONFIG, DelayTiersConfig.TIERS_CONFIG,
        DelayTiersConfig.HOP_ALLOWANCE_CONFIG, DelayTiersConfig.ROUTE_SLACK_CONFIG,
        DelayTiersConfig.CLIENT_HOLD_RESIDUAL_CONFIG, DelayTiersConfig.INSTANCE_ID_CONFIG,
        DelayTiersConfig.TRANSACTION_TIMEOUT_CONFIG, DelayTiersConfig.MAX_POLL_MS_CONFIG,
        DelayTiersConfig.ERROR_BACKOFF_CONFIG), DelayTiersConfig.configDef().names());
    assertEquals("shop", config.topics().cluster());
    assertEquals(Durations.parseList("200ms,500ms,2s,5s"), config.tiers());
    assertEquals(Duration.ofMillis(7), config.hopAllowance());
    assertEquals(Duration.ofMillis(20), config.routeSlack());
    assertFalse(config.clientHoldsResidual());
    assertEquals("host-1", config.instanceId());
    assertEquals(250, config.maxPollMs());
    assertEquals(300, config.errorBackoffMs());
    assertEquals("shop.delay.500ms.forwarder", config.forwarderGroupId(Duration.ofMillis(500)));

    Map<String, Object> consumer = config.forwarderConsumerConfigs(Duration.ofSeconds(2));
    assertEquals("shop.delay.2s.forwarder", consumer.get("group.id"));
    assertEquals("read_committed", consumer.get("isolation.level"));
    assertEquals(false, consumer.get("enable.auto.commit"));
    assertEquals("5", consumer.get("fetch.max.wait.ms"));
    assertEquals("localhost:9092", consumer.get("bootstrap.servers"));
    assertFalse(consumer.containsKey("linger.ms"));

    Map<String, Object> producer = config.forwarderProducerConfigs(Duration.ofSeconds(2));
    assertEquals("shop.delay.2s.forwarder-host-1", producer.get("transactional.id"));
    assertEquals(5000, producer.get("transaction.timeout.ms"));
    assertEquals("1", producer.get("linger.ms"));
    assertFalse(producer.containsKey("fetch.max.wait.ms"));
  }

  @Test
  void settingsExactlyOnceDependsOnCannotBeOverridden() {
    Map<String, Object> props = every();
    props.put("consumer.isolation.level", "read_uncommitted");
    props.put("producer.transactional.id", "mine");
    props.put("enable.auto.commit", "true");
    DelayTiersConfig config = new DelayTiersConfig(props);
    assertEquals("read_committed", config.forwarderConsumerConfigs(Duration.ofSeconds(5)).get("isolation.level"));
    assertEquals(false, config.forwarderConsumerConfigs(Duration.ofSeconds(5)).get("enable.auto.commit"));
    assertEquals("shop.delay.5s.forwarder-host-1",
        config.forwarderProducerConfigs(Duration.ofSeconds(5)).get("transactional.id"));
  }

  @Test
  void theConsumerProtocolGetsNoAssignorTheClassicOneACooperativeOne() {
    Map<String, Object> props = every();
    assertEquals("org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
        new DelayTiersConfig(props).forwarderConsumerConfigs(Duration.ofSeconds(2)).get("partition.assignment.strategy"));
    props.put("consumer.group.protocol", "consumer");
    Map<String, Object> consumer = new DelayTiersConfig(props).forwarderConsumerConfigs(Duration.ofSeconds(2));
    assertFalse(consumer.containsKey("partition.assignment.strategy"));
    assertEquals("consumer", consumer.get("group.protocol"));
  }

  @Test
  void defaultsAreTheProductionTiers() {
    DelayTiersConfig config = new DelayTiersConfig(Map.of("bootstrap.servers", "k:9092"));
    assertEquals(Durations.parseList("30s,1m,5m,30m"), config.tiers());
    assertEquals("ordo", config.topics().cluster());
    assertTrue(config.clientHoldsResidual());
    assertFalse(config.instanceId().isEmpty());
  }

  @Test
  void badValuesAreRefusedWithTheKeyNamed() {
    Map<String, Object> props = every();
    props.put(DelayTiersConfig.TIERS_CONFIG, "1m,30s");
    ConfigException e = assertThrows(ConfigException.class, () -> new DelayTiersConfig(props));
    assertTrue(e.getMessage().contains(DelayTiersConfig.TIERS_CONFIG), e.getMessage());

    Map<String, Object> slack = every();
    slack.put(DelayTiersConfig.ROUTE_SLACK_CONFIG, "200");
    e = assertThrows(ConfigException.class, () -> new DelayTiersConfig(slack));
    assertTrue(e.getMessage().contains(DelayTiersConfig.ROUTE_SLACK_CONFIG), e.getMessage());

    Map<String, Object> cluster = every();
    cluster.put(DelayTiersConfig.CLUSTER_CONFIG, "a/b");
    assertThrows(ConfigException.class, () -> new DelayTiersConfig(cluster));

    Map<String, Object> noBootstrap = every();
    noBootstrap.remove("bootstrap.servers");
    e = assertThrows(ConfigException.class, () -> new DelayTiersConfig(noBootstrap));
    assertTrue(e.getMessage().contains("bootstrap.servers"), e.getMessage());
  }

  @Test
  void newTopicsUseLogAppendTimeAndOutliveTheirDelay() {
    List<NewTopic> topics = DelayTiers.newTopics("shop", Durations.parseList("30s,30m,7d"), 6, (short) 3);
    assertEquals(List.of("shop.delay.30s", "shop.delay.30m", "shop.delay.7d"),
        topics.stream().map(NewTopic::name).toList());
    for (NewTopic t : topics) {
      assertEquals(6, t.numPartitions());
      assertEquals(3, t.replicationFactor());
      assertEquals("LogAppendTime", t.configs().get("message.timestamp.type"));
      assertEquals("delete", t.configs().get("cleanup.policy"));
    }
    assertEquals(String.valueOf(Duration.ofDays(7).toMillis()), topics.get(1).configs().get("retention.ms"));
    assertEquals(String.valueOf(Duration.ofDays(14).toMillis()), topics.get(2).configs().get("retention.ms"));
  }
}
