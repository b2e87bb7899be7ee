package dev.ordo.bench.internal;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Where a queue's stream threads spend their loop, sampled: Kafka Streams' thread metrics
 * {@code process-ratio}, {@code commit-ratio} and {@code poll-ratio} (each the share of the thread's
 * last loop spent so), read at each {@link #sample} and averaged over the samples and threads.
 *
 * <p>Why: behind a backlog, an item's intake waits for the thread's next poll, so what fills the
 * thread's loop (a commit, a demand processed in one piece) is what Alice's tail is made of
 * (benchmarks.md at 328b420, "Where Alice's intake waits").
 */
public final class LoopShares {
  /** Mean shares of the loop, 0 to 1, or NaN when nothing was sampled. */
  public record Mean(double process, double commit, double poll) {}

  private static final String GROUP = "stream-thread-metrics";

  private double process;
  private double commit;
  private double poll;
  private int samples;

  /** Adds the current ratios of every stream thread among these metrics (a thread without all three is skipped). */
  void sample(Map<MetricName, ? extends Metric> metrics) {
    Map<String, double[]> byThread = new HashMap<>();
    metrics.forEach((name, metric) -> {
      int index = switch (name.name()) {
        case "process-ratio" -> 0;
        case "commit-ratio" -> 1;
        case "poll-ratio" -> 2;
        default -> -1;
      };
      if (index < 0 || !GROUP.equals(name.group()) || !(metric.metricValue() instanceof Double d) || d.isNaN()) {
        return;
      }
      double[] r = byThread.computeIfAbsent(name.tags().getOrDefault("thread-id", ""),
          t -> new double[] {Double.NaN, Double.NaN, Double.NaN});
      r[index] = d;
    });
    for (double[] r : byThread.values()) {
      if (Double.isNaN(r[0]) || Double.isNaN(r[1]) || Double.isNaN(r[2])) {
        continue;
      }
      process += r[0];
      commit += r[1];
      poll += r[2];
      samples++;
    }
  }

  Mean mean() {
    return samples == 0 ? new Mean(Double.NaN, Double.NaN, Double.NaN)
        : new Mean(process / samples, commit / samples, poll / samples);
  }
}
