package dev.ordo.faults;

import dev.ordo.server.internal.Ports;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A Kafka cluster of processes for fault runs: one KRaft controller and three brokers, replication 3
 * and min ISR 2 for every topic. Each broker has two client listeners: {@code PLAINTEXT}, which
 * most clients use, and {@code PROXIED}, advertised at a {@link FaultProxy} in front of it. A client
 * that bootstraps through {@link #proxiedBootstrap()} is told the proxies' addresses, so every one of
 * its connections goes through them, and the proxies' faults (latency, stalls, resets) hit that
 * client alone.
 */
public final class KafkaCluster3 implements AutoCloseable {
  public static final int BROKERS = 3;
  /**
   * The nodes' JVMs. C1 only ({@code TieredStopAtLevel=1}): a restarted broker spends most of its ~40 s start
   * on a 2-core host loading and compiling classes (11 s before its first log line, then its start-up stages,
   * each CPU-bound), and seven JVMs share the cores; the brokers of a test carry little traffic, so C2's peak
   * speed is not worth its compile time.
   */
  private static final List<String> JVM = List.of("-Xmx384m", "-Xms128m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1");

  private final KafkaNode controller;
  private final List<KafkaNode> brokers;
  private final List<FaultProxy> proxies;
  private final List<Integer> ports;

  private KafkaCluster3(KafkaNode controller, List<KafkaNode> brokers, List<FaultProxy> proxies, List<Integer> ports) {
    this.controller = controller;
    this.brokers = brokers;
    this.proxies = proxies;
    this.ports = ports;
  }

  /** Starts the cluster with its data under {@code dir} and waits until its three brokers answer. */
  public static KafkaCluster3 start(Path dir, Duration timeout) {
    String clusterId = Uuid.randomUuid().toString();
    int controllerPort = Ports.freeLoopbackPort();
    String voters = "0@127.0.0.1:" + controllerPort;
    Properties c = common(voters);
    c.setProperty("process.roles", "controller");
    c.setProperty("node.id", "0");
    c.setProperty("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
    c.setProperty("log.dirs", dir.resolve("controller").toString());
    List<KafkaNode> brokers = new ArrayList<>();
    List<FaultProxy> proxies = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    KafkaNode controller = KafkaNode.start("controller", c, clusterId, dir, JVM);
    KafkaCluster3 cluster = new KafkaCluster3(controller, brokers, proxies, ports);
    try {
      for (int i = 1; i <= BROKERS; i++) {
        int port = Ports.freeLoopbackPort();
        int proxiedPort = Ports.freeLoopbackPort();
        FaultProxy proxy;
        try {
          proxy = new FaultProxy("127.0.0.1", proxiedPort);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException("cannot open a fault proxy", e);
        }
        proxies.add(proxy);
        ports.add(port);
        Properties b = common(voters);
        b.setProperty("process.roles", "broker");
        b.setProperty("node.id", Integer.toString(i));
        b.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",PROXIED://127.0.0.1:" + proxiedPort);
        b.setProperty("advertised.listeners",
            "PLAINTEXT://127.0.0.1:" + port + ",PROXIED://127.0.0.1:" + proxy.port());
        b.setProperty("inter.broker.listener.name", "PLAINTEXT");
        b.setProperty("log.dirs", dir.resolve("broker" + i).toString());
        brokers.add(KafkaNode.start("broker" + i, b, clusterId, dir, JVM));
      }
      cluster.awaitBrokers(BROKERS, timeout);
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private static Properties common(String voters) {
    Properties p = new Properties();
    p.setProperty("controller.quorum.voters", voters);
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT");
    p.setProperty("default.replication.factor", "3");
    p.setProperty("min.insync.replicas", "2");
    p.setProperty("offsets.topic.replication.factor", "3");
    p.setProperty("offsets.topic.num.partitions", "8");
    p.setProperty("transaction.state.log.replication.factor", "3");
    p.setProperty("transaction.state.log.min.isr", "2");
    p.setProperty("transaction.state.log.num.partitions", "8");
    p.setProperty("share.coordinator.state.topic.replication.factor", "3");
    p.setProperty("share.coordinator.state.topic.min.isr", "2");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    p.setProperty("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
    // A broker stopped (SIGTERM) waits for the controller to grant its controlled shutdown, which waits for the
    // other brokers' heartbeats to show them past its offset; a restarted one is unfenced on a heartbeat too.
    // Every 2 s (the default) made a stop take 10 s of waiting for grants; 500 ms here (the session timeout
    // stays 9 s).
    p.setProperty("broker.heartbeat.interval.ms", "500");
    return p;
  }

  /** The brokers' direct listeners. */
  public String bootstrap() {
    StringBuilder sb = new StringBuilder();
    for (int port : ports) {
      sb.append(sb.length() == 0 ? "" : ",").append("127.0.0.1:").append(port);
    }
    return sb.toString();
  }

  /** The brokers' proxied listeners, through the proxies: a client bootstrapped here talks only through them. */
  public String proxiedBootstrap() {
    StringBuilder sb = new StringBuilder();
    for (FaultProxy proxy : proxies) {
      sb.append(sb.length() == 0 ? "" : ",").append("127.0.0.1:").append(proxy.port());
    }
    return sb.toString();
  }

  /** The proxies in front of the brokers' proxied listeners, in broker order. */
  public List<FaultProxy> proxies() {
    return List.copyOf(proxies);
  }

  /** Broker {@code i} (0-based). */
  public KafkaNode broker(int i) {
    return brokers.get(i);
  }

  /** Waits until {@code n} brokers are registered and answer. */
  public void awaitBrokers(int n, Duration timeout) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = Admin.create(props)) {
      while (true) {
        try {
          if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= n) {
            return;
          }
        } catch (Exception e) {
          // not yet
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the Kafka cluster did not have " + n + " brokers within " + timeout);
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
  }

  @Override
  public void close() {
    for (KafkaNode b : brokers) {
      b.close();
    }
    controller.close();
    for (FaultProxy p : proxies) {
      p.close();
    }
  }
}
