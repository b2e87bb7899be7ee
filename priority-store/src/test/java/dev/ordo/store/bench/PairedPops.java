package dev.ordo.store.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * The before/after comparison of {@link PopBenchmark}, paired: both stores (1M items never popped;
 * 1M items behind 1M popped ones) are open in one JVM and measured in alternating slices (ABBA
 * order), so load from other processes on shared cores falls on both alike. Reports the after/before
 * ratio of each round and their median, by wall clock and by the thread's CPU time. A complement to
 * the JMH run, not a replacement: no forks, the same JIT for both. Run by {@code bench.sh paired}.
 */
public final class PairedPops {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private PairedPops() {}

  public static void main(String[] args) {
    long items = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    long popped = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 12;
    long sliceNanos = 2_000_000_000L;
    int warmupRounds = 3;
    List<double[]> wall = new ArrayList<>();
    List<double[]> cpu = new ArrayList<>();
    try (BenchQueue before = BenchQueue.open(items, 0); BenchQueue after = BenchQueue.open(items, popped)) {
      for (int r = 0; r < warmupRounds + rounds; r++) {
        BenchQueue first = r % 2 == 0 ? before : after;
        BenchQueue second = first == before ? after : before;
        double[] a = slice(first, sliceNanos);
        double[] b = slice(second, sliceNanos);
        double[] beforeRates = first == before ? a : b;
        double[] afterRates = first == before ? b : a;
        System.out.printf("round %2d%s: before %,8.0f pops/s %,8.0f pops/CPU-s | after %,8.0f pops/s %,8.0f pops/CPU-s%n",
            r + 1, r < warmupRounds ? " (warm-up)" : "", beforeRates[0], beforeRates[1], afterRates[0], afterRates[1]);
        if (r >= warmupRounds) {
          wall.add(new double[] {beforeRates[0], afterRates[0]});
          cpu.add(new double[] {beforeRates[1], afterRates[1]});
        }
      }
    }
    report("wall clock", wall);
    report("thread CPU time", cpu);
  }

  /** Pops for one slice after a top-up; returns {pops per second, pops per CPU-second}. */
  private static double[] slice(BenchQueue queue, long nanos) {
    queue.topUp();
    long popped = 0;
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    long elapsed;
    do {
      popped += queue.popBatch(false);
      elapsed = System.nanoTime() - start;
    } while (elapsed < nanos);
    long cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuStart;
    return new double[] {popped / (elapsed / 1e9), popped / (cpuNanos / 1e9)};
  }

  private static void report(String clock, List<double[]> pairs) {
    double[] ratios = pairs.stream().mapToDouble(p -> p[1] / p[0]).sorted().toArray();
    double median = ratios.length % 2 == 1 ? ratios[ratios.length / 2]
        : (ratios[ratios.length / 2 - 1] + ratios[ratios.length / 2]) / 2;
    double meanBefore = pairs.stream().mapToDouble(p -> p[0]).average().orElse(Double.NaN);
    double meanAfter = pairs.stream().mapToDouble(p -> p[1]).average().orElse(Double.NaN);
    System.out.printf("%n%s: before %,.0f, after %,.0f pops per second (means of %d slices);"
        + " after/before per round: median %.2f, range %.2f–%.2f%n",
        clock, meanBefore, meanAfter, pairs.size(), median, ratios[0], ratios[ratios.length - 1]);
  }
}
