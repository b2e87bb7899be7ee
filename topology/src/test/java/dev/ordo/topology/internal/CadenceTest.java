package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When a queue task does what is not a record's own work: a function of {@code now} and of when it last did it. */
class CadenceTest {
  private static final long NOW = 1_700_000_000_000L;
  private static final long FINE = 20;
  private static final long STATS = 1_000;

  @Test
  void theStatsAreLookedAtEveryLimitedIntervalAndTheFirstTickLooks() {
    Cadence c = new Cadence(FINE, STATS, NOW);
    assertTrue(c.statsTick(NOW), "the first tick looks");
    assertFalse(c.statsTick(NOW + Cadence.LIMITED_STATS_MS - 1));
    assertTrue(c.statsTick(NOW + Cadence.LIMITED_STATS_MS));
    Cadence shortStats = new Cadence(FINE, 50, NOW);
    assertTrue(shortStats.statsTick(NOW));
    assertTrue(shortStats.statsTick(NOW + 50), "a stats interval shorter than the limited one rules");
  }

  @Test
  void metersAreSweptAtTheFirstLookThenEveryStatsInterval() {
    Cadence c = new Cadence(FINE, STATS, NOW);
    assertTrue(c.sweep(NOW), "never swept yet");
    assertFalse(c.sweep(NOW + STATS - 1));
    assertTrue(c.sweep(NOW + STATS));
    assertFalse(c.sweep(NOW + STATS + 1));
  }

  @Test
  void everyChangedTopicGoesOutEveryStatsIntervalCountedFromTheStartAndAFineIntervalEarlyCounts() {
    Cadence c = new Cadence(FINE, STATS, NOW);
    assertFalse(c.publishAll(NOW), "the task just started, as a schedule would");
    assertFalse(c.publishAll(NOW + STATS - FINE - 1));
    assertTrue(c.publishAll(NOW + STATS - FINE), "a tick a little early still counts");
    assertFalse(c.publishAll(NOW + STATS), "counted from the last publication");
    assertTrue(c.publishAll(NOW + 2 * STATS - 2 * FINE));
  }

  @Test
  void itemsCoolDownAtTheFirstTickThenOncePerInterval() {
    Cadence c = new Cadence(FINE, STATS, NOW);
    assertTrue(c.coolDown(NOW));
    assertFalse(c.coolDown(NOW + Cadence.COOL_EVERY_MS - 1));
    assertTrue(c.coolDown(NOW + Cadence.COOL_EVERY_MS));
  }

  @Test
  void indexWritesAreDueAFineIntervalAfterTheLastFlush() {
    Cadence c = new Cadence(FINE, STATS, NOW);
    assertTrue(c.indexFlushDue(NOW), "never flushed");
    c.indexFlushed(NOW);
    assertFalse(c.indexFlushDue(NOW + FINE - 1));
    assertTrue(c.indexFlushDue(NOW + FINE));
  }

  @Test
  void theContinuationWaitsForTheRecordsToRunOutButNotLongerThanTheMaxWait() {
    Cadence c = new Cadence(FINE, STATS, NOW);
    c.continuationArmed(NOW);
    assertTrue(c.continuationRuns(NOW + 1), "no record since it was armed");
    c.recordProcessed();
    assertFalse(c.continuationRuns(NOW + 2), "a record came: wait for the next firing");
    assertTrue(c.continuationRuns(NOW + 3), "none since the last firing");
    c.recordProcessed();
    assertTrue(c.continuationRuns(NOW + 3 + Cadence.CONTINUATION_MAX_WAIT_MS), "waited long enough");
    c.recordProcessed();
    assertFalse(c.continuationRuns(NOW + 4 + Cadence.CONTINUATION_MAX_WAIT_MS), "measured from the last step");
  }

  @Test
  void aRebuildIsHeldUntilTheFirstRecordOrTheHoldEnds() {
    assertTrue(Cadence.rebuildHeld(false, NOW, NOW + Cadence.REBUILD_HOLD_MS - 1));
    assertFalse(Cadence.rebuildHeld(true, NOW, NOW));
    assertFalse(Cadence.rebuildHeld(false, NOW, NOW + Cadence.REBUILD_HOLD_MS));
  }
}
