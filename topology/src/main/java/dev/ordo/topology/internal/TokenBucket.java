package dev.ordo.topology.internal;

/**
 * A token bucket: tokens accrue at a rate up to a capacity, and each admitted item takes one. Pure:
 * the time is passed in, and so are the rate and the capacity, because a partition's share of a
 * namespace's rate changes with the load on the other partitions. Time that goes backwards adds
 * nothing. Over any interval in which rate and capacity stay the same it admits at most
 * {@code capacity + rate × interval} items.
 */
final class TokenBucket {
  /** Sums of fractions (0.2 five times) land a hair below a whole token: count that as whole. */
  private static final double EPSILON = 1e-9;

  private double tokens;
  private long at;

  /** A full bucket as of {@code now}. */
  TokenBucket(double capacity, long now) {
    this.tokens = capacity;
    this.at = now;
  }

  /** The whole tokens available at {@code now}, for {@code perSecond} and {@code capacity}. */
  long available(double perSecond, double capacity, long now) {
    refill(perSecond, capacity, now);
    return (long) Math.floor(tokens + EPSILON);
  }

  /** Takes up to {@code wanted} whole tokens; returns how many it took. */
  long take(long wanted, double perSecond, double capacity, long now) {
    long n = Math.min(Math.max(wanted, 0), available(perSecond, capacity, now));
    tokens -= n;
    return n;
  }

  /** Takes one token if there is one. */
  boolean tryTake(double perSecond, double capacity, long now) {
    return take(1, perSecond, capacity, now) == 1;
  }

  /** How long until one token is available (0: now), at {@code perSecond}. */
  long msUntilOne(double perSecond, double capacity, long now) {
    refill(perSecond, capacity, now);
    if (tokens + EPSILON >= 1) {
      return 0;
    }
    if (perSecond <= 0) {
      return Long.MAX_VALUE;
    }
    return (long) Math.ceil((1 - tokens) * 1000 / perSecond);
  }

  private void refill(double perSecond, double capacity, long now) {
    if (now > at) {
      tokens = Math.min(capacity, tokens + (now - at) * perSecond / 1000.0);
      at = now;
    }
    if (tokens > capacity) {
      tokens = capacity; // the capacity shrank (a smaller share)
    }
  }
}
