package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class BusyRatioTest {
  private static final double EPS = 1e-9;

  @Test
  void aSlotBusyAllTheWindowIsOneAndIdleIsZero() {
    BusyRatio r = new BusyRatio(10_000, 1, 0);
    assertEquals(0, r.ratio(5_000), EPS);
    r.set(1, 5_000);
    assertEquals(0.5, r.ratio(10_000), EPS, "busy half of the 10 s seen");
    assertEquals(1.0, r.ratio(30_000), EPS, "busy all the last window");
    r.set(0, 30_000);
    assertEquals(0.0, r.ratio(41_000), EPS, "idle the whole window since");
  }

  @Test
  void aFreshTrackerDividesByItsAgeNotByTheWindow() {
    BusyRatio r = new BusyRatio(60_000, 1, 1_000);
    r.set(1, 1_000);
    assertEquals(1.0, r.ratio(2_000), EPS);
  }

  @Test
  void capacityCountsSlotsAndBusyBeyondItIsFull() {
    BusyRatio r = new BusyRatio(10_000, 4, 0);
    r.add(1, 0);
    assertEquals(0.25, r.ratio(10_000), EPS, "one of four slots");
    r.add(5, 10_000);
    assertEquals(1.0, r.ratio(20_000), EPS, "more busy than slots is saturated, not more");
  }

  @Test
  void theWindowSlidesInBucketsAndForgetsOldBusyTime() {
    BusyRatio r = new BusyRatio(10_000, 1, 0);
    r.set(1, 0);
    r.set(0, 2_000);
    assertEquals(0.2, r.ratio(10_000), EPS);
    // At 12 s the first two 1 s buckets (0..2 s) have left the 10 s window.
    assertEquals(0.0, r.ratio(12_000), EPS);
  }

  @Test
  void aHandlerBlockedIsOverHalfAndAfterAnIdleWindowUnderHalf() {
    BusyRatio r = new BusyRatio(1_000, 2, 0);
    r.add(1, 0);
    r.add(1, 0);
    assertTrue(r.ratio(700) > 0.5);
    r.add(-2, 700);
    assertTrue(r.ratio(1_800) < 0.5);
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new BusyRatio(5, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new BusyRatio(1_000, 0, 0));
  }

  @Test
  void anEarlierNowIsTakenAsTheLastOne() {
    BusyRatio r = new BusyRatio(10_000, 1, 0);
    r.set(1, 5_000);
    r.set(0, 4_000); // clock went back: the change counts at 5 s
    assertEquals(0.0, r.ratio(16_000), EPS);
  }

  /**
   * Against a model that keeps every level change and integrates the exact window the buckets cover:
   * the ratio is the model's, always within [0, 1].
   */
  @Property(seed = "58", tries = 300)
  void theRatioIsTheExactIntegralOverTheBucketedWindow(@ForAll @LongRange(min = 1, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 1, max = 8) int capacity) {
    Random random = new Random(seed);
    long window = 100 + random.nextInt(10_000);
    long bucket = window / BusyRatio.BUCKETS;
    long start = random.nextInt(5_000);
    BusyRatio r = new BusyRatio(window, capacity, start);
    List<long[]> changes = new ArrayList<>(); // {at, level}
    changes.add(new long[] {start, 0});
    long now = start;
    int level = 0;
    for (int step = 0; step < 60; step++) {
      now += random.nextInt((int) window);
      if (random.nextBoolean()) {
        level = random.nextInt(capacity + 3);
        r.set(level, now);
        changes.add(new long[] {now, level});
      } else {
        double got = r.ratio(now);
        long from = Math.max(start, (now / bucket - BusyRatio.BUCKETS) * bucket);
        double expected = from >= now ? Math.min(level, capacity) / (double) capacity
            : integral(changes, from, now, capacity) / (now - from);
        assertEquals(expected, got, 1e-6, "at " + now + " window from " + from);
        assertTrue(got >= 0 && got <= 1);
      }
    }
  }

  private static double integral(List<long[]> changes, long from, long to, int capacity) {
    double sum = 0;
    for (int i = 0; i < changes.size(); i++) {
      long a = Math.max(from, changes.get(i)[0]);
      long b = Math.min(to, i + 1 < changes.size() ? changes.get(i + 1)[0] : to);
      if (b > a) {
        sum += (b - a) * Math.min(changes.get(i)[1], capacity) / (double) capacity;
      }
    }
    return sum;
  }
}
