package dev.ordo.bench.internal;

import dev.ordo.topology.QueueMetrics;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Locates, in the queue's count of dispatched items, the moment the queue took in each new item:
 * a thread of the bench samples the queue's {@code dispatched} and {@code enqueued} counters (the
 * queue runs in this process) until closed. Used while only Alice's items arrive, so the
 * {@code n}-th new arrival is her {@code n}-th item, and only her partition dispatches.
 *
 * <p>Why: an item's wait in the queue starts when its stream thread takes it in, not when the
 * producer sent it; the dispatches made while it travelled from the producer to the stream thread
 * are no question of fairness. The queue publishes no per-item arrival time, so this brackets it:
 * see {@link Bounds}. It also notes when it first saw each arrival ({@link System#nanoTime()}, at
 * most a sample interval and the watcher's scheduling late), which splits an item's wait into its
 * intake and its time in the queue.
 */
final class ArrivalWatch implements AutoCloseable {
  /** Between samples: fine enough to bracket arrivals closely, coarse enough to cost little CPU. */
  private static final long SAMPLE_NANOS = 100_000;

  private final QueueMetrics metrics;
  private final Bounds bounds;
  private final Thread thread;
  private volatile boolean stop;

  /** Starts watching; arrivals and dispatches are counted from now. */
  ArrivalWatch(QueueMetrics metrics) {
    this.metrics = metrics;
    long d = metrics.get(QueueMetrics.DISPATCHED);
    long e = metrics.get(QueueMetrics.ENQUEUED);
    this.bounds = new Bounds(d, e);
    this.thread = new Thread(this::watch, "fair-arrival-watch");
    thread.setDaemon(true);
    thread.start();
  }

  private void watch() {
    while (!stop) {
      sample();
      LockSupport.parkNanos(SAMPLE_NANOS);
    }
  }

  private void sample() {
    long before = metrics.get(QueueMetrics.DISPATCHED);
    long enqueued = metrics.get(QueueMetrics.ENQUEUED);
    long after = metrics.get(QueueMetrics.DISPATCHED);
    bounds.observe(before, enqueued, after, System.nanoTime());
  }

  /** Stops the thread, takes a last sample, and returns what it saw. */
  @Override
  public void close() {
    stop = true;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sample();
  }

  /** What was seen (complete after {@link #close}). */
  Bounds bounds() {
    return bounds;
  }

  /**
   * The brackets, pure: for the {@code n}-th arrival since the start (from 0), how many items had
   * been dispatched when the queue took it in, at least and at most, counted from the start.
   *
   * <p>A sample reads {@code dispatched} (d1), then {@code enqueued} (e), then {@code dispatched}
   * again (d2). An arrival first seen in a sample happened after the previous sample read
   * {@code enqueued}, so after its d1 was read: at least that d1 had been dispatched. It happened
   * before this sample read {@code enqueued}, so before its d2 was read: at most d2 had been (the
   * queue counts an arrival before the dispatches it leads to). Several arrivals between two samples
   * share the brackets, and the time of the sample that saw them. Thread-safe.
   */
  static final class Bounds {
    private final long dispatched0;
    private long lastEnqueued;
    private long lastBefore;
    private long[] atLeast = new long[64];
    private long[] atMost = new long[64];
    private long[] seenAt = new long[64];
    private int count;

    /** Counting from {@code dispatched0} dispatches and {@code enqueued0} arrivals, read before any arrival watched. */
    Bounds(long dispatched0, long enqueued0) {
      this.dispatched0 = dispatched0;
      this.lastEnqueued = enqueued0;
      this.lastBefore = dispatched0;
    }

    /** One sample: the counters in the order read, and {@link System#nanoTime()} after reading them. */
    synchronized void observe(long dispatchedBefore, long enqueued, long dispatchedAfter, long nowNanos) {
      for (long n = lastEnqueued; n < enqueued; n++) {
        if (count == atLeast.length) {
          atLeast = Arrays.copyOf(atLeast, count * 2);
          atMost = Arrays.copyOf(atMost, count * 2);
          seenAt = Arrays.copyOf(seenAt, count * 2);
        }
        atLeast[count] = lastBefore - dispatched0;
        atMost[count] = dispatchedAfter - dispatched0;
        seenAt[count] = nowNanos;
        count++;
      }
      lastEnqueued = Math.max(lastEnqueued, enqueued);
      lastBefore = dispatchedBefore;
    }

    /** Arrivals seen since the start. */
    synchronized int arrivals() {
      return count;
    }

    /** Dispatches before the {@code n}-th arrival, at least. */
    synchronized long atLeast(int n) {
      check(n);
      return atLeast[n];
    }

    /** Dispatches before the {@code n}-th arrival, at most. */
    synchronized long atMost(int n) {
      check(n);
      return atMost[n];
    }

    /** When ({@link System#nanoTime()}) the {@code n}-th arrival was first seen. */
    synchronized long seenAt(int n) {
      check(n);
      return seenAt[n];
    }

    /** Dispatches counted from the start to {@code dispatchedNow}, a reading of the counter. */
    long sinceStart(long dispatchedNow) {
      return dispatchedNow - dispatched0;
    }

    private void check(int n) {
      if (n < 0 || n >= count) {
        throw new IndexOutOfBoundsException("arrival " + n + " of " + count + " seen");
      }
    }
  }
}
