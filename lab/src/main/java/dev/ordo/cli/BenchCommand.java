package dev.ordo.cli;

import dev.ordo.bench.Bench;
import dev.ordo.bench.BenchOptions;
import dev.ordo.server.OrdoServer;
import dev.ordo.server.ServerConfig;
import dev.ordo.server.ServerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code ordo bench}: Ordo against raw Kafka and Kafka share groups in one run ({@link Bench}),
 * on an embedded broker in a temporary directory unless {@code --bootstrap-servers} is given.
 */
@Command(
    name = "bench",
    header = "Measures Ordo against raw Kafka and Kafka share groups, in one run, as ratios.",
    mixinStandardHelpOptions = true,
    versionProvider = dev.ordo.cli.internal.VersionProvider.class,
    usageHelpAutoWidth = true,
    description = "Runs the scenarios of docs/benchmarks.md and prints a table (the median of several rounds "
        + "per figure). Without --bootstrap-servers it starts an embedded Kafka broker in a temporary directory.",
    // The flags of the bench itself, from the one list it parses them by.
    footer = {"", dev.ordo.bench.BenchOptions.USAGE, "", FaultModes.USAGE, "", dev.ordo.bench.BenchReportPage.USAGE})
final class BenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]",
      description = "Kafka to measure against (default: an embedded broker)")
  String bootstrapServers;

  @Option(names = "--http-tokens",
      description = "The http scenario's server authenticates every request by an API token (ordo.http.auth=token;"
          + " its workers send one of a principal with produce, consume and operate on the bench namespace): what"
          + " authentication costs, against a run without this flag.")
  boolean httpTokens;

  @Unmatched
  List<String> benchArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    if (!benchArgs.isEmpty() && benchArgs.get(0).equals("report")) { // ordo bench report FILE... [--out FILE]
      return dev.ordo.bench.BenchReportPage.run(benchArgs.subList(1, benchArgs.size()), System.out, System.err);
    }
    if (FaultModes.isFaultMode(benchArgs)) {
      FaultModes mode;
      try {
        mode = FaultModes.parse(benchArgs);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("ordo bench: " + e.getMessage() + " (try 'ordo bench --help')");
        return OrdoMain.EXIT_USAGE;
      }
      Configurator.setAllLevels(LogManager.ROOT_LOGGER_NAME, Level.ERROR);
      return mode.needsKafka() ? onKafka(bootstrap -> mode.run(bootstrap, System.out)) : mode.run(null, System.out);
    }
    BenchOptions options;
    try {
      options = BenchOptions.parse(benchArgs.toArray(String[]::new));
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("ordo bench: " + e.getMessage().lines().findFirst().orElse("bad option")
          + " (try 'ordo bench --help')");
      return OrdoMain.EXIT_USAGE;
    }
    Configurator.setAllLevels(LogManager.ROOT_LOGGER_NAME, Level.ERROR);
    BenchOptions chosen = options;
    return onKafka(bootstrap -> {
      boolean tokens = httpTokens;
      Bench.run(bootstrap, chosen, System.out, (b, cluster, partitions) -> httpServer(b, cluster, partitions, tokens));
      return 0;
    });
  }

  /** Runs {@code work} on the Kafka given, or on an embedded broker in a temporary directory. */
  private Integer onKafka(KafkaWork work) throws Exception {
    if (bootstrapServers != null) {
      return work.run(bootstrapServers);
    }
    Path dir = Files.createTempDirectory("ordo-bench-");
    ServerConfig config = ServerConfig.builder().stateDir(dir).cluster("bench-broker").httpPort(0).kafkaPort(0).build();
    try (OrdoServer broker = new OrdoServer(config, List.of())) {
      broker.start();
      System.out.println("Embedded Kafka at " + broker.bootstrapServers() + " (data in " + dir + ")");
      return work.run(broker.bootstrapServers());
    } finally {
      delete(dir);
    }
  }

  private interface KafkaWork {
    Integer run(String bootstrap) throws Exception;
  }

  /** Experiments: {@code -Dordo.bench.server.<key>=<value>} sets {@code <key>} on the http scenario's server. */
  static final String SERVER_SETTING_PREFIX = "ordo.bench.server.";

  /**
   * An {@code ordo server} on the bench's cluster for the http scenario: the standard components
   * (queue, delay tiers, HTTP API) with their defaults, an HTTP port of its own, state in a
   * temporary directory.
   */
  static dev.ordo.bench.HttpFrontEnd.Running httpServer(String bootstrap, String cluster, int partitions)
      throws IOException {
    return httpServer(bootstrap, cluster, partitions, false);
  }

  /** As above; with {@code tokens}, authenticating by API token, the workers' token made for the run. */
  static dev.ordo.bench.HttpFrontEnd.Running httpServer(String bootstrap, String cluster, int partitions,
      boolean tokens) throws IOException {
    Path dir = Files.createTempDirectory("ordo-bench-http-");
    // Experiments: -Dordo.bench.server.<key>=<value> is a setting of this server, as in its --config
    // (the -Dordo.bench.queue.* and streams.* of the bench's own queues do not reach it).
    Map<String, String> settings = new java.util.TreeMap<>();
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(SERVER_SETTING_PREFIX))
        .forEach(k -> settings.put(k.substring(SERVER_SETTING_PREFIX.length()), System.getProperty(k)));
    // The SQS endpoint on any free port: a fixed one would clash with another server on this machine.
    settings.putIfAbsent(dev.ordo.server.sqs.SqsConfig.PORT_CONFIG, "-1");
    String bootstrapToken = tokens ? "bench-" + java.util.UUID.randomUUID() : null;
    if (tokens) {
      settings.put(dev.ordo.server.auth.SecurityConfig.AUTH, "token");
      settings.put(dev.ordo.server.auth.SecurityConfig.BOOTSTRAP_TOKEN, bootstrapToken);
    }
    ServerConfig config = ServerConfig.builder().bootstrapServers(bootstrap).cluster(cluster).partitions(partitions)
        .stateDir(dir).httpPort(0).settings(ServerSettings.of(settings, "-D" + SERVER_SETTING_PREFIX + "*")).build();
    List<dev.ordo.server.ServerComponent> components = dev.ordo.server.Components.standard();
    OrdoServer server = new OrdoServer(config, components);
    try {
      server.start();
    } catch (RuntimeException e) {
      server.close();
      delete(dir);
      throw e;
    }
    String token;
    try {
      token = tokens ? workerToken(server.httpAddress(), bootstrapToken) : null;
    } catch (RuntimeException e) {
      server.close();
      delete(dir);
      throw e;
    }
    return new dev.ordo.bench.HttpFrontEnd.Running() {
      @Override
      public java.net.URI address() {
        return server.httpAddress();
      }

      @Override
      public String token() {
        return token;
      }

      @Override
      public java.net.URI sqsAddress() {
        return components.stream().filter(c -> c instanceof dev.ordo.server.components.SqsComponent)
            .map(c -> ((dev.ordo.server.components.SqsComponent) c).address().orElse(null)).filter(Objects::nonNull)
            .findFirst().orElse(null);
      }

      @Override
      public void close() {
        server.close();
        delete(dir);
      }
    };
  }

  /** A principal with produce, consume and operate on the bench's namespace, and its token. */
  private static String workerToken(java.net.URI server, String bootstrapToken) {
    com.fasterxml.jackson.databind.JsonNode made = new dev.ordo.cli.internal.ApiClient(server, bootstrapToken, null)
        .post("/v1/principals", Map.of("name", "bench-worker", "grants", List.of("bench:produce,consume,operate")),
            java.time.Duration.ofSeconds(30));
    return made.get("token").asText();
  }

  static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | RuntimeException e) {
      // a temporary directory; the OS cleans it eventually
    }
  }
}
