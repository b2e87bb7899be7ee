package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/** The token bucket alone: never more than its capacity plus the rate times the time, and never stuck. */
class TokenBucketProperties {
  record Step(long advanceMs, long wanted) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(Arbitraries.longs().between(-50, 2_000), Arbitraries.longs().between(0, 40))
        .as(Step::new).list().ofMinSize(1).ofMaxSize(200);
  }

  @Property(seed = "42")
  void neverAdmitsMoreThanCapacityPlusRateTimesTime(@ForAll("steps") List<Step> steps,
      @ForAll @DoubleRange(min = 0.1, max = 5_000) double perSecond, @ForAll @IntRange(min = 1, max = 100) int capacity) {
    long start = 1_000_000;
    long now = start;
    long latest = start;
    TokenBucket bucket = new TokenBucket(capacity, now);
    long taken = 0;
    for (Step s : steps) {
      now += s.advanceMs(); // the clock may step back a little: that adds nothing
      latest = Math.max(latest, now);
      long n = bucket.take(s.wanted(), perSecond, capacity, now);
      assertTrue(n >= 0 && n <= s.wanted(), "took " + n + " of " + s.wanted());
      taken += n;
      double bound = capacity + perSecond * (latest - start) / 1000.0;
      assertTrue(taken <= bound + 1e-9, "admitted " + taken + " > " + bound);
    }
  }

  @Property(seed = "42")
  void aSteadyDemandGetsWhatAccrues(@ForAll @DoubleRange(min = 1, max = 2_000) double perSecond,
      @ForAll @IntRange(min = 1, max = 50) int capacity, @ForAll @IntRange(min = 1, max = 100) int stepMs) {
    long now = 0;
    TokenBucket bucket = new TokenBucket(capacity, now);
    long taken = bucket.take(Long.MAX_VALUE, perSecond, capacity, now);
    assertEquals(capacity, taken, "a new bucket is full");
    long floor = 0;
    while (now < 10_000) {
      now += stepMs;
      taken += bucket.take(Long.MAX_VALUE, perSecond, capacity, now);
      floor += (long) Math.floor(Math.min(capacity, perSecond * stepMs / 1000.0));
    }
    assertTrue(taken >= capacity + floor, "took " + taken + ", less than the " + (capacity + floor) + " that accrued");
  }

  @Example
  void tellsHowLongUntilTheNextToken() {
    TokenBucket bucket = new TokenBucket(1, 0);
    assertTrue(bucket.tryTake(10, 1, 0));
    assertEquals(100, bucket.msUntilOne(10, 1, 0));
    assertEquals(0, bucket.msUntilOne(10, 1, 100));
    assertEquals(Long.MAX_VALUE, new TokenBucket(0, 0).msUntilOne(0, 0, 5));
  }
}
