package dev.ordo.client.internal;

/**
 * How many items a {@link dev.ordo.client.LeaseConsumer} asks the queue to hold leased to it at once
 * (its window), between a floor and its {@code max.in.flight}: a delay-based control loop in the
 * manner of TCP Vegas and CoDel (decisions D41). Pure: the caller passes the clock in.
 *
 * <p><b>The signal.</b> Each acked item's delay is its wait on the consumer for a worker plus its
 * ack's round trip (sent to the queue, outcome back); the handler's own time is in neither. Both
 * grow when the window holds more than the pipeline needs to keep the workers busy: the surplus
 * either waits on the consumer for a worker, or waits as acks and demands in front of the queue's
 * stream thread, where a new item is taken in behind them (issue 14's Alice behind Bob).
 *
 * <p><b>The rule.</b> Every {@link #INTERVAL_NANOS} the smallest delay of the interval is compared
 * with the smallest of the last {@link #BASE_INTERVALS} intervals that had acks (30 s while acks
 * flow; the base: the pipeline with nothing queued). When even the interval's smallest delay exceeds the base by more than the target,
 * no item of the interval went through without queueing: a standing queue, and the window shrinks
 * by at least a fifth ({@link #DECREASE}), by as much as the delay exceeds base plus target when that
 * is more, but never by more than half ({@link #DEEPEST_DECREASE}) at once; then it holds until the
 * delays can show the change (one more interval and one more delay). Otherwise it grows by
 * {@link #INCREASE} of itself (at least one item) toward the max, where it starts (a start from a
 * small window doubling each interval, TCP's slow start, cost a fresh consumer facing a burst a
 * second of throughput in {@code ordo bench}: decisions D41). An interval with no ack changes
 * nothing. Shrinking never costs throughput while the delay is above the base: the items it
 * takes away would only have waited.
 */
public final class InFlightLimit {
  static final long INTERVAL_NANOS = 250_000_000L;
  /** Intervals with acks (30 s of them) the base remembers the shortest delay of. */
  static final int BASE_INTERVALS = 120;
  static final double DECREASE = 0.8;
  /** The most one step takes off: half the window, when the delay is far above the base and target. */
  static final double DEEPEST_DECREASE = 0.5;
  static final double INCREASE = 0.05;
  private static final long NONE = Long.MAX_VALUE;

  private final int max;
  private final int floor;
  private final long targetNanos;
  private final long[] mins = new long[BASE_INTERVALS]; // guarded by this
  private int nextMin; // guarded by this
  private double limit; // guarded by this
  private boolean started; // guarded by this
  private long intervalEnd; // guarded by this
  private long intervalMin = NONE; // guarded by this
  private long holdUntil; // guarded by this

  /**
   * @param max the most items in flight ({@code max.in.flight}); the window starts there
   * @param floor the fewest the window shrinks to (at most {@code max})
   * @param targetNanos how much more than the base an interval's smallest delay may be; 0 keeps the
   *     window at {@code max}
   */
  public InFlightLimit(int max, int floor, long targetNanos) {
    if (max < 1 || floor < 1 || targetNanos < 0) {
      throw new IllegalArgumentException("max and floor must be >= 1 and the target >= 0, got " + max + ", " + floor
          + ", " + targetNanos);
    }
    this.max = max;
    this.floor = Math.min(floor, max);
    this.targetNanos = targetNanos;
    this.limit = max;
    java.util.Arrays.fill(mins, NONE);
  }

  /** The window now: how many items the consumer may hold or ask for. */
  public synchronized int limit() {
    return (int) limit;
  }

  /** An acked item's delay (ns): its wait for a worker plus its ack's round trip. */
  public synchronized void sample(long delayNanos) {
    if (delayNanos >= 0 && delayNanos < intervalMin) {
      intervalMin = delayNanos;
    }
  }

  /**
   * Ends the interval when it is due and adjusts the window.
   *
   * @return whether the window shrank (the consumer then re-sends its demand at once)
   */
  public synchronized boolean advance(long nowNanos) {
    if (targetNanos == 0) {
      return false;
    }
    if (!started) {
      started = true;
      intervalEnd = nowNanos + INTERVAL_NANOS;
      holdUntil = nowNanos;
      return false;
    }
    if (nowNanos - intervalEnd < 0) {
      return false;
    }
    long seen = intervalMin;
    intervalMin = NONE;
    intervalEnd = nowNanos + INTERVAL_NANOS;
    if (seen == NONE) {
      return false;
    }
    mins[nextMin] = seen;
    nextMin = (nextMin + 1) % mins.length;
    long base = NONE;
    for (long m : mins) {
      base = Math.min(base, m);
    }
    if (seen - base > targetNanos) {
      if (nowNanos - holdUntil < 0 || limit <= floor) {
        return false;
      }
      double factor = Math.max(DEEPEST_DECREASE, Math.min(DECREASE, (double) (base + targetNanos) / seen));
      limit = Math.max(floor, limit * factor);
      holdUntil = nowNanos + INTERVAL_NANOS + seen;
      return true;
    }
    limit = Math.min(max, limit + Math.max(1, limit * INCREASE));
    return false;
  }
}
