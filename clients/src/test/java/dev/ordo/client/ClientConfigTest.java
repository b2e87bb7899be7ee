package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** Every key of every client configuration can be set, is documented, and is read back. */
class ClientConfigTest {
  private static final Map<String, Object> CLIENT = Map.ofEntries(
      Map.entry(QueueClientConfig.CLUSTER_CONFIG, "c1"),
      Map.entry(QueueClientConfig.CLIENT_ID_CONFIG, "web-1"),
      Map.entry(QueueClientConfig.REPLY_PARTITION_CONFIG, 3),
      Map.entry(QueueClientConfig.REQUEST_TIMEOUT_CONFIG, 1_234L),
      Map.entry(QueueClientConfig.ACK_LINGER_CONFIG, 3L),
      Map.entry(QueueClientConfig.DEQUEUE_GATHER_CONFIG, 7L),
      Map.entry(QueueClientConfig.DEQUEUE_STICKY_CONFIG, 250L),
      Map.entry(QueueClientConfig.DEQUEUE_MIN_WAIT_CONFIG, 99L),
      Map.entry(QueueClientConfig.DEMAND_REFRESH_CONFIG, 444L),
      Map.entry(QueueClientConfig.DEQUEUE_MAX_ITEMS_CONFIG, 50),
      Map.entry(QueueClientConfig.BUSY_WINDOW_CONFIG, 30_000L),
      Map.entry(QueueClientConfig.BREAKER_TIMEOUTS_CONFIG, 2),
      Map.entry(QueueClientConfig.BREAKER_OPEN_CONFIG, 750L),
      Map.entry(QueueClientConfig.SCHEMA_REGISTRY_URL_CONFIG, "http://registry:8081"));

  private static final Map<String, Object> CONSUMER = Map.ofEntries(
      Map.entry(LeaseConsumerConfig.GROUP_ID_CONFIG, "workers"),
      Map.entry(LeaseConsumerConfig.NAMESPACE_CONFIG, "ns"),
      Map.entry(LeaseConsumerConfig.TOPICS_CONFIG, "a,b"),
      Map.entry(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 3),
      Map.entry(LeaseConsumerConfig.WORKERS_CONFIG, 2),
      Map.entry(LeaseConsumerConfig.QUEUEING_TARGET_CONFIG, 40L),
      Map.entry(LeaseConsumerConfig.DEMAND_REFRESH_CONFIG, 100L),
      Map.entry(LeaseConsumerConfig.DEMAND_VALIDITY_CONFIG, 900L),
      Map.entry(LeaseConsumerConfig.HEARTBEAT_FRACTION_CONFIG, 0.3),
      Map.entry(LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 10L),
      Map.entry(LeaseConsumerConfig.BACKOFF_MAX_CONFIG, 20L),
      Map.entry(LeaseConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0),
      Map.entry(LeaseConsumerConfig.CLOSE_GRACE_CONFIG, 5L));

  private static final Map<String, Object> PRODUCER = Map.of(
      QueueProducerConfig.CLUSTER_CONFIG, "c2",
      QueueProducerConfig.PAYLOAD_MAX_BYTES_CONFIG, 77,
      QueueProducerConfig.HEADERS_MAX_BYTES_CONFIG, 99,
      QueueProducerConfig.BACKLOG_MAX_ITEMS_CONFIG, 5L,
      QueueProducerConfig.BACKPRESSURE_CONFIG, false,
      QueueProducerConfig.SCHEMA_REGISTRY_URL_CONFIG, "http://registry:8081");

  @Test
  void queueClientConfigIsBuiltFromEveryKey() {
    assertCovers(QueueClientConfig.configDef(), CLIENT);
    QueueClientConfig c = new QueueClientConfig(withKafka(CLIENT));
    assertEquals("c1.deliveries", c.topics().deliveries());
    assertEquals("web-1", c.clientId());
    assertEquals(3, c.replyPartition());
    assertEquals(Duration.ofMillis(1_234), c.requestTimeout());
    assertEquals(Duration.ofMillis(3), c.ackLinger());
    assertEquals(Duration.ofMillis(7), c.dequeueGather());
    assertEquals(Duration.ofMillis(250), c.dequeueSticky());
    assertEquals(Duration.ofMillis(99), c.dequeueMinWait());
    assertEquals(Duration.ofMillis(444), c.demandRefresh());
    assertEquals(50, c.dequeueMaxItems());
    assertEquals(Duration.ofSeconds(30), c.busyWindow());
    assertEquals(2, c.breakerTimeouts());
    assertEquals(Duration.ofMillis(750), c.breakerOpen());
    assertEquals("http://registry:8081", c.wireFormat().registry().url());
    assertEquals("read_committed", c.consumerConfigs().get("isolation.level"));
    assertEquals("all", c.producerConfigs().get("acks"));
  }

  @Test
  void leaseConsumerConfigIsBuiltFromEveryKey() {
    Map<String, Object> all = new HashMap<>(CLIENT);
    all.putAll(CONSUMER);
    assertCovers(LeaseConsumerConfig.configDef(), all);
    LeaseConsumerConfig c = new LeaseConsumerConfig(withKafka(all));
    assertEquals("workers", c.groupId());
    assertTrue(c.requesterId().startsWith("workers/m-"));
    assertEquals("ns", c.namespace());
    assertEquals(List.of("a", "b"), c.topicNames());
    assertEquals(3, c.maxInFlight());
    assertEquals(2, c.workers());
    assertEquals(Duration.ofMillis(40), c.queueingTarget());
    assertEquals(Duration.ofMillis(100), c.demandRefresh());
    assertEquals(Duration.ofMillis(900), c.demandValidity());
    assertEquals(0.3, c.heartbeatFraction());
    assertEquals(10, c.backoff().initialMs());
    assertEquals(20, c.backoff().maxMs());
    assertEquals(0.0, c.backoff().jitter());
    assertEquals(Duration.ofMillis(5), c.closeGrace());
    assertEquals("web-1", c.clientConfig().clientId());
    assertEquals("workers", c.groupConsumerConfigs().get("group.id"));
    assertFalse(c.clientConfig().consumerConfigs().containsKey("group.id"), "the embedded client joins no group");
  }

  @Test
  void queueProducerConfigIsBuiltFromEveryKey() {
    assertCovers(QueueProducerConfig.configDef(), PRODUCER);
    QueueProducerConfig c = new QueueProducerConfig(withKafka(PRODUCER));
    assertEquals("c2.items", c.topics().items());
    assertEquals(77, c.payloadMaxBytes());
    assertEquals(99, c.headersMaxBytes());
    assertEquals(5, c.backlogMaxItems());
    assertFalse(c.backpressure());
    assertTrue(c.wireFormat().confluent(), "items Confluent-framed through the registry");
    assertEquals(true, c.producerConfigs().get("enable.idempotence"));
  }

  @Test
  void kafkaSettingsPassThroughAndPrefixedOnesWinForTheirClient() {
    Map<String, Object> props = withKafka(CLIENT);
    props.put("linger.ms", 3);
    props.put("producer.linger.ms", 9);
    props.put("consumer.fetch.max.wait.ms", 11);
    props.put("producer.acks", "1");
    QueueClientConfig c = new QueueClientConfig(props);
    assertEquals(9, c.producerConfigs().get("linger.ms"));
    assertEquals(3, c.consumerConfigs().get("linger.ms"));
    assertEquals(11, c.consumerConfigs().get("fetch.max.wait.ms"));
    assertFalse(c.producerConfigs().containsKey("fetch.max.wait.ms"));
    assertEquals("all", c.producerConfigs().get("acks"), "what the protocol needs cannot be overridden");
  }

  @Test
  void refusesInconsistentOrMissingSettingsNamingTheKey() {
    Map<String, Object> consumer = withKafka(CONSUMER);
    consumer.put(LeaseConsumerConfig.DEMAND_VALIDITY_CONFIG, 100L);
    assertMessage(LeaseConsumerConfig.DEMAND_VALIDITY_CONFIG, () -> new LeaseConsumerConfig(consumer));
    Map<String, Object> backoff = withKafka(CONSUMER);
    backoff.put(LeaseConsumerConfig.BACKOFF_MAX_CONFIG, 1L);
    assertMessage(LeaseConsumerConfig.BACKOFF_MAX_CONFIG, () -> new LeaseConsumerConfig(backoff));
    Map<String, Object> noGroup = withKafka(CONSUMER);
    noGroup.remove(LeaseConsumerConfig.GROUP_ID_CONFIG);
    assertMessage(LeaseConsumerConfig.GROUP_ID_CONFIG, () -> new LeaseConsumerConfig(noGroup));
    Map<String, Object> topics = withKafka(CONSUMER);
    topics.put(LeaseConsumerConfig.TOPICS_CONFIG, "a,*");
    assertMessage(LeaseConsumerConfig.TOPICS_CONFIG, () -> new LeaseConsumerConfig(topics));
    Map<String, Object> id = withKafka(CLIENT);
    id.put(QueueClientConfig.CLIENT_ID_CONFIG, "has/slash");
    assertMessage(QueueClientConfig.CLIENT_ID_CONFIG, () -> new QueueClientConfig(id));
    assertMessage("bootstrap.servers", () -> new QueueClientConfig(CLIENT));
  }

  @Test
  void everyKeyIsDocumentedInTheClientsGuide() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "clients.md"));
    for (ConfigDef def : List.of(QueueClientConfig.configDef(), LeaseConsumerConfig.configDef(),
        QueueProducerConfig.configDef())) {
      for (String key : def.names()) {
        assertTrue(guide.contains("`" + key + "`"), key + " is missing from docs/clients.md");
      }
    }
  }

  private static void assertCovers(ConfigDef def, Map<String, Object> values) {
    assertEquals(def.names(), values.keySet(), "the test sets every key");
    for (ConfigDef.ConfigKey key : def.configKeys().values()) {
      assertNotNull(key.documentation, key.name + " is documented");
      assertTrue(key.documentation.length() > 30, key.name + " says more than its name");
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

  @Test
  void theClockIsTheSystemOneUnlessGivenAndALeaseConsumerHandsItsToItsClient() {
    Map<String, Object> kafka = Map.of("bootstrap.servers", "127.0.0.1:9");
    assertSame(Time.SYSTEM, new QueueClientConfig(kafka).time());
    assertSame(Time.SYSTEM, new QueueProducerConfig(kafka).time());
    ManualTime time = new ManualTime(0);
    assertSame(time, new QueueClientConfig(kafka, time).time());
    assertSame(time, new QueueProducerConfig(kafka, time).time());
    Map<String, Object> consumer = new HashMap<>(kafka);
    consumer.put(LeaseConsumerConfig.GROUP_ID_CONFIG, "g");
    consumer.put(LeaseConsumerConfig.NAMESPACE_CONFIG, "ns");
    assertSame(Time.SYSTEM, new LeaseConsumerConfig(consumer).time());
    LeaseConsumerConfig withClock = new LeaseConsumerConfig(consumer, time);
    assertSame(time, withClock.time());
    assertSame(time, withClock.clientConfig().time(), "the embedded client's clock");
  }

  @Test
  void theSettingsSharedByTheClientAndTheProducerAreDefinedOnce() {
    for (String key : List.of(QueueClientConfig.CLUSTER_CONFIG, QueueClientConfig.SCHEMA_REGISTRY_URL_CONFIG)) {
      ConfigDef.ConfigKey client = QueueClientConfig.configDef().configKeys().get(key);
      ConfigDef.ConfigKey producer = QueueProducerConfig.configDef().configKeys().get(key);
      ConfigDef.ConfigKey consumer = LeaseConsumerConfig.configDef().configKeys().get(key);
      assertSame(client.validator, producer.validator, key);
      assertSame(client.validator, consumer.validator, key);
      assertEquals(client.documentation, producer.documentation, key);
      assertEquals(client.defaultValue, producer.defaultValue, key);
    }
  }
}
