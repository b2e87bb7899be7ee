package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.internal.PartitionBreakers.State;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class PartitionBreakersTest {
  @Test
  void aPartitionOpensAfterTheThresholdOfTimeoutsInARowAndIsLeftOut() {
    PartitionBreakers b = new PartitionBreakers(3, 1_000);
    b.timedOut(1, 0);
    b.timedOut(1, 10);
    assertEquals(State.CLOSED, b.state(1));
    assertEquals(Set.of(0, 1, 2), b.allowed(3, 20));
    b.timedOut(1, 20);
    assertEquals(State.OPEN, b.state(1));
    assertEquals(1, b.opens(1));
    assertEquals(Set.of(0, 2), b.allowed(3, 500), "left out while open");
  }

  @Test
  void anAnswerResetsTheCountOfTimeouts() {
    PartitionBreakers b = new PartitionBreakers(2, 1_000);
    b.timedOut(0, 0);
    b.answered(0, 1);
    b.timedOut(0, 2);
    assertEquals(State.CLOSED, b.state(0), "not two in a row");
  }

  @Test
  void afterTheBackoffOneDequeueProbesAndAnAnswerClosesIt() {
    PartitionBreakers b = new PartitionBreakers(1, 1_000);
    b.timedOut(2, 0);
    assertEquals(Set.of(0, 1), b.allowed(3, 999));
    assertEquals(Set.of(0, 1, 2), b.allowed(3, 1_000), "the probe");
    assertEquals(State.HALF_OPEN, b.state(2));
    assertEquals(1, b.probes(2));
    assertEquals(Set.of(0, 1), b.allowed(3, 1_001), "one probe at a time");
    b.answered(2, 1_100);
    assertEquals(State.CLOSED, b.state(2));
    assertEquals(Set.of(0, 1, 2), b.allowed(3, 1_101));
  }

  @Test
  void aFailedProbeOpensItAgainWithTwiceTheBackoffUpToEightTimes() {
    PartitionBreakers b = new PartitionBreakers(1, 1_000);
    b.timedOut(0, 0);
    long at = 0;
    long backoff = 1_000;
    for (int i = 0; i < 6; i++) {
      at += backoff;
      assertTrue(b.allowed(2, at).contains(0), "probed at " + at);
      b.timedOut(0, at);
      assertEquals(State.OPEN, b.state(0));
      backoff = Math.min(2 * backoff, 8_000);
      assertFalse(b.allowed(2, at + backoff - 1).contains(0), "still open just before " + backoff);
    }
    assertEquals(7, b.opens(0));
  }

  @Test
  void aProbeWithoutAVerdictLetsAnotherDequeueProbeAfterTheBackoff() {
    PartitionBreakers b = new PartitionBreakers(1, 1_000);
    b.timedOut(0, 0);
    assertTrue(b.allowed(2, 1_000).contains(0));
    assertFalse(b.allowed(2, 1_500).contains(0));
    assertTrue(b.allowed(2, 2_000).contains(0), "the first probe asked nothing of it");
    assertEquals(2, b.probes(0));
  }

  @Test
  void whenEveryPartitionIsOpenAllAreAsked() {
    PartitionBreakers b = new PartitionBreakers(1, 1_000);
    b.timedOut(0, 0);
    b.timedOut(1, 0);
    assertEquals(Set.of(0, 1), b.allowed(2, 10));
  }

  @Test
  void aThresholdOfZeroNeverOpens() {
    PartitionBreakers b = new PartitionBreakers(0, 1_000);
    for (int i = 0; i < 100; i++) {
      b.timedOut(0, i);
    }
    assertEquals(State.CLOSED, b.state(0));
    assertThrows(IllegalArgumentException.class, () -> new PartitionBreakers(-1, 1_000));
  }

  /**
   * Seeded runs of timeouts, answers and plans on one partition of two, against a model of the state
   * machine: the state is the model's; an open breaker is never asked before its backoff; a closed one
   * always is.
   */
  @Property(seed = "5858", tries = 300)
  void theBreakerFollowsItsStateMachine(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
    Random random = new Random(seed);
    int threshold = 1 + random.nextInt(4);
    long openMs = 100 + random.nextInt(1_000);
    PartitionBreakers b = new PartitionBreakers(threshold, openMs);
    State model = State.CLOSED;
    int timeouts = 0;
    long backoff = openMs;
    long since = 0;
    long now = 0;
    for (int step = 0; step < 200; step++) {
      now += random.nextInt((int) openMs);
      switch (random.nextInt(3)) {
        case 0 -> {
          b.timedOut(1, now);
          if (model == State.CLOSED && ++timeouts >= threshold) {
            model = State.OPEN;
            backoff = openMs;
            since = now;
          } else if (model == State.HALF_OPEN) {
            model = State.OPEN;
            backoff = Math.min(2 * backoff, 8 * openMs);
            since = now;
          }
        }
        case 1 -> {
          b.answered(1, now);
          model = State.CLOSED;
          timeouts = 0;
        }
        default -> {
          boolean asked = b.allowed(2, now).contains(1);
          boolean expected = model == State.CLOSED || now >= since + backoff;
          assertEquals(expected, asked, "step " + step + " in " + model);
          if (model != State.CLOSED && expected) {
            model = State.HALF_OPEN;
            since = now;
          }
        }
      }
      assertEquals(model, b.state(1), "step " + step);
    }
  }
}
