package dev.ordo.testing;

import dev.ordo.api.TopicsReady;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.network.ListenerName;
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
  private final Security security;

  /** The user every client of a {@link #startSaslPlain()} cluster authenticates as (Kafka's test kit's). */
  public static final String SASL_USER = org.apache.kafka.common.test.JaasUtils.KAFKA_PLAIN_ADMIN;
  public static final String SASL_PASSWORD = org.apache.kafka.common.test.JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD;

  /** The SCRAM mechanism of a {@link #startSaslScram()} cluster's user listener. */
  public static final String SCRAM_MECHANISM = "SCRAM-SHA-256";
  /** The listener of a {@link #startSaslScram()} cluster that takes SCRAM users only. */
  private static final String SCRAM_LISTENER = "SCRAM";

  private enum Security { NONE, SASL_PLAIN, SASL_SCRAM }

  private RealKafka(KafkaClusterTestKit kit, int brokers, Security security) {
    this.kit = kit;
    this.brokers = brokers;
    this.security = security;
  }

  public static RealKafka start(int brokers) {
    return start(brokers, Security.NONE);
  }

  /**
   * One broker whose client listener requires SASL/PLAIN (user {@link #SASL_USER}): clients without
   * these credentials cannot connect. {@link #clientProperties()} carries them.
   */
  public static RealKafka startSaslPlain() {
    return start(1, Security.SASL_PLAIN);
  }

  /**
   * One broker with least-privilege security, as a production cluster with ACLs has it:
   *
   * <ul>
   *   <li>a user listener ({@link #scramBootstrapServers()}) that takes SASL/SCRAM-SHA-256 only, for
   *       users made with {@link #createScramUser} ({@link #scramClientSettings} are their settings);
   *   <li>{@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found=false}: a user may do
   *       only what an ACL ({@link #createAcls}) allows;
   *   <li>one super user, {@link #SASL_USER} over SASL/PLAIN, on the broker's own listener
   *       ({@link #bootstrapServers()}, what {@link #admin()} and {@link #clientProperties()} use) and
   *       on the KRaft controller's. The broker reaches the controller and itself (transaction
   *       markers, replication) as that user: Kafka takes SCRAM on broker listeners only, not on a
   *       KRaft controller's, and the test kit cannot bootstrap SCRAM credentials when it formats
   *       (as {@code kafka-storage format --add-scram} does), so SCRAM users exist only once it runs.
   * </ul>
   */
  public static RealKafka startSaslScram() {
    return start(1, Security.SASL_SCRAM);
  }

  /** The SASL/PLAIN client settings of a {@link #startSaslPlain()} cluster, as a Kafka client takes them. */
  public static Map<String, String> saslClientSettings() {
    return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
        "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + SASL_USER + "\" password=\"" + SASL_PASSWORD + "\";");
  }

  private static RealKafka start(int brokers, Security security) {
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
    if (security != Security.NONE) {
      // The test kit turns an authorizer on for SASL, with its admin user as the only super user, so the
      // controller's listener must authenticate too (an anonymous broker registration is refused).
      nodeBuilder.setBrokerSecurityProtocol(org.apache.kafka.common.security.auth.SecurityProtocol.SASL_PLAINTEXT)
          .setControllerSecurityProtocol(org.apache.kafka.common.security.auth.SecurityProtocol.SASL_PLAINTEXT);
    }
    TestKitNodes nodes = nodeBuilder.build();
    short rf = (short) Math.min(3, brokers);
    short minIsr = (short) Math.max(1, rf - 1);
    try {
      KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
      if (security == Security.SASL_SCRAM) {
        scramListener(builder, nodes);
      }
      KafkaClusterTestKit kit = builder
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
      return new RealKafka(kit, brokers, security);
    } catch (Exception e) {
      throw new IllegalStateException("could not start an in-JVM Kafka cluster of " + brokers + " brokers", e);
    }
  }

  /**
   * A third listener beside the test kit's two (both SASL/PLAIN with its admin user): SCRAM-SHA-256
   * only, on a port of its own (0: the broker binds a free one and registers it). The authorizer is
   * set explicitly rather than left to the test kit, which turns it on for SASL/PLAIN by itself.
   */
  private static void scramListener(KafkaClusterTestKit.Builder builder, TestKitNodes nodes) {
    String broker = nodes.brokerListenerName().value();
    String controller = nodes.controllerListenerName().value();
    String scram = "listener.name." + SCRAM_LISTENER.toLowerCase(java.util.Locale.ROOT) + ".";
    builder.setConfigProp("listeners", broker + "://localhost:0," + controller + "://localhost:0,"
            + SCRAM_LISTENER + "://localhost:0")
        .setConfigProp("listener.security.protocol.map", broker + ":SASL_PLAINTEXT," + controller + ":SASL_PLAINTEXT,"
            + SCRAM_LISTENER + ":SASL_PLAINTEXT")
        .setConfigProp("sasl.enabled.mechanisms", "PLAIN")
        .setConfigProp(scram + "sasl.enabled.mechanisms", SCRAM_MECHANISM)
        .setConfigProp(scram + SCRAM_MECHANISM.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required;")
        .setConfigProp("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .setConfigProp("allow.everyone.if.no.acl.found", "false")
        .setConfigProp("super.users", "User:" + SASL_USER);
  }

  public String bootstrapServers() {
    return kit.bootstrapServers();
  }

  /** The SCRAM-only user listener of a {@link #startSaslScram()} cluster. */
  public String scramBootstrapServers() {
    requireScram();
    return kit.brokers().values().stream()
        .map(b -> "localhost:" + b.boundPort(ListenerName.normalised(SCRAM_LISTENER)))
        .collect(Collectors.joining(","));
  }

  /**
   * The Kafka client settings of SCRAM user {@code user} on a {@link #startSaslScram()} cluster:
   * {@code bootstrap.servers} (the user listener), {@code security.protocol}, {@code sasl.mechanism}
   * and {@code sasl.jaas.config}.
   */
  public Map<String, String> scramClientSettings(String user, String password) {
    return Map.of("bootstrap.servers", scramBootstrapServers(), "security.protocol", "SASL_PLAINTEXT",
        "sasl.mechanism", SCRAM_MECHANISM,
        "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + user + "\" password=\"" + password + "\";");
  }

  /**
   * Creates (or replaces) SCRAM-SHA-256 user {@code user} and returns once the broker takes its
   * credentials: a user is in the controller's metadata before the broker learns of it.
   */
  public void createScramUser(String user, String password) {
    requireScram();
    try (Admin admin = admin()) {
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
          new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), password))).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("could not create SCRAM user " + user, e);
    }
    Properties props = new Properties();
    props.putAll(scramClientSettings(user, password));
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
    awaitTrue("SCRAM user " + user + " can authenticate", () -> {
      try (Admin asUser = Admin.create(props)) {
        asUser.describeCluster().nodes().get(10, TimeUnit.SECONDS); // needs no ACL, only a login
        return true;
      } catch (ExecutionException e) {
        if (e.getCause() instanceof SaslAuthenticationException) {
          return false;
        }
        throw e;
      }
    });
  }

  /**
   * Creates the ACLs (as the super user) and returns once the broker's authorizer holds every one of
   * them: an ACL, too, is in the controller's metadata before the broker applies it.
   */
  public void createAcls(Collection<AclBinding> acls) {
    try (Admin admin = admin()) {
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
      awaitTrue("the broker holds ACLs " + acls, () -> {
        Set<AclBinding> held = new HashSet<>(admin.describeAcls(AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS));
        return held.containsAll(acls);
      });
    } catch (Exception e) {
      throw new IllegalStateException("could not create ACLs " + acls, e);
    }
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  /** Polls {@code check} every 20 ms until it holds, for 30 s at most. */
  private static void awaitTrue(String what, Check check) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try {
      while (!check.holds()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("timed out after 30 s waiting until " + what);
        }
        Thread.sleep(20);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting until " + what, e);
    } catch (IllegalStateException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("failed while waiting until " + what, e);
    }
  }

  private void requireScram() {
    if (security != Security.SASL_SCRAM) {
      throw new IllegalStateException("not a SCRAM cluster: start it with RealKafka.startSaslScram()");
    }
  }

  public int brokerCount() {
    return brokers;
  }

  /** Client properties with the bootstrap servers set, to add to. */
  public Properties clientProperties() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    if (security != Security.NONE) {
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
