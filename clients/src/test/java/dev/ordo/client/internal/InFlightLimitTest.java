package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InFlightLimitTest {
  private static final long MS = 1_000_000L;
  private static final long TARGET = 25 * MS;

  /** A clock stepped an interval at a time, and the window under test. */
  private static final class Run {
    final InFlightLimit window;
    long now = 1_000 * MS;

    Run(int max, int floor, long target) {
      window = new InFlightLimit(max, floor, target);
      window.advance(now); // the first interval starts
    }

    /** One interval of acks of 40 ms: the base. */
    Run withBase() {
      interval(40);
      return this;
    }

    /** One interval in which acks took {@code delaysMs}; whether it ended with the window shrinking. */
    boolean interval(long... delaysMs) {
      for (long d : delaysMs) {
        window.sample(d * MS);
      }
      now += InFlightLimit.INTERVAL_NANOS;
      return window.advance(now);
    }
  }

  @Test
  void startsAtTheMaxAndStaysThereWhileNothingQueues() {
    Run r = new Run(4_000, 8, TARGET);
    assertEquals(4_000, r.window.limit());
    for (int i = 0; i < 20; i++) {
      assertFalse(r.interval(40, 55, 90));
    }
    assertEquals(4_000, r.window.limit());
  }

  @Test
  void aStandingQueueShrinksTheWindowByAFifth() {
    Run r = new Run(4_000, 8, TARGET).withBase();
    r.interval(40, 300); // the base: 40 ms
    assertTrue(r.interval(70, 900)); // even the quickest waited 30 ms more than the base
    assertEquals(3_200, r.window.limit());
  }

  @Test
  void aDelayWithinTheTargetIsNoQueue() {
    Run r = new Run(4_000, 8, TARGET).withBase();
    assertFalse(r.interval(65, 2_000)); // 25 ms over the base: within the target, however slow the rest
    assertEquals(4_000, r.window.limit());
  }

  @Test
  void aDelayFarAboveTheBaseShrinksItInProportionButByHalfAtMost() {
    Run r = new Run(4_000, 8, TARGET).withBase();
    assertTrue(r.interval(100)); // (40 + 25) / 100: to 65% of it
    assertEquals(2_600, r.window.limit());
    r.now += 10 * InFlightLimit.INTERVAL_NANOS;
    assertTrue(r.interval(2_000)); // (40 + 25) / 2,000 would be 3%: half
    assertEquals(1_300, r.window.limit());
  }

  @Test
  void afterShrinkingItWaitsForTheDelaysToShowIt() {
    Run r = new Run(1_000, 8, TARGET).withBase();
    assertTrue(r.interval(80));
    assertEquals(800, r.window.limit());
    // The next interval's acks were asked for under the larger window: its delays say nothing yet.
    assertFalse(r.interval(500));
    assertEquals(800, r.window.limit());
    assertTrue(r.interval(80)); // an interval and a delay (80 ms) later
    assertEquals(640, r.window.limit());
  }

  @Test
  void growsBackByFivePercentWhileTheDelaysStayWithinTheTarget() {
    Run r = new Run(1_000, 8, TARGET).withBase();
    r.interval(80);
    assertEquals(800, r.window.limit());
    r.interval(45);
    assertEquals(840, r.window.limit());
    for (int i = 0; i < 20; i++) {
      r.interval(45);
    }
    assertEquals(1_000, r.window.limit()); // never above the max
  }

  @Test
  void neverShrinksBelowTheFloor() {
    Run r = new Run(100, 30, TARGET).withBase();
    for (int i = 0; i < 50; i++) {
      r.interval(10_000);
      r.now += 20 * InFlightLimit.INTERVAL_NANOS; // past every hold
    }
    assertEquals(30, r.window.limit());
    assertEquals(8, new InFlightLimit(8, 30, TARGET).limit()); // a floor above the max is the max
  }

  @Test
  void anIntervalWithoutAcksChangesNothing() {
    Run r = new Run(1_000, 8, TARGET).withBase();
    r.interval(80);
    assertEquals(800, r.window.limit());
    for (int i = 0; i < 10; i++) {
      assertFalse(r.interval());
    }
    assertEquals(800, r.window.limit());
  }

  @Test
  void theBaseForgetsDelaysOlderThanThirtySeconds() {
    Run r = new Run(1_000, 8, TARGET).withBase();
    // The pipeline itself got slower (another route, a slower broker): after 30 s its new delay is the base.
    int shrinks = 0;
    for (int i = 0; i < InFlightLimit.BASE_INTERVALS + 40; i++) {
      if (r.interval(200)) {
        shrinks++;
      }
    }
    assertTrue(shrinks > 0);
    int after = r.window.limit();
    for (int i = 0; i < 10; i++) {
      assertFalse(r.interval(200));
    }
    assertTrue(r.window.limit() > after, r.window.limit() + " after " + after);
  }

  @Test
  void aTargetOfZeroKeepsTheMax() {
    Run r = new Run(500, 8, 0);
    assertEquals(500, r.window.limit());
    r.interval(1);
    for (int i = 0; i < 10; i++) {
      assertFalse(r.interval(5_000));
    }
    assertEquals(500, r.window.limit());
  }

  @Test
  void refusesNonsense() {
    assertThrows(IllegalArgumentException.class, () -> new InFlightLimit(0, 8, TARGET));
    assertThrows(IllegalArgumentException.class, () -> new InFlightLimit(10, 0, TARGET));
    assertThrows(IllegalArgumentException.class, () -> new InFlightLimit(10, 8, -1));
  }
}
