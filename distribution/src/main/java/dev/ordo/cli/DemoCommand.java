package dev.ordo.cli;

import dev.ordo.demo.Demo;
import dev.ordo.demo.DemoPlan;
import dev.ordo.demo.DemoReport;
import dev.ordo.demo.DemoSettings;
import dev.ordo.server.OrdoServer;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerConfig;
import dev.ordo.server.StartupException;
import dev.ordo.server.components.HttpApiComponent;
import dev.ordo.server.components.QueueComponent;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code ordo demo}: an Ordo server with an embedded Kafka broker in a fresh temporary directory,
 * a mixed workload through it ({@link Demo}), a summary table, and everything removed afterwards.
 */
@Command(
    name = "demo",
    header = "Runs a mixed workload on an embedded Kafka and shows what happened.",
    mixinStandardHelpOptions = true,
    versionProvider = dev.ordo.cli.internal.VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
      "Runs Ordo on an embedded Kafka broker in a temporary directory and puts a mixed workload through it: "
          + "500 items on 3 topics with priorities 0-9, some delayed, some whose handlers fail and are retried, "
          + "one poison item that ends in the dead-letter topic. A LeaseConsumer works on them while a progress "
          + "bar runs; a table of outcomes, attempts, latencies and throughput ends it. Takes under a minute; "
          + "uses no port of its own choosing and leaves nothing behind."
    })
final class DemoCommand implements Callable<Integer> {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    // The server's start-up and the clients' group joins would drown the demo's output.
    // Kafka's own complaints on a loaded machine (slow controller events...) too: the demo reports
    // what went wrong itself.
    Configurator.setAllLevels(LogManager.ROOT_LOGGER_NAME, Level.OFF);
    Configurator.setLevel("dev.ordo", Level.ERROR);
    long t0 = System.nanoTime();
    Path dir = Files.createTempDirectory("ordo-demo-");
    ServerConfig config = ServerConfig.builder()
        .stateDir(dir)
        .cluster("ordo")
        .partitions(4)
        .httpPort(0)
        .kafkaPort(0)
        .build();
    // The queue and its HTTP API. The delay-tier forwarders are left out: the demo's delays are
    // shorter than the shortest tier (30 s), so the queue keeps them in its timer index, and four
    // fewer transactional clients start faster on a busy machine.
    QueueComponent queue = new QueueComponent();
    List<ServerComponent> components = List.of(queue, new HttpApiComponent(queue::service));
    OrdoServer server = new OrdoServer(config, components);
    Thread cleanup = new Thread(() -> {
      server.close();
      delete(dir);
    }, "ordo-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      out.println("Starting Ordo with an embedded Kafka broker (state in " + dir + ")...");
      out.flush();
      server.start();
      awaitUp(components);
      out.printf(Locale.ROOT, "Ordo is up after %.1f s: Kafka at %s, HTTP at %s%n",
          (System.nanoTime() - t0) / 1e9, server.bootstrapServers(), server.httpAddress());
      DemoPlan plan = DemoPlan.create(DemoSettings.standard());
      DemoSettings s = plan.settings();
      out.printf(Locale.ROOT, "Enqueuing %d items on topics %s of namespace '%s' (%d delayed, %d failing once, "
              + "%d retried later twice, %d poison) and consuming them with a LeaseConsumer (%d in flight)...%n",
          s.items(), String.join(", ", s.topics()), DemoSettings.NAMESPACE, plan.delayed(),
          plan.count(DemoPlan.Behaviour.FAILS_ONCE), plan.count(DemoPlan.Behaviour.RETRY_LATER_TWICE),
          plan.count(DemoPlan.Behaviour.POISON), s.maxInFlight());
      out.flush();
      Demo demo = new Demo(plan, server.bootstrapServers(), config.topics().cluster(), server.layout().partitions());
      DemoReport report = demo.run(progressBar(s.items()));
      out.println();
      report.table().forEach(out::println);
      out.printf(Locale.ROOT, "%nDone in %.1f s (start-up included).%n", (System.nanoTime() - t0) / 1e9);
      out.flush();
      if (!report.complete()) {
        spec.commandLine().getErr().println("ordo demo: " + report.count(DemoReport.Outcome.UNFINISHED)
            + " items did not finish within " + s.timeout().toSeconds() + " s (a loaded machine?)");
        return OrdoMain.EXIT_FAILURE;
      }
      return 0;
    } finally {
      server.close();
      delete(dir);
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException e) {
        // already shutting down
      }
    }
  }

  private static void awaitUp(List<ServerComponent> components) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!components.stream().allMatch(c -> "UP".equals(c.status()))) {
      if (System.nanoTime() > deadline) {
        throw new StartupException("the queue did not start within " + START_TIMEOUT.toSeconds() + " s");
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  /** A progress bar on stdout: redrawn in place on a terminal, a line a second otherwise. */
  private static Demo.Progress progressBar(long total) {
    PrintStream stdout = System.out;
    boolean terminal = System.console() != null;
    ProgressBarBuilder builder = new ProgressBarBuilder()
        .setTaskName("Processing")
        .setInitialMax(total)
        .setUnit(" items", 1)
        .showSpeed()
        .setStyle(terminal ? ProgressBarStyle.COLORFUL_UNICODE_BLOCK : ProgressBarStyle.ASCII)
        .setUpdateIntervalMillis(terminal ? 200 : 1000)
        .setConsumer(terminal ? new ConsoleProgressBarConsumer(stdout)
            : new DelegatingProgressBarConsumer(stdout::println, 100));
    ProgressBar bar = builder.build();
    return new Demo.Progress() {
      private boolean closed;

      @Override
      public synchronized void finished(long done, String message) {
        if (!closed) {
          bar.stepTo(done);
          bar.setExtraMessage(message);
        }
      }

      @Override
      public synchronized void close() {
        if (!closed) {
          closed = true;
          bar.close();
        }
      }
    };
  }

  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | RuntimeException e) {
      // a temporary directory; the OS cleans it eventually
    }
  }
}
