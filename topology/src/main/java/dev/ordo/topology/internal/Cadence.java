package dev.ordo.topology.internal;

/**
 * When a queue task does the work that is not a record's own: looks at its stats, sweeps idle
 * meters, publishes every changed topic's stats, cools items down, applies the index writes held on
 * the heap, lets its dispatch continuation run, and holds an index rebuild back. Pure: a function of
 * the times passed in and of when each thing last happened, which it remembers; the
 * {@code QueueProcessor} asks it and does the work. Which tick runs (fine or coarse) is {@link Ticks}.
 */
final class Cadence {
  /** How often the stats of topics of namespaces with admission limits go out (at most). */
  static final long LIMITED_STATS_MS = 100;
  /** How often items are cooled down (moved to the cold part of the state log). */
  static final long COOL_EVERY_MS = 1_000;
  /**
   * The longest the continuation waits for the task's records to run out: a thread whose polls never
   * come back empty would otherwise leave the pending demand to the records' own dispatches.
   */
  static final long CONTINUATION_MAX_WAIT_MS = 100;
  /**
   * At most how long a task that must rebuild its index holds the rebuild back until its first
   * record. Kafka Streams' stream thread polls only when an iteration of its processing loop
   * processed nothing (or after half of {@code max.poll.interval.ms}), and a task it was just given
   * needs about three polls (its positions, its first fetch, its partitions' lags) before it
   * processes anything. A rebuild step is tens of milliseconds of work at every punctuation, and
   * with one in every iteration the thread's other tasks process a record or two per iteration and
   * keep the loop from ending: the task then read its consumers' demands only after the rebuild,
   * and its first lease came 1-4 s after it (decisions D32). Held back until the task's first
   * record, the loop drains and polls, and the task takes its demands in while it rebuilds.
   */
  static final long REBUILD_HOLD_MS = 5_000;

  private static final long LONG_AGO = Long.MIN_VALUE / 4;

  /** The fine tick's interval ({@code ordo.punctuate.interval.ms}) and the stats interval ({@code ordo.stats.interval.ms}). */
  private final long fineMs;
  private final long statsMs;
  /** When a tick last looked at the stats. */
  private long statsTickAt = LONG_AGO;
  /** When the meters were last swept (0 at start: the first look sweeps). */
  private long sweptAt;
  /** When every changed topic's stats last went out (at start: when the task started, as a schedule would). */
  private long statsPublishedAt;
  /** When items were last cooled down. */
  private long cooledAt = LONG_AGO;
  /** When the index writes held on the heap were last applied. */
  private long indexFlushedAt = LONG_AGO;
  /** The task processed a record since the continuation last fired. */
  private boolean recordSinceContinuation;
  /** When the continuation last served a step (or was armed). */
  private long continuedAt;

  /** {@code startedAt}: when the task started (wall ms). */
  Cadence(long fineMs, long statsMs, long startedAt) {
    this.fineMs = fineMs;
    this.statsMs = statsMs;
    this.statsPublishedAt = startedAt;
  }

  /** True when a tick at {@code now} looks at the stats: every stats interval, or {@link #LIMITED_STATS_MS} if shorter. */
  boolean statsTick(long now) {
    if (now - statsTickAt >= Math.min(statsMs, LIMITED_STATS_MS)) {
      statsTickAt = now;
      return true;
    }
    return false;
  }

  /** True when idle topics' meters are to be swept at {@code now}: every stats interval. */
  boolean sweep(long now) {
    if (now - sweptAt >= statsMs) {
      sweptAt = now;
      return true;
    }
    return false;
  }

  /**
   * True when every changed topic's stats go out at {@code now}, not only those of namespaces with
   * limits: every stats interval; a tick that comes a little early (the coarse tick is the interval)
   * still counts.
   */
  boolean publishAll(long now) {
    if (now - statsPublishedAt >= statsMs - fineMs) {
      statsPublishedAt = now;
      return true;
    }
    return false;
  }

  /** True when items are to be cooled down at {@code now}: once every {@link #COOL_EVERY_MS}. */
  boolean coolDown(long now) {
    if (now - cooledAt < COOL_EVERY_MS) {
      return false;
    }
    cooledAt = now;
    return true;
  }

  /** The index writes held on the heap were applied at {@code now}. */
  void indexFlushed(long now) {
    indexFlushedAt = now;
  }

  /** True when a fine interval passed since the index writes were last applied. */
  boolean indexFlushDue(long now) {
    return now - indexFlushedAt >= fineMs;
  }

  /** The task processed a record. */
  void recordProcessed() {
    recordSinceContinuation = true;
  }

  /** The continuation was armed at {@code now}. */
  void continuationArmed(long now) {
    continuedAt = now;
  }

  /**
   * True when the continuation firing at {@code now} serves a step: once the task processed no record
   * since it last fired, or at the latest {@link #CONTINUATION_MAX_WAIT_MS} after its last step.
   */
  boolean continuationRuns(long now) {
    if (recordSinceContinuation && now - continuedAt < CONTINUATION_MAX_WAIT_MS) {
      recordSinceContinuation = false;
      return false;
    }
    recordSinceContinuation = false;
    continuedAt = now;
    return true;
  }

  /** True while a task's index rebuild waits for its first record ({@link #REBUILD_HOLD_MS}). */
  static boolean rebuildHeld(boolean recordSeen, long initializedAt, long now) {
    return !recordSeen && now - initializedAt < REBUILD_HOLD_MS;
  }
}
