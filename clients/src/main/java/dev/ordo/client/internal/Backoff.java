package dev.ordo.client.internal;

/**
 * Exponential backoff for failed attempts: {@code initial * 2^(attempt-1)}, capped at {@code max},
 * minus up to {@code jitter} of itself so that items failing together do not all return together.
 * Pure: the random draw is an argument.
 */
public record Backoff(long initialMs, long maxMs, double jitter) {
  public Backoff {
    if (initialMs < 0 || maxMs < initialMs) {
      throw new IllegalArgumentException("backoff needs 0 <= initial <= max, got " + initialMs + " and " + maxMs);
    }
    if (jitter < 0 || jitter > 1) {
      throw new IllegalArgumentException("backoff jitter must be in [0, 1], got " + jitter);
    }
  }

  /**
   * @param attempt the attempt that failed, 1 for the first delivery
   * @param random a draw in [0, 1)
   */
  public long delayMs(int attempt, double random) {
    int doublings = Math.max(0, Math.min(attempt - 1, 62));
    long base = initialMs;
    for (int i = 0; i < doublings && base < maxMs; i++) {
      base = base > maxMs / 2 ? maxMs : base * 2;
    }
    base = Math.min(base, maxMs);
    return base - (long) (base * jitter * random);
  }
}
