package dev.ordo.delay;

import java.util.Arrays;
import java.util.List;

/** The lateness distribution of arrivals (arrival - due time), in ms. */
record Lateness(long[] sorted) {
  static Lateness of(List<Long> latenessMs) {
    long[] a = latenessMs.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(a);
    return new Lateness(a);
  }

  long percentile(double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  long min() {
    return sorted.length == 0 ? 0 : sorted[0];
  }

  long max() {
    return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
  }

  @Override
  public String toString() {
    return String.format("n=%d min=%d ms p50=%d ms p90=%d ms p99=%d ms max=%d ms", sorted.length, min(),
        percentile(50), percentile(90), percentile(99), max());
  }
}
