package dev.ordo.topology.internal;

/**
 * How often a queue task ticks (decisions D38). Kafka Streams takes every wall-clock punctuation of
 * a task as a reason to commit it, and a commit of a task includes the offsets of its input
 * partitions: a task ticking every 20 ms is committed every commit interval whether it did anything
 * or not. An idle instance of 32 partitions committed some 40 transactions a second, each writing 32
 * offsets and its markers, and a loaded one carried every idle task in every transaction.
 *
 * <p>So a task takes its <em>fine</em> tick ({@code ordo.punctuate.interval.ms}) only while a tick has
 * work that cannot wait for the <em>coarse</em> one: its index is rebuilt, demand waits for a dispatch
 * rate, items wait in OVERFLOW for admission, stats of a namespace with limits wait to go out, or a
 * timer (a due time, a lease, a time to live) may fall due before the next coarse tick. What a record
 * brings is handled when it is processed and needs no tick. The coarse tick runs at the same instants
 * on every task of the instance (anchored to the epoch), so the quiet tasks of a thread share one
 * commit. Pure.
 */
final class Ticks {
  /** The coarse tick is the stats interval, but at most this long. */
  static final long COARSE_MAX_MS = 1_000;

  private Ticks() {}

  /** The coarse interval: the stats interval, at most {@link #COARSE_MAX_MS}, at least the fine interval. */
  static long coarseMs(long fineMs, long statsMs) {
    return Math.max(fineMs, Math.min(statsMs, COARSE_MAX_MS));
  }

  /**
   * True when the task needs its fine tick from {@code now} on.
   *
   * @param nextTimerDue the earliest time a timer may be due ({@code Long.MIN_VALUE}: not known yet)
   */
  static boolean needsFine(boolean rebuilding, boolean throttling, boolean overflowing, boolean limitedStatsWaiting,
      long nextTimerDue, long now, long coarseMs) {
    return rebuilding || throttling || overflowing || limitedStatsWaiting || nextTimerDue <= now + coarseMs;
  }
}
