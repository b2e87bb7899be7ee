package dev.ordo.client.dlq.internal;

/**
 * The rate limit of a redrive: a token bucket of one token per dead letter, refilled at
 * {@code ratePerSecond} and holding at most a fifth of a second's worth (at least one), so a job
 * sends in small batches spread over time rather than a second's worth at once. Time is passed in
 * (milliseconds), never read here.
 */
public final class RedrivePacer {
  private final double perMs;
  private final double capacity;
  private double tokens;
  private long lastMs;

  /** @param ratePerSecond null or infinite: no limit */
  public RedrivePacer(Double ratePerSecond, long nowMs) {
    this.perMs = ratePerSecond == null ? Double.POSITIVE_INFINITY : ratePerSecond / 1000.0;
    this.capacity = ratePerSecond == null ? Double.POSITIVE_INFINITY : Math.max(1.0, ratePerSecond / 5.0);
    // Starts with one token: the first dead letter goes at once, the rest at the rate.
    this.tokens = ratePerSecond == null ? Double.POSITIVE_INFINITY : 1.0;
    this.lastMs = nowMs;
  }

  private void refill(long nowMs) {
    if (nowMs > lastMs) {
      tokens = Math.min(capacity, tokens + (nowMs - lastMs) * perMs);
      lastMs = nowMs;
    }
  }

  /** How many dead letters may go now, at most {@code max}. */
  public int available(long nowMs, int max) {
    refill(nowMs);
    return (int) Math.min(max, Math.floor(tokens));
  }

  /** Counts {@code n} dead letters sent at {@code nowMs}. */
  public void take(long nowMs, int n) {
    refill(nowMs);
    tokens -= n;
  }

  /** Milliseconds until one more may go (0 when one may go now). */
  public long waitMs(long nowMs) {
    refill(nowMs);
    if (tokens >= 1.0) {
      return 0;
    }
    return (long) Math.ceil((1.0 - tokens) / perMs);
  }
}
