package dev.ordo.cli;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import dev.ordo.cli.internal.Converters;
import dev.ordo.server.Components;
import dev.ordo.server.OrdoServer;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ordo server}: runs Ordo, with an embedded Kafka broker unless given a cluster. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    versionProvider = dev.ordo.cli.internal.VersionProvider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Runs an Ordo server. Without --bootstrap-servers it starts an embedded single-node Kafka "
          + "broker (KRaft) with its data in <state-dir>/kafka. It creates the cluster's topics "
          + "when missing and checks existing ones. Stop it with Ctrl-C or SIGTERM."
    })
public final class ServerCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]",
      converter = Converters.BootstrapServers.class,
      description = "Kafka cluster to use. Default: start an embedded broker.")
  String bootstrapServers;

  @Option(names = "--cluster", paramLabel = "NAME", defaultValue = ServerConfig.DEFAULT_CLUSTER,
      converter = Converters.Cluster.class,
      description = "Cluster name, the prefix of its topics. Default: ${DEFAULT-VALUE}.")
  String cluster;

  @Option(names = "--partitions", paramLabel = "N", converter = Converters.Positive.class,
      description = "Partitions of new topics. Default: those of the existing topics, else "
          + ServerConfig.DEFAULT_PARTITIONS + ".")
  Integer partitions;

  @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = ServerConfig.DEFAULT_STATE_DIR,
      description = "Directory for local state (and the embedded broker's data). Default: ${DEFAULT-VALUE}.")
  Path stateDir;

  @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "" + ServerConfig.DEFAULT_HTTP_PORT,
      converter = Converters.Port.class,
      description = "HTTP port; 0 = any free port. Default: ${DEFAULT-VALUE}.")
  int httpPort;

  @Option(names = "--http-host", paramLabel = "ADDRESS", defaultValue = ServerConfig.DEFAULT_HTTP_HOST,
      description = "Address the HTTP server binds (0.0.0.0 = all). Default: ${DEFAULT-VALUE}.")
  String httpHost;

  @Option(names = "--kafka-port", paramLabel = "PORT", defaultValue = "0", converter = Converters.Port.class,
      description = "Port of the embedded broker; 0 = any free port. Default: ${DEFAULT-VALUE}.")
  int kafkaPort;

  @Option(names = "--delay-tiers", paramLabel = "D,D,...", defaultValue = ServerConfig.DEFAULT_DELAY_TIERS,
      converter = Converters.DelayTiers.class,
      description = "Fixed delays of the delay-tier topics, increasing (ms, s, m, h, d). Default: ${DEFAULT-VALUE}.")
  List<Duration> delayTiers;

  private final Supplier<List<ServerComponent>> components;
  private final boolean shutdownHook;
  private final Consumer<OrdoServer> onStarted;

  /** The command as the distribution runs it: the standard components, stopped by SIGTERM/Ctrl-C. */
  public ServerCommand() {
    this(Components::standard, true, server -> { });
  }

  /**
   * For tests and embedding: {@code onStarted} gets the running server (e.g. to close it later);
   * {@link #call()} returns once it is closed. Without {@code shutdownHook} nothing stops the
   * server on SIGTERM.
   */
  public ServerCommand(Supplier<List<ServerComponent>> components, boolean shutdownHook,
      Consumer<OrdoServer> onStarted) {
    this.components = components;
    this.shutdownHook = shutdownHook;
    this.onStarted = onStarted;
  }

  ServerConfig config() {
    if (bootstrapServers != null && kafkaPort != 0) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--kafka-port is for the embedded broker and cannot be used with --bootstrap-servers");
    }
    return ServerConfig.builder()
        .bootstrapServers(bootstrapServers)
        .cluster(cluster)
        .partitions(partitions == null ? OptionalInt.empty() : OptionalInt.of(partitions))
        .delayTiers(delayTiers)
        .stateDir(stateDir)
        .httpHost(httpHost)
        .httpPort(httpPort)
        .kafkaPort(kafkaPort)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    ServerConfig config = config();
    PrintWriter out = spec.commandLine().getOut();
    OrdoServer server = new OrdoServer(config, components.get());
    out.println("Starting Ordo (cluster '" + config.topics().cluster() + "', "
        + (config.embeddedKafka() ? "embedded Kafka" : "Kafka at " + config.bootstrapServers().get())
        + ", state in " + config.stateDir().toAbsolutePath().normalize() + ")...");
    out.flush();
    if (shutdownHook) {
      // Before start(): a signal during start-up still stops the broker cleanly.
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stopFromSignal(server), "ordo-shutdown"));
    }
    server.start();
    printStarted(out, server);
    onStarted.accept(server);
    server.awaitClosed();
    return 0;
  }

  private static void printStarted(PrintWriter out, OrdoServer server) {
    ClusterTopics t = server.layout().topics();
    String tiers = server.layout().delayTiers().stream().map(Durations::format).collect(Collectors.joining(","));
    out.println("Ordo started in " + server.startDuration().toMillis() + " ms.");
    out.println("  Kafka:  " + server.bootstrapServers()
        + server.kafkaDataDir().map(d -> "  (embedded broker, data in " + d + ")").orElse(""));
    out.println("  HTTP:   " + server.httpAddress() + "  (GET " + server.httpAddress() + "/health)");
    out.println("  Topics: " + t.cluster() + ".{items,commands,deliveries,dlq,topics,delay.{" + tiers + "}}, "
        + server.layout().partitions() + " partitions"
        + (server.createdTopics().isEmpty() ? "" : " (" + server.createdTopics().size() + " created)"));
    out.println("Press Ctrl-C to stop.");
    out.flush();
  }

  private static void stopFromSignal(OrdoServer server) {
    if (server.isClosed()) {
      OrdoMain.shutdownLogging();
      return;
    }
    System.out.println("Stopping Ordo...");
    long t0 = System.nanoTime();
    server.close();
    System.out.println("Ordo stopped in " + (System.nanoTime() - t0) / 1_000_000 + " ms.");
    System.out.flush();
    OrdoMain.shutdownLogging();
  }
}
