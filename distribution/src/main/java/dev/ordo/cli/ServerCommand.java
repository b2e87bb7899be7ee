package dev.ordo.cli;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import dev.ordo.cli.internal.Converters;
import dev.ordo.server.Components;
import dev.ordo.server.OrdoServer;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerConfig;
import dev.ordo.server.ServerSettings;
import dev.ordo.server.internal.Messages;
import java.util.Map;
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

  @Option(names = "--sqs-port", paramLabel = "PORT",
      description = "Port of the SQS-compatible endpoint (ordo.sqs.port); 0 = none, -1 = any free port. Default: "
          + dev.ordo.server.sqs.SqsConfig.DEFAULT_PORT + ".")
  Integer sqsPort;

  @Option(names = "--kafka-port", paramLabel = "PORT", defaultValue = "0", converter = Converters.Port.class,
      description = "Port of the embedded broker; 0 = any free port. Default: ${DEFAULT-VALUE}.")
  int kafkaPort;

  @Option(names = "--delay-tiers", paramLabel = "D,D,...", defaultValue = ServerConfig.DEFAULT_DELAY_TIERS,
      converter = Converters.DelayTiers.class,
      description = "Fixed delays of the delay-tier topics, increasing (ms, s, m, h, d). Default: ${DEFAULT-VALUE}.")
  List<Duration> delayTiers;

  @Option(names = "--config", paramLabel = "FILE",
      description = "Settings file (Java properties): Ordo's keys (ordo.*), Kafka Streams keys (streams.*) and Kafka "
          + "client keys (security.protocol, sasl.*, ssl.*...) for every Kafka client; ORDO_* environment variables "
          + "override it, flags override both. See docs/running.md or --list-settings.")
  Path configFile;

  @Option(names = "--insecure-http",
      description = "Serve the HTTP API without authentication on an address other than loopback"
          + " (ordo.http.insecure=true); see docs/security.md.")
  boolean insecureHttp;

  @Option(names = "--list-settings",
      description = "Print Ordo's settings (key, environment variable, default, meaning) as markdown and exit.")
  boolean listSettings;

  private final Supplier<List<ServerComponent>> components;
  private final java.util.function.Supplier<Map<String, String>> environment;
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
    this(components, shutdownHook, onStarted, System::getenv);
  }

  /** As above, reading {@code ORDO_*} settings from {@code environment} instead of the process's. */
  public ServerCommand(Supplier<List<ServerComponent>> components, boolean shutdownHook,
      Consumer<OrdoServer> onStarted, Supplier<Map<String, String>> environment) {
    this.environment = environment;
    this.components = components;
    this.shutdownHook = shutdownHook;
    this.onStarted = onStarted;
  }

  /**
   * The server's settings: defaults, then {@code --config}, then {@code ORDO_*} variables, then the
   * flags given on the command line (a flag left at its default does not override a setting).
   */
  ServerConfig config() {
    ServerSettings settings;
    try {
      ServerSettings fromFile = configFile == null ? ServerSettings.none()
          : ServerSettings.of(ServerSettings.load(configFile), "in " + configFile);
      settings = fromFile.with(ServerSettings.of(ServerSettings.fromEnvironment(environment.get()), "from the environment"));
      if (sqsPort != null) {
        settings = settings.with(ServerSettings.of(Map.of(dev.ordo.server.sqs.SqsConfig.PORT_CONFIG,
            Integer.toString(sqsPort)), "--sqs-port"));
      }
      if (insecureHttp) {
        settings = settings.with(ServerSettings.of(Map.of(dev.ordo.server.auth.SecurityConfig.INSECURE, "true"),
            "--insecure-http"));
      }
    } catch (ServerSettings.SettingException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    String bootstrap = given("--bootstrap-servers") ? bootstrapServers
        : (String) settings.kafkaClient().getOrDefault("bootstrap.servers", bootstrapServers);
    int kafka = given("--kafka-port") ? kafkaPort : intSetting(settings, "ordo.server.kafka.port", kafkaPort);
    if (bootstrap != null && kafka != 0) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--kafka-port is for the embedded broker and cannot be used with --bootstrap-servers");
    }
    Integer parts = given("--partitions") ? partitions
        : settings.ordo("ordo.server.partitions") != null ? Integer.valueOf(settings.ordo("ordo.server.partitions"))
        : partitions;
    List<Duration> tiers = delayTiers;
    String cluster = this.cluster;
    try {
      if (!given("--delay-tiers") && settings.ordo("ordo.delay.tiers") != null) {
        tiers = Durations.parseList(settings.ordo("ordo.delay.tiers"));
      }
      if (!given("--cluster") && settings.ordo("ordo.cluster") != null) {
        cluster = new Converters.Cluster().convert(settings.ordo("ordo.cluster"));
      }
      return ServerConfig.builder()
          .bootstrapServers(bootstrap)
          .cluster(cluster)
          .partitions(parts == null ? OptionalInt.empty() : OptionalInt.of(parts))
          .delayTiers(tiers)
          .stateDir(given("--state-dir") || settings.ordo("ordo.server.state.dir") == null ? stateDir
              : Path.of(settings.ordo("ordo.server.state.dir")))
          .httpHost(given("--http-host") || settings.ordo("ordo.server.http.host") == null ? httpHost
              : settings.ordo("ordo.server.http.host"))
          .httpPort(given("--http-port") ? httpPort : intSetting(settings, "ordo.server.http.port", httpPort))
          .kafkaPort(kafka)
          .settings(settings)
          .build();
    } catch (Exception e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), Messages.oneLine(e));
    }
  }

  private boolean given(String option) {
    return spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  private static int intSetting(ServerSettings settings, String key, int otherwise) {
    String v = settings.ordo(key);
    return v == null ? otherwise : Integer.parseInt(v);
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (listSettings) {
      out.print(ServerSettings.markdown());
      out.flush();
      return 0;
    }
    ServerConfig config = config();
    OrdoServer server = new OrdoServer(config, components.get());
    out.println("Starting Ordo (cluster '" + config.topics().cluster() + "', "
        + (config.embeddedKafka() ? "embedded Kafka" : "Kafka at " + config.bootstrapServers().get())
        + ", state in " + config.stateDir().toAbsolutePath().normalize() + ")...");
    Map<String, String> set = config.settings().describe();
    if (!set.isEmpty()) {
      out.println("Settings (" + (configFile == null ? "" : configFile + ", ") + "ORDO_* variables; secrets hidden):");
      set.forEach((k, v) -> out.println("  " + k + "=" + v));
    }
    org.slf4j.LoggerFactory.getLogger(ServerCommand.class).info("Effective settings (secrets hidden): {}",
        config.settings().effective());
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
    server.components().stream().filter(c -> c instanceof dev.ordo.server.components.SqsComponent)
        .map(c -> ((dev.ordo.server.components.SqsComponent) c).address()).flatMap(java.util.Optional::stream)
        .findFirst().ifPresent(sqs -> out.println("  SQS:    " + sqs + "  (aws --endpoint-url " + sqs + " sqs ...)"));
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
