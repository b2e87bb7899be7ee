package dev.ordo.client.stream.internal;

import dev.ordo.client.stream.ClogState;

/**
 * Decides when a stream consumer stops copying failures into the delay tiers and clogs the stream
 * instead (Meta's Async tier: "when 100% of jobs are failing, we will clog the stream completely
 * instead of copying it into Delay service"). Pure: time is an argument.
 *
 * <p>States ({@link ClogState}):
 * <ol>
 *   <li>FLOWING: every handler outcome is counted in a sliding time window ({@code windowMs}, in ten
 *       buckets). When it holds at least {@code minRecords} outcomes and at least {@code failureRatio}
 *       of them are failures, the guard clogs.</li>
 *   <li>CLOGGED: nothing is counted. After the probe backoff ({@code probeBackoffInitialMs}, or double
 *       the previous one, up to {@code probeBackoffMaxMs}, if the stream clogs again within a window of
 *       flowing) {@link #probeDue} moves to PROBING.</li>
 *   <li>PROBING: one record runs. {@link #probeSucceeded}: FLOWING, with an empty window.
 *       {@link #probeFailed}: CLOGGED again for double the backoff, up to the maximum.</li>
 * </ol>
 */
public final class ClogGuard {
  private static final int BUCKETS = 10;

  /**
   * @param enabled false: never clogs
   * @param windowMs how far back outcomes count
   * @param minRecords the fewest outcomes in the window that can clog (a few failures of a quiet stream are not an outage)
   * @param failureRatio the share of failures in the window that clogs, in (0, 1]
   */
  public record Settings(boolean enabled, long windowMs, int minRecords, double failureRatio,
      long probeBackoffInitialMs, long probeBackoffMaxMs) {
    public Settings {
      if (windowMs < 1 || minRecords < 1 || !(failureRatio > 0 && failureRatio <= 1)) {
        throw new IllegalArgumentException("clog guard needs windowMs >= 1, minRecords >= 1 and a failure ratio"
            + " in (0, 1], got " + windowMs + ", " + minRecords + ", " + failureRatio);
      }
      if (probeBackoffInitialMs < 0 || probeBackoffMaxMs < probeBackoffInitialMs) {
        throw new IllegalArgumentException("clog guard needs 0 <= initial probe backoff <= max, got "
            + probeBackoffInitialMs + " and " + probeBackoffMaxMs);
      }
    }
  }

  private final Settings settings;
  private final long bucketMs;
  private final long[] bucketIndex = new long[BUCKETS];
  private final int[] total = new int[BUCKETS];
  private final int[] failed = new int[BUCKETS];
  private long latestIndex = Long.MIN_VALUE;

  private ClogState state = ClogState.FLOWING;
  private long backoffMs;
  private long nextProbeAt;
  private long flowingSince = Long.MIN_VALUE;
  private int clogs;

  public ClogGuard(Settings settings) {
    this.settings = settings;
    this.bucketMs = Math.max(1, settings.windowMs() / BUCKETS);
    java.util.Arrays.fill(bucketIndex, Long.MIN_VALUE);
  }

  public ClogState state() {
    return state;
  }

  /**
   * Counts one handler outcome while FLOWING (ignored otherwise).
   *
   * @return true if this outcome clogged the stream
   */
  public boolean record(boolean failure, long now) {
    if (!settings.enabled() || state != ClogState.FLOWING) {
      return false;
    }
    int slot = slot(now);
    total[slot]++;
    if (failure) {
      failed[slot]++;
    }
    if (!failure) {
      return false;
    }
    int n = count(total);
    if (n >= settings.minRecords() && count(failed) >= settings.failureRatio() * n) {
      clog(now);
      return true;
    }
    return false;
  }

  /** CLOGGED and the backoff passed: moves to PROBING and answers true (once per backoff). */
  public boolean probeDue(long now) {
    if (state == ClogState.CLOGGED && now >= nextProbeAt) {
      state = ClogState.PROBING;
      return true;
    }
    return false;
  }

  /** The probe succeeded: FLOWING, counting afresh. */
  public void probeSucceeded(long now) {
    if (state == ClogState.PROBING) {
      state = ClogState.FLOWING;
      flowingSince = now;
      java.util.Arrays.fill(bucketIndex, Long.MIN_VALUE);
      java.util.Arrays.fill(total, 0);
      java.util.Arrays.fill(failed, 0);
    }
  }

  /** The probe failed: CLOGGED for double the backoff, up to the maximum. */
  public void probeFailed(long now) {
    if (state == ClogState.PROBING) {
      backoffMs = longer(backoffMs);
      nextProbeAt = now + backoffMs;
      state = ClogState.CLOGGED;
    }
  }

  /** When CLOGGED ends and a probe may run. */
  public long nextProbeAt() {
    return nextProbeAt;
  }

  /** The current probe backoff (0 before the first clog). */
  public long backoffMs() {
    return backoffMs;
  }

  /** How many times the stream clogged. */
  public int clogs() {
    return clogs;
  }

  /** Outcomes in the window ending at {@code now}, and the failures among them. */
  public int[] window(long now) {
    slot(now);
    return new int[] {count(total), count(failed)};
  }

  private void clog(long now) {
    boolean relapse = clogs > 0 && now - flowingSince < settings.windowMs();
    backoffMs = relapse ? longer(backoffMs) : settings.probeBackoffInitialMs();
    nextProbeAt = now + backoffMs;
    state = ClogState.CLOGGED;
    clogs++;
  }

  private long longer(long backoff) {
    long max = settings.probeBackoffMaxMs();
    return backoff >= max / 2 ? max : Math.max(1, backoff * 2);
  }

  /** The bucket of {@code now}, emptying the buckets that fell out of the window. Time never runs back here. */
  private int slot(long now) {
    long index = Math.max(Math.floorDiv(now, bucketMs), latestIndex);
    latestIndex = index;
    int slot = (int) Math.floorMod(index, (long) BUCKETS);
    if (bucketIndex[slot] != index) {
      bucketIndex[slot] = index;
      total[slot] = 0;
      failed[slot] = 0;
    }
    for (int i = 0; i < BUCKETS; i++) {
      if (bucketIndex[i] != Long.MIN_VALUE && bucketIndex[i] <= index - BUCKETS) {
        bucketIndex[i] = Long.MIN_VALUE;
        total[i] = 0;
        failed[i] = 0;
      }
    }
    return slot;
  }

  private static int count(int[] counts) {
    int n = 0;
    for (int c : counts) {
      n += c;
    }
    return n;
  }
}
