package dev.ordo.testing;

import dev.ordo.api.TopicsReady;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.metadata.bootstrap.BootstrapMetadata;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real in-JVM KRaft cluster ({@link KafkaClusterTestKit}) on free loopback ports, with the
 * production metadata version and features (share groups, KIP-848 consumer groups, transactions
 * v2) as KAFKA-NOTES.md describes.
 */
public final class RealKafka implements ExtensionContext.Store.CloseableResource, AutoCloseable {
  private final KafkaClusterTestKit kit;
  private final int brokers;
  private final boolean sasl;

  /** The user every client of a {@link #startSaslPlain()} cluster authenticates as (Kafka's test kit's). */
  public static final String SASL_USER = org.apache.kafka.common.test.JaasUtils.KAFKA_PLAIN_ADMIN;
  public static final String SASL_PASSWORD = org.apache.kafka.common.test.JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD;

  private RealKafka(KafkaClusterTestKit kit, int brokers, boolean sasl) {
    this.kit = kit;
    this.brokers = brokers;
    this.sasl = sasl;
  }

  public static RealKafka start(int brokers) {
    return start(brokers, false);
  }

  /**
   * One broker whose client listener requires SASL/PLAIN (user {@link #SASL_USER}): clients without
   * these credentials cannot connect. {@link #clientProperties()} carries them.
   */
  public static RealKafka startSaslPlain() {
    return start(1, true);
  }

  /** The SASL/PLAIN client settings of a {@link #startSaslPlain()} cluster, as a Kafka client takes them. */
  public static Map<String, String> saslClientSettings() {
    return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
        "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + SASL_USER + "\" password=\"" + SASL_PASSWORD + "\";");
  }

  private static RealKafka start(int brokers, boolean sasl) {
    if (brokers < 1) {
      throw new IllegalArgumentException("a cluster needs at least one broker, got " + brokers);
    }
    MetadataVersion mv = MetadataVersion.latestProduction();
    Map<String, Short> levels = new HashMap<>();
    for (Feature feature : Feature.PRODUCTION_FEATURES) {
      levels.put(feature.featureName(), feature.defaultLevel(mv));
    }
    levels.put(MetadataVersion.FEATURE_NAME, mv.featureLevel());
    BootstrapMetadata bootstrap = BootstrapMetadata.fromVersions(mv, levels, "ordo-testkit");

    boolean single = brokers == 1;
    TestKitNodes.Builder nodeBuilder = new TestKitNodes.Builder(bootstrap)
        .setCombined(single)
        .setNumBrokerNodes(brokers)
        .setNumControllerNodes(1);
    if (sasl) {
      // The test kit turns an authorizer on for SASL, with its admin user as the only super user, so the
      // controller's listener must authenticate too (an anonymous broker registration is refused).
      nodeBuilder.setBrokerSecurityProtocol(org.apache.kafka.common.security.auth.SecurityProtocol.SASL_PLAINTEXT)
          .setControllerSecurityProtocol(org.apache.kafka.common.security.auth.SecurityProtocol.SASL_PLAINTEXT);
    }
    TestKitNodes nodes = nodeBuilder.build();
    short rf = (short) Math.min(3, brokers);
    short minIsr = (short) Math.max(1, rf - 1);
    try {
      KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(nodes)
          .setConfigProp("offsets.topic.replication.factor", String.valueOf(rf))
          .setConfigProp("offsets.topic.num.partitions", "4")
          .setConfigProp("transaction.state.log.replication.factor", String.valueOf(rf))
          .setConfigProp("transaction.state.log.min.isr", String.valueOf(minIsr))
          .setConfigProp("transaction.state.log.num.partitions", "4")
          .setConfigProp("share.coordinator.state.topic.replication.factor", String.valueOf(rf))
          .setConfigProp("share.coordinator.state.topic.min.isr", String.valueOf(minIsr))
          .setConfigProp("group.initial.rebalance.delay.ms", "0")
          // as ordo server's embedded broker: a crashed instance's transaction aborted within a second of its timeout
          .setConfigProp("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000")
          .setConfigProp("default.replication.factor", String.valueOf(rf))
          .setConfigProp("min.insync.replicas", String.valueOf(minIsr))
          .build();
      kit.format();
      kit.startup();
      kit.waitForReadyBrokers();
      return new RealKafka(kit, brokers, sasl);
    } catch (Exception e) {
      throw new IllegalStateException("could not start an in-JVM Kafka cluster of " + brokers + " brokers", e);
    }
  }

  public String bootstrapServers() {
    return kit.bootstrapServers();
  }

  public int brokerCount() {
    return brokers;
  }

  /** Client properties with the bootstrap servers set, to add to. */
  public Properties clientProperties() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    if (sasl) {
      props.putAll(saslClientSettings());
    }
    return props;
  }

  public Admin admin() {
    return Admin.create(clientProperties());
  }

  /**
   * Creates topics with the given partition count and the cluster's replication (min 3 brokers: 3),
   * and returns once every running broker knows them (see {@link #awaitTopics}).
   */
  public void createTopics(int partitions, String... names) {
    short rf = (short) Math.min(3, brokers);
    try (Admin admin = admin()) {
      admin.createTopics(java.util.Arrays.stream(names).map(n -> new NewTopic(n, partitions, rf)).toList())
          .all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("could not create topics " + List.of(names), e);
    }
    awaitTopics(names);
  }

  /**
   * Waits (30 s at most each) until the metadata of every running broker has the topics, then until
   * every partition's leader takes writes ({@link TopicsReady}). A topic exists for the controller
   * before the brokers learn of it, and in a broker's metadata before its partitions are open: a
   * client that asks right after {@code createTopics} may not see it, and an idempotent producer
   * racing the opening can be stuck until its delivery timeout. Use this after creating topics with
   * your own Admin.
   */
  public void awaitTopics(String... names) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!allBrokersKnow(names)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("brokers do not know topics " + List.of(names) + " after 30 s");
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for topics " + List.of(names), e);
      }
    }
    try (Admin admin = admin()) {
      TopicsReady.await(admin, List.of(names), Duration.ofSeconds(30));
    }
  }

  private boolean allBrokersKnow(String... names) {
    for (BrokerServer broker : kit.brokers().values()) {
      if (broker.isShutdown()) {
        continue;
      }
      for (String name : names) {
        if (!broker.metadataCache().contains(name)) {
          return false;
        }
      }
    }
    return true;
  }

  public Map<Integer, BrokerServer> brokers() {
    return kit.brokers();
  }

  /** Stops broker {@code id} and waits until it is down. */
  public void stopBroker(int id) {
    BrokerServer broker = kit.brokers().get(id);
    if (broker == null) {
      throw new IllegalArgumentException("no broker " + id + "; brokers are " + kit.brokers().keySet());
    }
    broker.shutdown();
    broker.awaitShutdown();
  }

  /** Starts a stopped broker again. */
  public void startBroker(int id) {
    kit.brokers().get(id).startup();
  }

  @Override
  public void close() throws Exception {
    kit.close();
  }
}
