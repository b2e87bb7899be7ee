package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class LoopSharesTest {
  private static final String THREADS = "stream-thread-metrics";

  @Test
  void averagesEachThreadsRatiosOverTheSamples() {
    LoopShares shares = new LoopShares();
    Map<MetricName, Metric> first = new HashMap<>();
    putLoop(first, "t1", 0.2, 0.5, 0.3);
    putLoop(first, "t2", 0.4, 0.3, 0.3);
    shares.sample(first);
    Map<MetricName, Metric> second = new HashMap<>();
    putLoop(second, "t1", 0.6, 0.1, 0.3);
    shares.sample(second);

    assertMean(0.4, 0.3, 0.3, shares.mean());
  }

  @Test
  void skipsOtherGroupsOtherMetricsUnmeasuredValuesAndIncompleteThreads() {
    LoopShares shares = new LoopShares();
    Map<MetricName, Metric> m = new HashMap<>();
    putLoop(m, "t1", 0.5, 0.25, 0.25);
    put(m, THREADS, "t1", "punctuate-ratio", 0.9);
    put(m, "consumer-metrics", "t1", "commit-ratio", 0.9);
    putLoop(m, "t2", Double.NaN, 0.9, 0.9); // a thread that has not looped yet
    put(m, THREADS, "t3", "commit-ratio", 0.9); // only one of the three
    shares.sample(m);

    assertMean(0.5, 0.25, 0.25, shares.mean());
  }

  @Test
  void nothingSampledIsNaN() {
    LoopShares.Mean mean = new LoopShares().mean();
    assertTrue(Double.isNaN(mean.process()) && Double.isNaN(mean.commit()) && Double.isNaN(mean.poll()));
  }

  private static void assertMean(double process, double commit, double poll, LoopShares.Mean mean) {
    assertEquals(process, mean.process(), 1e-9, "process");
    assertEquals(commit, mean.commit(), 1e-9, "commit");
    assertEquals(poll, mean.poll(), 1e-9, "poll");
  }

  /** A stream thread's three loop ratios. */
  private static void putLoop(Map<MetricName, Metric> metrics, String thread, double process, double commit,
      double poll) {
    put(metrics, THREADS, thread, "process-ratio", process);
    put(metrics, THREADS, thread, "commit-ratio", commit);
    put(metrics, THREADS, thread, "poll-ratio", poll);
  }

  private static void put(Map<MetricName, Metric> metrics, String group, String thread, String name, double value) {
    MetricName n = new MetricName(name, group, "", Map.of("thread-id", thread));
    metrics.put(n, new Metric() {
      @Override
      public MetricName metricName() {
        return n;
      }

      @Override
      public Object metricValue() {
        return value;
      }
    });
  }
}
