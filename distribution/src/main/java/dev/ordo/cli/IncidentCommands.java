package dev.ordo.cli;

import dev.ordo.cli.QueueCommands.ApiCommand;
import dev.ordo.cli.internal.ApiClient;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What an operator does in an incident (docs/operations.md, "In an incident"): pause and resume a
 * namespace or a topic. Thin clients of the HTTP API, printing its answer as one JSON line.
 */
final class IncidentCommands {
  private IncidentCommands() {}

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** {@code ordo pause|resume NS [--topic T]}. */
  abstract static class PauseCommand extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NS", description = "The namespace.")
    String namespace;

    @Option(names = "--topic", paramLabel = "TOPIC",
        description = "Only this topic of the namespace (default: the whole namespace).")
    String topic;

    abstract String action();

    @Override
    void run(ApiClient api) {
      String path = "/v1/namespaces/" + segment(namespace) + (topic == null ? "" : "/topics/" + segment(topic)) + "/"
          + action();
      print(api.post(path, Map.of(), TIMEOUT));
    }
  }

  @Command(name = "pause", header = "Pauses a namespace or one of its topics: nothing of it is leased.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "While paused, items are still enqueued and scheduled, and leases already out run their "
          + "course (acks, nacks, expiries), but no item is leased: dequeues and lease consumers wait, and are "
          + "served after 'ordo resume'. The pause is kept on <cluster>.namespaces, so it holds across restarts "
          + "and failovers. Prints {namespace, [topic], paused, pausedAt, pausedTopics}. A namespace or topic "
          + "without items (nor a pause, nor a policy) is refused, exit 4: a misspelt name pauses nothing.")
  static final class Pause extends PauseCommand {
    @Override
    String action() {
      return "pause";
    }
  }

  @Command(name = "resume", header = "Resumes a paused namespace or topic: its items are leased again.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Ends the pause that 'ordo pause' began; waiting dequeues and lease consumers are served "
          + "within about a second. Resuming a namespace ends its own pause only: topics paused on their own stay "
          + "paused (listed in pausedTopics). Prints {namespace, [topic], paused, pausedAt, pausedTopics}.")
  static final class Resume extends PauseCommand {
    @Override
    String action() {
      return "resume";
    }
  }
}
