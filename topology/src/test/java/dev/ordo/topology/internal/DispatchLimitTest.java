package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.topology.internal.NamespaceRules.RateLimit;
import org.junit.jupiter.api.Test;

/** A namespace's dispatch rate on one partition: its share, and leases at that share of the rate. */
class DispatchLimitTest {
  private static final RateLimit RATE = new RateLimit(100, 20);

  @Test
  void aPartitionTakesTheShareOfTheRateItsReadyItemsAreOfTheNamespaces() {
    assertEquals(1.0, DispatchLimit.share(0, 0), "nothing ready anywhere: the whole rate");
    assertEquals(1.0, DispatchLimit.share(7, 0), "ready only here: the whole rate");
    assertEquals(0.25, DispatchLimit.share(1, 3));
    assertTrue(DispatchLimit.share(0, 10) > 0, "never zero: an arrival for a waiting demand can still go");
  }

  @Test
  void leasesTakenAsFastAsAllowedFollowTheShareOfTheRate() {
    DispatchLimit limit = new DispatchLimit();
    double share = DispatchLimit.share(10, 30);
    long taken = 0;
    for (long t = 0; t <= 2_000; t += 10) {
      long n = limit.available("ns", RATE, share, t);
      limit.take("ns", RATE, share, n, t);
      taken += n;
      assertTrue(taken <= 20 * share + 100 * share * t / 1000.0 + 1e-9, taken + " leased by " + t + " ms");
    }
    assertTrue(taken >= 100 * share * 2 - 1, "the quarter share is used: " + taken);
    assertEquals(0, limit.available("ns", RATE, share, 2_000), "all taken");
  }

  @Test
  void aNamespaceThatLosesItsRateIsForgotten() {
    DispatchLimit limit = new DispatchLimit();
    limit.take("ns", RATE, 1, 20, 0);
    assertEquals(1, limit.buckets());
    limit.forget("ns");
    assertEquals(0, limit.buckets());
    assertEquals(20, limit.available("ns", RATE, 1, 0), "a bucket made again starts full");
  }
}
