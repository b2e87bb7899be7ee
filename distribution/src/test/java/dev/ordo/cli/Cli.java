package dev.ordo.cli;

import dev.ordo.server.OrdoServer;
import dev.ordo.server.ServerComponent;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine;

/** Runs the {@code ordo} command line in this JVM and captures what it prints. */
final class Cli {
  record Result(int exitCode, String out, String err) {
    /** stderr's lines, blank ones dropped. */
    List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  /** A running {@code ordo server}: its exit code once closed, its output so far. */
  record Running(OrdoServer server, CompletableFuture<Integer> exit, StringWriter out, StringWriter err) {
    Result stop() throws Exception {
      server.close();
      int code = exit.get(60, TimeUnit.SECONDS);
      return new Result(code, out.toString(), err.toString());
    }
  }

  private Cli() {}

  /** Runs a command that ends by itself (errors, --help, --version). */
  static Result run(String... args) {
    return runWithEnvironment(Map.of(), args);
  }

  /** {@link #run} with {@code environment} as the process's environment variables. */
  static Result runWithEnvironment(Map<String, String> environment, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = commandLine(List::of, server -> server.close(), out, err, environment);
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /**
   * Starts {@code ordo server ARGS} in the background with the given components and returns once
   * it runs; fails if it exits first.
   */
  static Running start(Supplier<List<ServerComponent>> components, String... args) throws Exception {
    return start(components, Map.of(), args);
  }

  /** {@link #start(Supplier, String...)} with {@code environment} as the process's environment variables. */
  static Running start(Supplier<List<ServerComponent>> components, Map<String, String> environment, String... args)
      throws Exception {
    if (!List.of(args).contains("--sqs-port") && !environment.containsKey("ORDO_SQS_PORT")) {
      // Not SQS's fixed 9324: test classes may run side by side (ordo.test.forks).
      environment = new java.util.HashMap<>(environment);
      environment.put("ORDO_SQS_PORT", "-1");
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CompletableFuture<OrdoServer> started = new CompletableFuture<>();
    CommandLine cl = commandLine(components, started::complete, out, err, environment);
    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cl.execute(args));
    exit.whenComplete((code, e) -> started.completeExceptionally(
        new AssertionError("ordo server exited with " + code + ": " + err + (e == null ? "" : e))));
    OrdoServer server = started.get(Duration.ofMinutes(2).toSeconds(), TimeUnit.SECONDS);
    return new Running(server, exit, out, err);
  }

  static Running start(String... args) throws Exception {
    return start(List::of, args);
  }

  private static CommandLine commandLine(Supplier<List<ServerComponent>> components,
      java.util.function.Consumer<OrdoServer> onStarted, StringWriter out, StringWriter err,
      Map<String, String> environment) {
    CommandLine.IFactory defaults = CommandLine.defaultFactory();
    CommandLine cl = OrdoMain.commandLine(new CommandLine.IFactory() {
      @Override
      @SuppressWarnings("unchecked")
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == ServerCommand.class) {
          return (K) new ServerCommand(components, false, onStarted, () -> environment);
        }
        return defaults.create(cls);
      }
    });
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl;
  }
}
