package dev.ordo.bench.internal;

import java.util.Arrays;
import java.util.List;

/** Medians and percentiles, pure. */
public final class Stats {
  private Stats() {}

  /** The median of {@code values} (the mean of the middle two for an even count); NaN when empty. */
  public static double median(List<Double> values) {
    double[] v = values.stream().filter(d -> d != null && !d.isNaN()).mapToDouble(Double::doubleValue).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    int mid = v.length / 2;
    return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }

  /**
   * The {@code p}-th percentile (0 < p <= 100) of {@code sorted} by the nearest-rank method: the
   * smallest value with at least p% of the values at or below it. NaN when empty.
   */
  public static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
  }

  /** p50, p99 and max of {@code values} (sorted in place), converted by dividing by {@code unit}. */
  public static Latency latency(long[] values, int count, double unit) {
    long[] v = Arrays.copyOf(values, count);
    Arrays.sort(v);
    if (v.length == 0) {
      return new Latency(Double.NaN, Double.NaN, Double.NaN, 0);
    }
    return new Latency(percentile(v, 50) / unit, percentile(v, 99) / unit, v[v.length - 1] / unit, v.length);
  }

  /** A latency distribution's summary, in milliseconds; {@code count} values. */
  public record Latency(double p50, double p99, double max, int count) {
    /** Not measured. */
    public static final Latency NONE = new Latency(Double.NaN, Double.NaN, Double.NaN, 0);
  }
}
