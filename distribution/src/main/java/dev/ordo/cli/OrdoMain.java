package dev.ordo.cli;

import dev.ordo.cli.internal.VersionProvider;
import dev.ordo.server.StartupException;
import dev.ordo.server.internal.Messages;
import java.io.PrintWriter;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * The {@code ordo} command line. Errors are one line on stderr and a non-zero exit: 2 for bad
 * flags, 1 when the command could not do its work.
 */
@Command(
    name = "ordo",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = "Ordo: a Kafka-native priority queue and delay service.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done (the server applied the command)",
      "1:failed (server unreachable, Kafka down, server error...)",
      "2:bad flags, arguments or input",
      "3:stale lease (the item was redelivered or released since)",
      "4:unknown item (acked, expired, dead-lettered or never enqueued)"},
    subcommands = {
      ServerCommand.class,
      QueueCommands.Enqueue.class,
      QueueCommands.Dequeue.class,
      QueueCommands.Ack.class,
      QueueCommands.Nack.class,
      QueueCommands.Extend.class,
      QueueCommands.Release.class,
      QueueCommands.Cancel.class,
      QueueCommands.Schedule.class,
      QueueCommands.Topics.class,
      QueueCommands.Peek.class,
      QueueCommands.Item.class,
      QueueCommands.Namespace.class,
      IncidentCommands.Pause.class,
      IncidentCommands.Resume.class,
      IncidentCommands.Purge.class,
      DlqCommands.Dlq.class,
      AuthCommands.Auth.class,
      AuthCommands.Audit.class,
      AclsCommand.class,
      DemoCommand.class})
      // then, added by commandLine: the commands of jars on the class path (ExtraCommands: the lab's bench), help
public final class OrdoMain implements Callable<Integer> {
  /** Exit code when a command failed at run time (bad directory, port in use, Kafka unreachable...). */
  public static final int EXIT_FAILURE = 1;
  /** Exit code for bad flags and arguments, and for input the server refused (400, 413). */
  public static final int EXIT_USAGE = 2;
  /** Exit code of ack, nack and extend when the lease is not the item's current one (HTTP 409). */
  public static final int EXIT_STALE_LEASE = 3;
  /** Exit code when the queue does not hold the item (HTTP 404). */
  public static final int EXIT_UNKNOWN_ITEM = 4;

  /** The log4j2 configuration of the distribution (the Kafka jars bring one of their own). */
  static final String LOG_CONFIG = "ordo-log4j2.properties";

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getErr().println("ordo: missing command (try 'ordo --help')");
    return EXIT_USAGE;
  }

  public static void main(String[] args) {
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", LOG_CONFIG);
    }
    // Log4j's own shutdown hook would stop logging before ours has stopped the server.
    System.setProperty("log4j2.shutdownHookEnabled", "false");
    int code = commandLine().execute(args);
    shutdownLogging();
    System.exit(code);
  }

  /** The full command line with Ordo's error handling; {@code execute} returns the exit code. */
  public static CommandLine commandLine() {
    return commandLine(CommandLine.defaultFactory());
  }

  /** As {@link #commandLine()}, creating commands with {@code factory} (tests pass their own ServerCommand). */
  public static CommandLine commandLine(CommandLine.IFactory factory) {
    CommandLine cl = new CommandLine(new OrdoMain(), factory);
    for (ExtraCommands extra : ServiceLoader.load(ExtraCommands.class, OrdoMain.class.getClassLoader())) {
      extra.commands().forEach(cl::addSubcommand);
    }
    if (!cl.getSubcommands().containsKey(LabMissing.NAME)) {
      cl.addSubcommand(LabMissing.NAME, new LabMissing());
    }
    cl.addSubcommand(CommandLine.HelpCommand.class);
    // (after the subcommands: a handler set here reaches the subcommands there are now)
    cl.setParameterExceptionHandler(OrdoMain::onBadArguments);
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> onFailure(e, commandLine));
    return cl;
  }

  /**
   * {@code ordo bench} where the lab is not on the class path (an installation, the image): says so and
   * where to find it. Hidden, so that {@code ordo --help} lists only the commands there are.
   */
  @Command(name = LabMissing.NAME, hidden = true, description = LabMissing.MESSAGE)
  static final class LabMissing implements Callable<Integer> {
    static final String NAME = "bench";
    static final String MESSAGE = "the lab (ordo bench and its fault modes) is not part of this installation;"
        + " run it from a checkout of the Ordo sources, where ./ordo adds it: ./ordo bench --help"
        + " (docs/benchmarks.md)";

    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> args;

    @Override
    public Integer call() {
      spec.commandLine().getErr().println("ordo bench: " + MESSAGE);
      return EXIT_USAGE;
    }
  }

  private static int onBadArguments(ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    String name = cl.getCommandSpec().qualifiedName();
    err.println(name + ": " + oneLine(e.getMessage()) + " (see '" + name + " --help')");
    err.flush();
    return EXIT_USAGE;
  }

  private static int onFailure(Exception e, CommandLine cl) {
    PrintWriter err = cl.getErr();
    String name = cl.getCommandSpec().qualifiedName();
    if (e instanceof StartupException) {
      err.println(name + ": " + oneLine(e.getMessage()));
    } else {
      org.slf4j.LoggerFactory.getLogger(OrdoMain.class).debug("Command failed", e);
      err.println(name + ": unexpected error: " + e.getClass().getSimpleName() + ": " + Messages.oneLine(e));
    }
    err.flush();
    return EXIT_FAILURE;
  }

  private static String oneLine(String message) {
    return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").trim();
  }

  /** Flushes and stops log4j (its shutdown hook is off, see {@link #main}). */
  static void shutdownLogging() {
    org.apache.logging.log4j.LogManager.shutdown();
  }
}
