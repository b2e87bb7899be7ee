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

  @Command(name = "purge", header = "Deletes a topic's items, or those enqueued before a time, as a job.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Starts a purge job (POST .../topics/{t}/purge) and prints it: every partition deletes the "
          + "topic's items it holds (enqueued before --before, if given) at ordo.purge.rate.per.second, keeping its "
          + "progress with them, so the job goes on through restarts and failovers. Leased items are left alone "
          + "unless --include-leased. With --wait, prints the job again when it is done. Exit 4 for a topic without "
          + "items.")
  static final class Purge extends ApiCommand {
    @Parameters(index = "0", paramLabel = "NS", description = "The namespace.")
    String namespace;

    @Parameters(index = "1", paramLabel = "TOPIC", description = "The topic.")
    String topic;

    @Option(names = "--before", paramLabel = "TIME",
        description = "Only items enqueued before this: an ISO-8601 time (2026-11-29T10:00:00Z), epoch milliseconds, "
            + "or a duration ago (90m, 2h). Default: every item.")
    String before;

    @Option(names = "--include-leased", description = "Purge leased items too (their holders' acks then answer 404).")
    boolean includeLeased;

    @Option(names = "--wait", description = "Wait until the job is done and print it again.")
    boolean await;

    @Override
    void run(ApiClient api) {
      Map<String, Object> body = new java.util.LinkedHashMap<>();
      if (before != null) {
        body.put("enqueuedBefore", time(before));
      }
      if (includeLeased) {
        body.put("includeLeased", true);
      }
      String path = "/v1/namespaces/" + segment(namespace) + "/topics/" + segment(topic);
      com.fasterxml.jackson.databind.JsonNode job = api.post(path + "/purge", body, TIMEOUT);
      print(job);
      if (!await) {
        return;
      }
      String jobPath = path + "/purges/" + segment(job.get("job").asText());
      while (!"DONE".equals(job.path("status").asText())) {
        java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(500).toNanos()); // as ordo dlq --wait
        if (Thread.currentThread().isInterrupted()) {
          throw new ApiClient.Failure(OrdoMain.EXIT_FAILURE, "interrupted while waiting for the job");
        }
        job = api.get(jobPath, TIMEOUT);
      }
      print(job);
    }

    /** An ISO-8601 time or epoch milliseconds as given; a duration as the time that long ago. */
    static Object time(String text) {
      String t = text.trim();
      if (t.matches("\\d+")) {
        return Long.parseLong(t);
      }
      if (t.matches("\\d+(ms|s|m|h|d)")) {
        return java.time.Instant.now().minus(dev.ordo.api.Durations.parse(t)).toString();
      }
      return t; // the server checks it and names the field when it is not a time
    }
  }
}
