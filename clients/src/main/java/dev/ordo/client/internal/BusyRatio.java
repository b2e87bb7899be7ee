package dev.ordo.client.internal;

/**
 * The busy fraction of a pool of slots over a sliding window (decisions D58): the time-integral of
 * {@code min(busy, capacity) / capacity} over the last {@code windowMs}, divided by the time that
 * integral covers. 1 means every slot was busy all the window (saturated: more work would wait), 0
 * means none was (spare capacity). A tracker younger than its window divides by its age, so a fresh
 * one reads what it saw, not a diluted figure.
 *
 * <p>The window slides in steps of a tenth of it: the integral is kept per bucket of
 * {@code windowMs / BUCKETS}; the ratio covers the last {@value #BUCKETS} whole buckets and the current
 * one's part so far, and the oldest bucket drops out as a new one starts. Pure: every call
 * takes {@code now} (milliseconds, never decreasing; an earlier {@code now} is taken as the last one).
 * Thread-safe.
 */
public final class BusyRatio {
  static final int BUCKETS = 10;

  private final long bucketMs;
  private final int capacity;
  private final long startedAt;
  /** Busy slot-milliseconds divided by capacity, per bucket, indexed by bucket number modulo BUCKETS + 1. */
  private final double[] busyMs = new double[BUCKETS + 1];
  private long currentBucket;
  private long lastAt;
  private int busy;

  /**
   * @param windowMs the window's length, at least {@value #BUCKETS} ms
   * @param capacity the slots (handlers a consumer runs at once); at least 1
   * @param now when tracking starts (nothing busy)
   */
  public BusyRatio(long windowMs, int capacity, long now) {
    if (windowMs < BUCKETS) {
      throw new IllegalArgumentException("the busy ratio's window must be at least " + BUCKETS + " ms, got " + windowMs);
    }
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.bucketMs = windowMs / BUCKETS;
    this.capacity = capacity;
    this.startedAt = now;
    this.lastAt = now;
    this.currentBucket = now / bucketMs;
  }

  /** The slots busy from {@code now} on (clamped to 0..capacity for the integral). */
  public synchronized void set(int busyNow, long now) {
    advance(now);
    busy = busyNow;
  }

  /** {@code delta} more slots busy from {@code now} on (a handler started: +1, ended: -1). */
  public synchronized void add(int delta, long now) {
    advance(now);
    busy += delta;
  }

  /** Slots busy now. */
  public synchronized int busy() {
    return busy;
  }

  /** The busy fraction over the window that ends at {@code now}, in [0, 1]. */
  public synchronized double ratio(long now) {
    advance(now);
    long windowStart = Math.max(startedAt, (currentBucket - BUCKETS) * bucketMs);
    long covered = lastAt - windowStart;
    if (covered <= 0) {
      return fraction(); // no time yet: what it is now
    }
    double sum = 0;
    for (double b : busyMs) {
      sum += b;
    }
    return Math.max(0, Math.min(1, sum / covered));
  }

  private double fraction() {
    return Math.max(0, Math.min(busy, capacity)) / (double) capacity;
  }

  /** Integrates the current level from the last change to {@code now}, bucket by bucket. */
  private void advance(long now) {
    if (now <= lastAt) {
      return;
    }
    double f = fraction();
    long t = lastAt;
    while (t < now) {
      long bucket = t / bucketMs;
      if (bucket != currentBucket) {
        roll(bucket);
      }
      long end = Math.min(now, (bucket + 1) * bucketMs);
      busyMs[(int) (bucket % (BUCKETS + 1))] += f * (end - t);
      t = end;
    }
    if (now / bucketMs != currentBucket) {
      roll(now / bucketMs);
    }
    lastAt = now;
  }

  /** Starts bucket {@code next}: the buckets between, and any that fall out of the window, are emptied. */
  private void roll(long next) {
    long clear = Math.min(next - currentBucket, BUCKETS + 1);
    for (long i = 1; i <= clear; i++) {
      busyMs[(int) ((currentBucket + i) % (BUCKETS + 1))] = 0;
    }
    currentBucket = next;
  }
}
