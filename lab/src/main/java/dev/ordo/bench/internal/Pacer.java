package dev.ordo.bench.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * Paces a loop at a rate: {@link #awaitNext} returns at evenly spaced times counted from the start
 * (a late call is not made up for by waiting less later, it is caught up by not waiting), and
 * {@link #restart} counts them from now again, for a producer that stopped for a while and must
 * not burst to catch up.
 */
final class Pacer {
  private final double intervalNanos;
  private long start;
  private long n;

  Pacer(double perSecond) {
    if (!(perSecond > 0)) {
      throw new IllegalArgumentException("rate must be > 0, got " + perSecond);
    }
    this.intervalNanos = 1e9 / perSecond;
    restart();
  }

  /** Counts the slots from now: the next {@link #awaitNext} returns at once. */
  void restart() {
    start = System.nanoTime();
    n = 0;
  }

  /**
   * Waits for the next slot; false at once, without taking it, when it falls at or after
   * {@code endNanos} ({@link System#nanoTime()} clock).
   */
  boolean awaitNext(long endNanos) {
    long due = start + (long) (n * intervalNanos);
    if (due - endNanos >= 0) {
      return false;
    }
    n++;
    long now;
    while ((now = System.nanoTime()) - due < 0) {
      LockSupport.parkNanos(due - now);
    }
    return true;
  }
}
