package dev.ordo.server.internal;

import dev.ordo.server.StartupException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) running in this JVM:
 * Kafka's own {@link KafkaRaftServer} from the {@code kafka_2.13} jars, on loopback ports.
 *
 * <p>Its data lives in one directory (log segments and the KRaft metadata log). The directory is
 * formatted on first use, like {@code kafka-storage format}, with a random cluster id kept in
 * {@code meta.properties}; later starts reuse it, so topics and records survive restarts. Ports
 * may change from one start to the next: the controller quorum is static
 * ({@code controller.quorum.voters}), so nothing on disk records an address.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final int NODE_ID = 1;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final Path dataDir;
  private final int port;
  private final KafkaRaftServer server;
  private final boolean formatted;
  private volatile boolean closed;

  private EmbeddedKafka(Path dataDir, int port, KafkaRaftServer server, boolean formatted) {
    this.dataDir = dataDir;
    this.port = port;
    this.server = server;
    this.formatted = formatted;
  }

  /**
   * Starts a broker with its data in {@code dataDir}, formatting it first if it is new.
   *
   * @param port the client port, 0 for any free one
   */
  public static EmbeddedKafka start(Path dataDir, int port) {
    Path dir = dataDir.toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StartupException("cannot create the Kafka data directory " + dir + ": " + e.getMessage());
    }
    int clientPort = Ports.checkFree("Kafka port", "--kafka-port", port);
    int controllerPort = Ports.freeLoopbackPort();
    while (controllerPort == clientPort) {
      controllerPort = Ports.freeLoopbackPort();
    }
    Properties props = brokerProperties(dir, clientPort, controllerPort);
    KafkaConfig config = KafkaConfig.fromProps(props, false);

    boolean formatted = false;
    if (!Files.exists(dir.resolve("meta.properties"))) {
      format(config, dir);
      formatted = true;
    }
    KafkaRaftServer server;
    try {
      server = new KafkaRaftServer(config, Time.SYSTEM);
    } catch (RuntimeException e) {
      throw new StartupException("cannot use the Kafka data in " + dir + ": " + Messages.oneLine(e)
          + " (move the directory away to start afresh)", e);
    }
    EmbeddedKafka kafka = new EmbeddedKafka(dir, clientPort, server, formatted);
    long t0 = System.nanoTime();
    try {
      server.startup();
      kafka.awaitReady();
      LOG.info("Embedded Kafka broker ready on {} in {} ms", kafka.bootstrapServers(),
          (System.nanoTime() - t0) / 1_000_000);
    } catch (RuntimeException e) {
      kafka.close();
      if (e instanceof StartupException se) {
        throw se;
      }
      throw new StartupException("the embedded Kafka broker failed to start: " + Messages.oneLine(e), e);
    }
    return kafka;
  }

  /** The broker config: one combined node on loopback, replication 1 for the internal topics. */
  static Properties brokerProperties(Path dir, int clientPort, int controllerPort) {
    Map<String, String> c = new TreeMap<>();
    c.put("process.roles", "broker,controller");
    c.put("node.id", Integer.toString(NODE_ID));
    c.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
    c.put("listeners", "PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    c.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + clientPort);
    c.put("controller.listener.names", "CONTROLLER");
    c.put("inter.broker.listener.name", "PLAINTEXT");
    c.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
    c.put("log.dirs", dir.toString());
    // One broker: every internal topic has replication 1, or groups and transactions stall.
    c.put("offsets.topic.replication.factor", "1");
    c.put("transaction.state.log.replication.factor", "1");
    c.put("transaction.state.log.min.isr", "1");
    c.put("share.coordinator.state.topic.replication.factor", "1");
    c.put("share.coordinator.state.topic.min.isr", "1");
    c.put("default.replication.factor", "1");
    c.put("min.insync.replicas", "1");
    // Fewer internal partitions than the production defaults (50): this is one small node.
    c.put("offsets.topic.num.partitions", "8");
    c.put("transaction.state.log.num.partitions", "8");
    c.put("share.coordinator.state.topic.num.partitions", "8");
    c.put("group.initial.rebalance.delay.ms", "0");
    // A crashed instance's transaction is aborted at most a second after its timeout, not ten
    // (the broker's default clean-up interval): the survivor's failover waits for that (D28).
    c.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
    // Share groups join in a fraction of the time with 500 ms heartbeats (KAFKA-NOTES.md); ordo
    // bench measures them as a baseline on this broker.
    c.put("group.share.heartbeat.interval.ms", "500");
    c.put("group.share.min.heartbeat.interval.ms", "500");
    Properties props = new Properties();
    props.putAll(c);
    return props;
  }

  /**
   * What {@code kafka-storage format -t <clusterId> -c server.properties} does for a node of a static
   * quorum, production features at the latest production version; the caller adds the directories.
   */
  public static Formatter formatter(KafkaConfig config, String clusterId, PrintStream print) {
    return new Formatter()
        .setPrintStream(print)
        .setNodeId(config.nodeId())
        .setClusterId(clusterId)
        .setUnstableFeatureVersionsEnabled(false)
        .setIgnoreFormatted(false)
        .setControllerListenerName(config.controllerListenerNames().get(0))
        .setMetadataLogDirectory(config.metadataLogDir())
        .setReleaseVersion(MetadataVersion.latestProduction())
        .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
        .setHasDynamicQuorum(false);
  }

  private static void format(KafkaConfig config, Path dir) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      Formatter formatter = formatter(config, Uuid.randomUuid().toString(), print);
      formatter.addDirectory(dir.toString());
      formatter.run();
    } catch (Exception e) {
      throw new StartupException("cannot format the Kafka data directory " + dir + ": " + Messages.oneLine(e), e);
    }
    LOG.info("Formatted a new Kafka data directory {}", dir);
    LOG.debug("Format output: {}", out.toString(StandardCharsets.UTF_8).trim());
  }

  private void awaitReady() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    try (Admin admin = Admin.create(props)) {
      while (true) {
        try {
          Collection<Node> nodes = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
          if (!nodes.isEmpty()) {
            return;
          }
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
          if (System.nanoTime() > deadline) {
            throw new StartupException("the embedded Kafka broker did not become ready within "
                + READY_TIMEOUT.toSeconds() + " s: " + Messages.oneLine(e));
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StartupException("interrupted while waiting for the embedded Kafka broker");
        }
      }
    }
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** True if this start formatted a new data directory. */
  public boolean formatted() {
    return formatted;
  }

  /** Stops the broker cleanly (controlled shutdown, flushed logs). Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException e) {
      LOG.warn("Embedded Kafka broker did not stop cleanly: {}", Messages.oneLine(e));
    }
  }
}
