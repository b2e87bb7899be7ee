package dev.ordo.client.stream.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.stream.ClogState;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The clog guard on a fake clock: {@code now} is whatever the test says. */
class ClogGuardTest {
  private static final ClogGuard.Settings SETTINGS = new ClogGuard.Settings(true, 10_000, 20, 0.9, 1_000, 8_000);

  @Test
  void allFailingClogsAtTheMinimumNumberOfRecords() {
    ClogGuard g = new ClogGuard(SETTINGS);
    long now = 0;
    for (int i = 1; i < 20; i++) {
      assertFalse(g.record(true, now += 10), "record " + i + " of too few");
    }
    assertTrue(g.record(true, now += 10));
    assertEquals(ClogState.CLOGGED, g.state());
    assertEquals(now + 1_000, g.nextProbeAt());
    assertFalse(g.record(true, now), "nothing counts while clogged");
    assertEquals(1, g.clogs());
  }

  @Test
  void aFewFailuresAmongSuccessesNeverClog() {
    ClogGuard g = new ClogGuard(SETTINGS);
    Random random = new Random(7);
    long now = 0;
    for (int i = 0; i < 100_000; i++) {
      assertFalse(g.record(random.nextDouble() < 0.5, now += random.nextInt(3)), "record " + i);
    }
    assertEquals(ClogState.FLOWING, g.state());
  }

  @Test
  void failuresClogOnlyAtTheRatio() {
    ClogGuard g = new ClogGuard(SETTINGS);
    long now = 0;
    g.record(false, now);
    g.record(false, now);
    g.record(false, now); // 3 successes: 27 failures are 90 % of 30
    for (int i = 1; i < 27; i++) {
      assertFalse(g.record(true, now), "failure " + i);
    }
    assertTrue(g.record(true, now));
  }

  @Test
  void outcomesOlderThanTheWindowNoLongerCount() {
    ClogGuard g = new ClogGuard(SETTINGS);
    for (int i = 0; i < 19; i++) {
      g.record(true, 0);
    }
    assertFalse(g.record(true, 10_000), "the 19 failures at 0 fell out of the window");
    assertEquals(1, g.window(10_000)[0]);
    for (int i = 0; i < 18; i++) {
      assertFalse(g.record(true, 15_000));
    }
    assertTrue(g.record(true, 19_999), "20 failures within 10 s");
  }

  @Test
  void aProbeRunsAfterTheBackoffAndItsSuccessReopensTheFlow() {
    ClogGuard g = clogged(0);
    assertFalse(g.probeDue(999));
    assertTrue(g.probeDue(1_000));
    assertEquals(ClogState.PROBING, g.state());
    assertFalse(g.probeDue(1_001), "one probe at a time");
    g.probeSucceeded(1_200);
    assertEquals(ClogState.FLOWING, g.state());
    assertEquals(0, g.window(1_200)[0], "counting starts afresh");
  }

  @Test
  void failedProbesDoubleTheBackoffUpToTheMaximum() {
    ClogGuard g = clogged(0);
    long now = 0;
    long[] expected = {2_000, 4_000, 8_000, 8_000};
    for (long backoff : expected) {
      now = g.nextProbeAt();
      assertTrue(g.probeDue(now));
      g.probeFailed(now);
      assertEquals(ClogState.CLOGGED, g.state());
      assertEquals(backoff, g.backoffMs());
      assertEquals(now + backoff, g.nextProbeAt());
    }
  }

  @Test
  void clogAgainSoonAfterARecoveryKeepsBackingOffButLaterStartsAfresh() {
    ClogGuard g = clogged(0);
    assertTrue(g.probeDue(1_000));
    g.probeFailed(1_000); // backoff 2 s
    assertTrue(g.probeDue(3_000));
    g.probeSucceeded(3_000);
    fail20(g, 4_000); // within a window of the recovery: a relapse
    assertEquals(4_000, g.backoffMs());
    assertTrue(g.probeDue(g.nextProbeAt()));
    g.probeSucceeded(9_000);
    fail20(g, 30_000); // long after: a new outage
    assertEquals(1_000, g.backoffMs());
    assertEquals(3, g.clogs());
  }

  @Test
  void aDisabledGuardNeverClogs() {
    ClogGuard g = new ClogGuard(new ClogGuard.Settings(false, 10_000, 1, 0.5, 1_000, 8_000));
    for (int i = 0; i < 1_000; i++) {
      assertFalse(g.record(true, i));
    }
    assertEquals(ClogState.FLOWING, g.state());
  }

  @Test
  void aClockThatStepsBackIsReadAsStandingStill() {
    ClogGuard g = new ClogGuard(SETTINGS);
    for (int i = 0; i < 10; i++) {
      g.record(true, 50_000);
    }
    for (int i = 0; i < 9; i++) {
      assertFalse(g.record(true, 1_000));
    }
    assertTrue(g.record(true, 1_000), "counted with the 10 at 50 s");
  }

  private static ClogGuard clogged(long at) {
    ClogGuard g = new ClogGuard(SETTINGS);
    fail20(g, at);
    return g;
  }

  private static void fail20(ClogGuard g, long at) {
    for (int i = 0; i < 20; i++) {
      g.record(true, at);
    }
    assertEquals(ClogState.CLOGGED, g.state());
  }
}
