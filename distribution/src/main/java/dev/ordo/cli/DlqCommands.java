package dev.ordo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.cli.QueueCommands.ApiCommand;
import dev.ordo.cli.internal.ApiClient;
import dev.ordo.cli.internal.Converters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ordo dlq list|show|redrive|purge|job|cancel}: the dead letters over a server's HTTP API
 * ({@code /v1/dlq}, docs/http-api.md "Dead letters"; the workflow in docs/operations.md).
 */
final class DlqCommands {
  private DlqCommands() {}

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  /** How often {@code --wait} reads a job's progress. */
  private static final Duration PROGRESS_EVERY = Duration.ofMillis(500);

  @Command(name = "dlq", header = "Lists, shows, redrives and purges dead letters; follows and cancels the jobs.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Dead letters are the items (and records) that could not be processed, on <cluster>.dlq. "
          + "List and show them, send them back to the queue once the cause is fixed (redrive), or mark them so "
          + "they never come back (purge). See docs/operations.md.",
      subcommands = {ListCommand.class, Show.class, Redrive.class, Purge.class, Job.class, Cancel.class})
  static final class Dlq extends CommandGroup {}

  /** The filter flags, shared by list, redrive and purge. */
  static final class FilterFlags {
    @Option(names = "--namespace", paramLabel = "NS", description = "Dead letters of this namespace.")
    String namespace;

    @Option(names = "--topic", paramLabel = "T", description = "Of this topic (a dead record: its source topic).")
    String topic;

    @Option(names = "--reason", paramLabel = "R", split = ",",
        description = "Of these reasons: MAX_ATTEMPTS, REJECTED, TTL_EXPIRED, MALFORMED, INVALID.")
    List<String> reasons;

    @Option(names = "--from", paramLabel = "TIME", description = "Dead at or after this ISO-8601 time.")
    String from;

    @Option(names = "--to", paramLabel = "TIME", description = "Dead before this ISO-8601 time.")
    String to;

    Map<String, Object> json() {
      Map<String, Object> f = new LinkedHashMap<>();
      putIf(f, "namespace", namespace);
      putIf(f, "topic", topic);
      if (reasons != null && !reasons.isEmpty()) {
        f.put("reason", reasons);
      }
      putIf(f, "from", from);
      putIf(f, "to", to);
      return f;
    }

    String query() {
      StringBuilder q = new StringBuilder();
      json().forEach((k, v) -> q.append('&').append(k).append('=')
          .append(ApiCommand.segment(v instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList())
              : String.valueOf(v))));
      return q.toString();
    }
  }

  @Command(name = "list", header = "Lists dead letters, one JSON object per line.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Lists the dead letters still dead (--status to see redriven or purged ones), in pages. Without "
          + "--all-pages it prints one page and, when there is more, a last line {\"nextCursor\": ...} to pass to "
          + "--cursor.")
  static final class ListCommand extends ApiCommand {
    @ArgGroup(exclusive = false)
    FilterFlags filter = new FilterFlags();

    @Option(names = "--status", paramLabel = "S", defaultValue = "dead",
        description = "dead, redriven, purged or all. Default: ${DEFAULT-VALUE}.")
    String status;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100", converter = Converters.Positive.class,
        description = "Dead letters per page, at most 1000. Default: ${DEFAULT-VALUE}.")
    Integer limit;

    @Option(names = "--cursor", paramLabel = "C", description = "Where the last page ended.")
    String cursor;

    @Option(names = "--all-pages", description = "Follow the cursor to the end.")
    boolean allPages;

    @Override
    void run(ApiClient api) {
      String next = cursor;
      do {
        JsonNode page = api.get("/v1/dlq?status=" + segment(status) + "&limit=" + limit + filter.query()
            + (next == null ? "" : "&cursor=" + segment(next)), TIMEOUT);
        page.get("deadLetters").forEach(this::print);
        next = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
        if (next != null && !allPages) {
          print(ApiClient.json(Map.of("nextCursor", next)));
          return;
        }
      } while (next != null);
    }
  }

  @Command(name = "show", header = "Shows one dead letter with its history.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Prints the dead letter: payload, metadata, attempts, history, last error, source, and what became "
          + "of it. Exit 4 when there is no such dead letter.")
  static final class Show extends ApiCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "The dead letter's ID (<partition>-<offset> of <cluster>.dlq).")
    String id;

    @Override
    void run(ApiClient api) {
      print(api.get("/v1/dlq/" + segment(id), TIMEOUT));
    }
  }

  /** Which dead letters a job handles: IDs, filter flags or --all. */
  abstract static class JobCommand extends ApiCommand {
    @Parameters(paramLabel = "ID", arity = "0..*", description = "Dead letters by ID.")
    List<String> ids = new ArrayList<>();

    @ArgGroup(exclusive = false)
    FilterFlags filter = new FilterFlags();

    @Option(names = "--all", description = "Every dead letter on the topic now.")
    boolean all;

    @Option(names = "--wait", description = "Print the job's progress until it is done.")
    boolean await;

    Map<String, Object> selection() {
      Map<String, Object> body = new LinkedHashMap<>();
      if (!ids.isEmpty()) {
        body.put("ids", ids);
      }
      if (!filter.json().isEmpty()) {
        body.put("filter", filter.json());
      }
      if (all) {
        body.put("all", true);
      }
      return body;
    }

    void follow(ApiClient api, JsonNode job, String path) {
      print(job);
      if (!await) {
        return;
      }
      String status = job.get("status").asText();
      while (!finished(status)) {
        LockSupport.parkNanos(PROGRESS_EVERY.toNanos());
        if (Thread.currentThread().isInterrupted()) {
          throw new ApiClient.Failure(OrdoMain.EXIT_FAILURE, "interrupted");
        }
        job = api.get(path + job.get("job").asText(), TIMEOUT);
        status = job.get("status").asText();
        print(job);
      }
      if (status.equals("FAILED")) {
        throw new ApiClient.Failure(OrdoMain.EXIT_FAILURE, "job " + job.get("job").asText() + " failed: "
            + job.path("error").asText());
      }
      if (status.equals("CANCELLED")) {
        throw new ApiClient.Failure(OrdoMain.EXIT_FAILURE, "job " + job.get("job").asText() + " was cancelled");
      }
    }
  }

  /** DONE, FAILED or CANCELLED: the job handles no more dead letters. */
  static boolean finished(String status) {
    return status.equals("DONE") || status.equals("FAILED") || status.equals("CANCELLED");
  }

  /** Where a job is: /v1/dlq/purges/ for p-..., else /v1/dlq/redrives/. */
  static String jobPath(String job) {
    return (job.startsWith("p-") ? "/v1/dlq/purges/" : "/v1/dlq/redrives/") + ApiCommand.segment(job);
  }

  @Command(name = "redrive", header = "Sends dead letters back to the queue, as a job.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Starts a redrive of the dead letters named by ID, by the filter flags, or --all, and prints the "
          + "job. Each goes back once, as a new item (new ID, attempts from 1) with its payload, metadata and priority, "
          + "or the overrides given. A dead letter redriven or purged before is skipped.")
  static final class Redrive extends JobCommand {
    @Option(names = "--to-namespace", paramLabel = "NS", description = "Send the items to this namespace instead.")
    String toNamespace;

    @Option(names = "--to-topic", paramLabel = "T", description = "Send the items to this topic instead.")
    String toTopic;

    @Option(names = "--priority", paramLabel = "P", description = "Give the items this priority instead.")
    Integer priority;

    @Option(names = "--rate", paramLabel = "PER_SECOND", description = "At most this many a second. Default: no limit.")
    Double rate;

    @Option(names = "--delay", paramLabel = "DUR", converter = Converters.DurationValue.class,
        description = "Each item is delivered no sooner than this after it is sent back.")
    Duration delay;

    @Override
    void run(ApiClient api) {
      Map<String, Object> body = selection();
      putIf(body, "namespace", toNamespace);
      putIf(body, "topic", toTopic);
      putIf(body, "priority", priority);
      putIf(body, "ratePerSecond", rate);
      putIf(body, "delayMs", delay == null ? null : delay.toMillis());
      follow(api, api.post("/v1/dlq/redrive", body, TIMEOUT), "/v1/dlq/redrives/");
    }
  }

  @Command(name = "purge", header = "Marks dead letters so they never come back, as a job.",
      mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Starts a purge of the dead letters named by ID, by the filter flags, or --all, and prints the job. "
          + "A purged dead letter is not listed as dead any more and no redrive sends it back; its record stays on "
          + "<cluster>.dlq until the topic's retention removes it.")
  static final class Purge extends JobCommand {
    @Override
    void run(ApiClient api) {
      follow(api, api.post("/v1/dlq/purge", selection(), TIMEOUT), "/v1/dlq/purges/");
    }
  }

  @Command(name = "job", header = "Prints a redrive's or purge's progress.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Prints the job as GET /v1/dlq/redrives/{job} (or purges) answers. Exit 4 for an unknown job.")
  static final class Job extends ApiCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The job's ID (r-... for a redrive, p-... for a purge).")
    String job;

    @Override
    void run(ApiClient api) {
      print(api.get(jobPath(job), TIMEOUT));
    }
  }

  @Command(name = "cancel", header = "Cancels a redrive or purge job.",
      mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
      versionProvider = dev.ordo.cli.internal.VersionProvider.class,
      description = "Stops a PENDING or RUNNING job before its next batch and prints it (CANCELLING until the "
          + "server's job runner stopped it, then CANCELLED). Dead letters it handled stay handled (redriven ones stay "
          + "in the queue); the rest stay dead. With --wait, prints its progress until it stopped. Exit 4 for an "
          + "unknown job, 3 for one already DONE, FAILED or CANCELLED.")
  static final class Cancel extends ApiCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The job's ID (r-... for a redrive, p-... for a purge).")
    String job;

    @Option(names = "--wait", description = "Print the job's progress until it stopped.")
    boolean await;

    @Override
    void run(ApiClient api) {
      JsonNode j = api.post(jobPath(job) + "/cancel", Map.of(), TIMEOUT);
      print(j);
      while (await && !finished(j.get("status").asText())) {
        LockSupport.parkNanos(PROGRESS_EVERY.toNanos());
        if (Thread.currentThread().isInterrupted()) {
          throw new ApiClient.Failure(OrdoMain.EXIT_FAILURE, "interrupted");
        }
        j = api.get(jobPath(job), TIMEOUT);
        print(j);
      }
    }
  }

  static void putIf(Map<String, Object> m, String key, Object value) {
    if (value != null) {
      m.put(key, value);
    }
  }
}
