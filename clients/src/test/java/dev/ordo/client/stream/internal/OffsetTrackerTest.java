package dev.ordo.client.stream.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OffsetTrackerTest {

  @Test
  void aSlowRecordHoldsTheCommitWhileLaterOnesFinish() {
    OffsetTracker t = new OffsetTracker(10);
    for (long o = 10; o < 15; o++) {
      assertTrue(t.start(o));
    }
    t.finish(11);
    t.finish(13);
    t.finish(14);
    assertEquals(10, t.committable(), "10 still runs");
    t.finish(10);
    assertEquals(12, t.committable(), "12 still runs");
    t.finish(12);
    assertEquals(15, t.committable());
    assertTrue(t.idle());
  }

  @Test
  void nothingStartedCommitsTheFirstFetchedOffset() {
    OffsetTracker t = new OffsetTracker(42);
    assertEquals(42, t.committable());
  }

  @Test
  void recordsFetchedAgainAfterASeekBackRunOnlyIfReopened() {
    OffsetTracker t = new OffsetTracker(0);
    t.start(0);
    t.start(1);
    t.start(2);
    t.finish(1);
    t.reopen(0);
    assertEquals(0, t.committable());
    assertTrue(t.start(0), "reopened: runs again");
    assertFalse(t.start(1), "finished: skipped");
    assertFalse(t.start(2), "running: skipped");
    assertTrue(t.start(3), "new");
  }

  @Test
  void gapsBelowTheReadPositionAreCommittedOnceNothingIsOpen() {
    OffsetTracker t = new OffsetTracker(0);
    t.start(0);
    t.start(2); // 1 is a transaction marker
    t.readUpTo(4); // 3 too
    t.finish(2);
    assertEquals(0, t.committable());
    t.finish(0);
    assertEquals(4, t.committable());
  }

  @Test
  void finishingOrReopeningARecordThatIsNotRunningChangesNothing() {
    OffsetTracker t = new OffsetTracker(0);
    t.start(0);
    t.finish(5);
    t.reopen(7);
    t.finish(0);
    t.finish(0);
    t.reopen(0);
    assertEquals(1, t.committable());
    assertEquals(0, t.running());
  }
}
