package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A task ticks finely only while a tick has work that cannot wait for the coarse tick. */
class TicksTest {
  private static final long NOW = 1_700_000_000_000L;
  private static final long COARSE = 1_000;

  @Test
  void aQuietTaskWithNoTimerNearTakesOnlyTheCoarseTick() {
    assertFalse(Ticks.needsFine(false, false, false, false, Long.MAX_VALUE, NOW, COARSE), "no timer at all");
    assertFalse(Ticks.needsFine(false, false, false, false, NOW + 30_000, NOW, COARSE), "a lease 30 s ahead");
    assertFalse(Ticks.needsFine(false, false, false, false, NOW + COARSE + 1, NOW, COARSE),
        "the next coarse tick comes before the timer is due");
  }

  @Test
  void aTimerThatMayFallDueBeforeTheNextCoarseTickNeedsTheFineOne() {
    assertTrue(Ticks.needsFine(false, false, false, false, NOW + COARSE, NOW, COARSE));
    assertTrue(Ticks.needsFine(false, false, false, false, NOW + 20, NOW, COARSE));
    assertTrue(Ticks.needsFine(false, false, false, false, NOW - 5, NOW, COARSE), "due already");
    assertTrue(Ticks.needsFine(false, false, false, false, Long.MIN_VALUE, NOW, COARSE),
        "not known yet (a kind never scanned): a fine tick scans");
  }

  @Test
  void workThatOnlyThePassingOfTimeDoesNeedsTheFineTick() {
    assertTrue(Ticks.needsFine(true, false, false, false, Long.MAX_VALUE, NOW, COARSE), "an index rebuilt in steps");
    assertTrue(Ticks.needsFine(false, true, false, false, Long.MAX_VALUE, NOW, COARSE), "demand under a dispatch rate");
    assertTrue(Ticks.needsFine(false, false, true, false, Long.MAX_VALUE, NOW, COARSE), "items in OVERFLOW");
    assertTrue(Ticks.needsFine(false, false, false, true, Long.MAX_VALUE, NOW, COARSE),
        "stats of a namespace with limits, which the other partitions share rates by");
  }

  @Test
  void theCoarseTickIsTheStatsIntervalAtMostASecondAndNeverFinerThanTheFineOne() {
    assertEquals(1_000, Ticks.coarseMs(20, 1_000));
    assertEquals(1_000, Ticks.coarseMs(20, 60_000));
    assertEquals(200, Ticks.coarseMs(20, 200));
    assertEquals(50, Ticks.coarseMs(50, 10));
  }
}
