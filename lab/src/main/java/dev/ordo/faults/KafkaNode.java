package dev.ordo.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * One Kafka node (a KRaft controller or a broker) in a process of its own, so that a fault run can
 * stop, kill or restart it: {@link #main} formats its data directory when new (with the cluster id
 * given) and runs Kafka's own {@link KafkaRaftServer} until the process ends. {@link #start} launches
 * it from this JVM's class path.
 */
public final class KafkaNode implements AutoCloseable {
  private final String name;
  private final Path config;
  private final Path log;
  private final List<String> jvm;
  private volatile Process process;

  private KafkaNode(String name, Path config, Path log, List<String> jvm) {
    this.name = name;
    this.config = config;
    this.log = log;
    this.jvm = List.copyOf(jvm);
  }

  /** Writes {@code settings} to {@code <dir>/<name>.properties} and starts the node. */
  public static KafkaNode start(String name, Properties settings, String clusterId, Path dir, List<String> jvm) {
    try {
      Files.createDirectories(dir);
      Path config = dir.resolve(name + ".properties");
      settings.setProperty("ordo.fault.cluster.id", clusterId);
      try (var out = Files.newBufferedWriter(config)) {
        settings.store(out, "kafka node " + name);
      }
      KafkaNode node = new KafkaNode(name, config, dir.resolve(name + ".log"), jvm);
      node.start();
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts (again) the node's process, on the same data and ports. */
  public synchronized void start() {
    if (process != null && process.isAlive()) {
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), KafkaNode.class.getName(),
        config.toString()));
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Kafka node " + name, e);
    }
  }

  public String name() {
    return name;
  }

  public boolean isAlive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** Stops the node as an operator would (SIGTERM: a controlled shutdown), waiting for it to end. */
  public synchronized void stop() {
    Process p = process;
    if (p == null) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The node's process: formats its directory when new, then runs until killed. */
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
      props.load(in);
    }
    String clusterId = (String) props.remove("ordo.fault.cluster.id");
    KafkaConfig config = KafkaConfig.fromProps(props, false);
    Path dir = Path.of(config.metadataLogDir());
    if (!Files.exists(dir.resolve("meta.properties"))) {
      Formatter formatter = dev.ordo.server.internal.EmbeddedKafka.formatter(config, clusterId,
          new PrintStream(System.out, true, StandardCharsets.UTF_8));
      formatter.addDirectory(config.metadataLogDir());
      formatter.run();
    }
    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdown();
      server.awaitShutdown();
    }));
    server.startup();
    server.awaitShutdown();
  }
}
