package dev.ordo.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.delay.DelayTiersConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** Every key of the stream consumer's configuration can be set, is documented, and is read back. */
class StreamConsumerConfigTest {
  private static final Map<String, Object> DELAY = Map.of(
      DelayTiersConfig.CLUSTER_CONFIG, "c1",
      DelayTiersConfig.TIERS_CONFIG, "1s,10s",
      DelayTiersConfig.HOP_ALLOWANCE_CONFIG, 5L,
      DelayTiersConfig.ROUTE_SLACK_CONFIG, 10L,
      DelayTiersConfig.CLIENT_HOLD_RESIDUAL_CONFIG, false,
      DelayTiersConfig.INSTANCE_ID_CONFIG, "i1",
      DelayTiersConfig.TRANSACTION_TIMEOUT_CONFIG, 5_000,
      DelayTiersConfig.MAX_POLL_MS_CONFIG, 50L,
      DelayTiersConfig.ERROR_BACKOFF_CONFIG, 10L);

  private static final Map<String, Object> STREAM = Map.ofEntries(
      Map.entry(StreamConsumerConfig.GROUP_ID_CONFIG, "billing"),
      Map.entry(StreamConsumerConfig.TOPICS_CONFIG, "payments,refunds"),
      Map.entry(StreamConsumerConfig.RETRY_TOPIC_CONFIG, "billing-retries"),
      Map.entry(StreamConsumerConfig.MAX_ATTEMPTS_CONFIG, 3),
      Map.entry(StreamConsumerConfig.BACKOFF_INITIAL_CONFIG, 10L),
      Map.entry(StreamConsumerConfig.BACKOFF_MAX_CONFIG, 20L),
      Map.entry(StreamConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0),
      Map.entry(StreamConsumerConfig.THREADS_CONFIG, 2),
      Map.entry(StreamConsumerConfig.MAX_IN_FLIGHT_CONFIG, 7),
      Map.entry(StreamConsumerConfig.PARTITION_MAX_IN_FLIGHT_CONFIG, 3),
      Map.entry(StreamConsumerConfig.COMMIT_INTERVAL_CONFIG, 250L),
      Map.entry(StreamConsumerConfig.REVOKE_WAIT_CONFIG, 1_500L),
      Map.entry(StreamConsumerConfig.CLOSE_GRACE_CONFIG, 2_500L),
      Map.entry(StreamConsumerConfig.CLOG_ENABLED_CONFIG, false),
      Map.entry(StreamConsumerConfig.CLOG_WINDOW_CONFIG, 3_000L),
      Map.entry(StreamConsumerConfig.CLOG_MIN_RECORDS_CONFIG, 11),
      Map.entry(StreamConsumerConfig.CLOG_FAILURE_RATIO_CONFIG, 0.75),
      Map.entry(StreamConsumerConfig.CLOG_PROBE_INITIAL_CONFIG, 300L),
      Map.entry(StreamConsumerConfig.CLOG_PROBE_MAX_CONFIG, 9_000L));

  @Test
  void streamConsumerConfigIsBuiltFromEveryKey() {
    Map<String, Object> all = new HashMap<>(DELAY);
    all.putAll(STREAM);
    assertEquals(StreamConsumerConfig.configDef().names(), all.keySet(), "the test sets every key");
    for (ConfigDef.ConfigKey key : StreamConsumerConfig.configDef().configKeys().values()) {
      assertNotNull(key.documentation, key.name + " is documented");
      assertTrue(key.documentation.length() > 30, key.name + " says more than its name");
    }
    StreamConsumerConfig c = new StreamConsumerConfig(withKafka(all));
    assertEquals("billing", c.groupId());
    assertEquals(List.of("payments", "refunds"), c.sourceTopics());
    assertEquals("billing-retries", c.retryTopic());
    assertEquals(3, c.maxAttempts());
    assertEquals(10, c.backoff().initialMs());
    assertEquals(20, c.backoff().maxMs());
    assertEquals(0.0, c.backoff().jitter());
    assertEquals(2, c.threads());
    assertEquals(7, c.maxInFlight());
    assertEquals(3, c.partitionMaxInFlight());
    assertEquals(Duration.ofMillis(250), c.commitInterval());
    assertEquals(Duration.ofMillis(1_500), c.revokeWait());
    assertEquals(Duration.ofMillis(2_500), c.closeGrace());
    assertFalse(c.clogGuard().enabled());
    assertEquals(3_000, c.clogGuard().windowMs());
    assertEquals(11, c.clogGuard().minRecords());
    assertEquals(0.75, c.clogGuard().failureRatio());
    assertEquals(300, c.clogGuard().probeBackoffInitialMs());
    assertEquals(9_000, c.clogGuard().probeBackoffMaxMs());
    assertEquals("c1.dlq", c.topics().dlq());
    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(10)), c.delayConfig().tiers());
    assertFalse(c.delayConfig().clientHoldsResidual());
  }

  @Test
  void theRetryTopicIsNamedAfterTheGroupByDefault() {
    Map<String, Object> props = withKafka(Map.of(StreamConsumerConfig.GROUP_ID_CONFIG, "billing",
        StreamConsumerConfig.TOPICS_CONFIG, "payments"));
    StreamConsumerConfig c = new StreamConsumerConfig(props);
    assertEquals("billing.retry", c.retryTopic());
    assertEquals("ordo.dlq", c.topics().dlq());
  }

  @Test
  void kafkaClientsGetWhatTheGuaranteesNeedWhateverIsSet() {
    Map<String, Object> props = withKafka(STREAM);
    props.put("enable.auto.commit", true);
    props.put("consumer.isolation.level", "read_uncommitted");
    props.put("producer.acks", "1");
    props.put("consumer.max.poll.records", 50);
    props.put("auto.offset.reset", "latest");
    StreamConsumerConfig c = new StreamConsumerConfig(props);
    Map<String, Object> consumer = c.consumerConfigs();
    assertEquals(false, consumer.get("enable.auto.commit"));
    assertEquals("read_committed", consumer.get("isolation.level"));
    assertEquals(50, consumer.get("max.poll.records"));
    assertEquals("latest", consumer.get("auto.offset.reset"));
    assertEquals("billing", consumer.get("group.id"));
    Map<String, Object> producer = c.producerConfigs();
    assertEquals("all", producer.get("acks"));
    assertEquals(true, producer.get("enable.idempotence"));
    assertFalse(producer.containsKey("group.id"));
    assertFalse(producer.containsKey("max.poll.records"));
    assertFalse(c.adminConfigs().containsKey("enable.auto.commit"));
    assertEquals("127.0.0.1:9", c.adminConfigs().get("bootstrap.servers"));
  }

  @Test
  void refusesInconsistentOrMissingSettingsNamingTheKey() {
    Map<String, Object> backoff = withKafka(STREAM);
    backoff.put(StreamConsumerConfig.BACKOFF_MAX_CONFIG, 1L);
    assertMessage(StreamConsumerConfig.BACKOFF_MAX_CONFIG, () -> new StreamConsumerConfig(backoff));
    Map<String, Object> probe = withKafka(STREAM);
    probe.put(StreamConsumerConfig.CLOG_PROBE_MAX_CONFIG, 1L);
    assertMessage(StreamConsumerConfig.CLOG_PROBE_MAX_CONFIG, () -> new StreamConsumerConfig(probe));
    Map<String, Object> loop = withKafka(STREAM);
    loop.put(StreamConsumerConfig.RETRY_TOPIC_CONFIG, "refunds");
    assertMessage(StreamConsumerConfig.RETRY_TOPIC_CONFIG, () -> new StreamConsumerConfig(loop));
    Map<String, Object> badTopic = withKafka(STREAM);
    badTopic.put(StreamConsumerConfig.TOPICS_CONFIG, "a,b c");
    assertMessage(StreamConsumerConfig.TOPICS_CONFIG, () -> new StreamConsumerConfig(badTopic));
    Map<String, Object> noTopics = withKafka(STREAM);
    noTopics.remove(StreamConsumerConfig.TOPICS_CONFIG);
    assertMessage(StreamConsumerConfig.TOPICS_CONFIG, () -> new StreamConsumerConfig(noTopics));
    Map<String, Object> noGroup = withKafka(STREAM);
    noGroup.remove(StreamConsumerConfig.GROUP_ID_CONFIG);
    assertMessage(StreamConsumerConfig.GROUP_ID_CONFIG, () -> new StreamConsumerConfig(noGroup));
    Map<String, Object> ratio = withKafka(STREAM);
    ratio.put(StreamConsumerConfig.CLOG_FAILURE_RATIO_CONFIG, 1.5);
    assertMessage(StreamConsumerConfig.CLOG_FAILURE_RATIO_CONFIG, () -> new StreamConsumerConfig(ratio));
    assertMessage("bootstrap.servers", () -> new StreamConsumerConfig(STREAM));
  }

  @Test
  void everyKeyIsDocumentedInTheGuide() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "stream-consumer.md"));
    for (String key : StreamConsumerConfig.configDef().names()) {
      if (!key.startsWith("ordo.delay.") || key.equals(DelayTiersConfig.TIERS_CONFIG)) {
        assertTrue(guide.contains("`" + key + "`"), key + " is missing from docs/stream-consumer.md");
      }
    }
  }

  private static void assertMessage(String key, org.junit.jupiter.api.function.Executable build) {
    ConfigException e = assertThrows(ConfigException.class, build);
    assertTrue(e.getMessage().contains(key), e.getMessage());
  }

  private static Map<String, Object> withKafka(Map<String, Object> values) {
    Map<String, Object> props = new HashMap<>(values);
    props.put("bootstrap.servers", "127.0.0.1:9");
    return props;
  }
}
