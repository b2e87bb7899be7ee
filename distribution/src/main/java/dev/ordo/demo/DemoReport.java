package dev.ordo.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a demo run did, and its summary table. Pure: built from the per-item results the demo
 * recorded, so it is tested without Kafka.
 *
 * @param partitions partitions of the cluster the demo ran on
 * @param elapsed from the first enqueue to the last item finished
 * @param deadLetters the dead letters read back from the dead-letter topic
 */
public record DemoReport(DemoSettings settings, int partitions, List<ItemResult> results, Duration elapsed,
    List<DeadLetterInfo> deadLetters) {

  public DemoReport {
    results = List.copyOf(results);
    deadLetters = List.copyOf(deadLetters);
  }

  public enum Outcome {
    FIRST_ATTEMPT("done on the first attempt"),
    AFTER_RETRIES("done after retries"),
    DEAD_LETTERED("dead-lettered (poison)"),
    UNFINISHED("unfinished");

    final String label;

    Outcome(String label) {
      this.label = label;
    }
  }

  /**
   * One item's end.
   *
   * @param attempts handler runs seen for it
   * @param latencyMs from when it was ready (enqueued, or due when delayed) to its handler's success; -1 when not done
   */
  public record ItemResult(int index, String id, String topic, int priority, boolean delayed, Outcome outcome,
      int attempts, long latencyMs) {}

  /** A dead letter of the run, as read from the cluster's dead-letter topic. */
  public record DeadLetterInfo(String itemId, String topic, String reason, int attempts, String lastError) {}

  public long count(Outcome o) {
    return results.stream().filter(r -> r.outcome() == o).count();
  }

  public long attempts(Outcome o) {
    return results.stream().filter(r -> r.outcome() == o).mapToLong(ItemResult::attempts).sum();
  }

  public long totalAttempts() {
    return results.stream().mapToLong(ItemResult::attempts).sum();
  }

  /** True when every item was done or dead-lettered, and every dead-lettered one was found in the dead-letter topic. */
  public boolean complete() {
    return count(Outcome.UNFINISHED) == 0 && deadLetters.size() >= count(Outcome.DEAD_LETTERED);
  }

  /** The latency percentile {@code p} (0-100, nearest rank) of the items done, in ms; -1 when none. */
  public long latencyPercentile(double p) {
    return percentile(p, results.stream().filter(r -> r.latencyMs() >= 0).mapToLong(ItemResult::latencyMs));
  }

  /** As {@link #latencyPercentile(double)}, over the items of one priority. */
  public long latencyPercentile(double p, int priority) {
    return percentile(p, results.stream().filter(r -> r.latencyMs() >= 0 && r.priority() == priority)
        .mapToLong(ItemResult::latencyMs));
  }

  private static long percentile(double p, java.util.stream.LongStream latencies) {
    long[] sorted = latencies.sorted().toArray();
    if (sorted.length == 0) {
      return -1;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** Items finished (done or dead-lettered) per second of {@link #elapsed()}. */
  public double throughput() {
    long finished = results.size() - count(Outcome.UNFINISHED);
    double seconds = Math.max(1, elapsed.toMillis()) / 1000.0;
    return finished / seconds;
  }

  /** The summary table, line by line. */
  public List<String> table() {
    List<String> lines = new ArrayList<>();
    long delayed = results.stream().filter(ItemResult::delayed).count();
    lines.add(String.format(Locale.ROOT, "Ordo demo: %d items on %d topics, priorities 0-%d, %d delayed, %d partitions",
        results.size(), settings.topics().size(), settings.maxPriority(), delayed, partitions));
    lines.add("");
    lines.add(String.format(Locale.ROOT, "  %-32s %7s %9s", "outcome", "items", "attempts"));
    for (Outcome o : Outcome.values()) {
      if (o == Outcome.UNFINISHED && count(o) == 0) {
        continue;
      }
      lines.add(String.format(Locale.ROOT, "  %-32s %7d %9d", o.label, count(o), attempts(o)));
    }
    lines.add(String.format(Locale.ROOT, "  %-32s %7d %9d", "total", results.size(), totalAttempts()));
    lines.add("");
    lines.add(String.format(Locale.ROOT, "  %-24s p50 %s   p90 %s   p99 %s   max %s", "latency, ready -> done",
        millis(latencyPercentile(50)), millis(latencyPercentile(90)), millis(latencyPercentile(99)),
        millis(latencyPercentile(100))));
    StringBuilder byPriority = new StringBuilder();
    for (int prio = 0; prio <= settings.maxPriority(); prio++) {
      long p50 = latencyPercentile(50, prio);
      if (p50 >= 0) {
        byPriority.append(byPriority.length() == 0 ? "" : "  ").append(prio).append(": ").append(millis(p50));
      }
    }
    lines.add(String.format(Locale.ROOT, "  %-24s %s", "p50 by priority", byPriority));
    lines.add(String.format(Locale.ROOT, "  %-24s %.0f items/s (%d items in %s)", "throughput", throughput(),
        results.size() - count(Outcome.UNFINISHED), millis(elapsed.toMillis())));
    for (DeadLetterInfo d : deadLetters) {
      lines.add(String.format(Locale.ROOT, "  %-24s item %s (%s), %s after %d attempts: %s", "dead letter",
          d.itemId(), d.topic(), d.reason(), d.attempts(), d.lastError() == null ? "-" : d.lastError()));
    }
    return lines;
  }

  /** {@code 840 ms}, {@code 1.4 s}, {@code -} for none. */
  static String millis(long ms) {
    if (ms < 0) {
      return "-";
    }
    if (ms < 1000) {
      return ms + " ms";
    }
    return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }
}
