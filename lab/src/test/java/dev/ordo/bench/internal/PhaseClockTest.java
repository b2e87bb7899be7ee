package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.bench.internal.PhaseClock.Phase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PhaseClockTest {
  private static final long S = 1_000_000_000L;

  @Test
  void phasesFollowEachOtherFromTheStart() {
    long t0 = -5 * S; // nanoTime may be negative
    PhaseClock c = new PhaseClock(t0, Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(30));
    assertEquals(Phase.WARM_UP, c.phaseOf(t0 - 1), "before the start counts as warm-up");
    assertEquals(Phase.WARM_UP, c.phaseOf(t0));
    assertEquals(Phase.BEFORE, c.phaseOf(t0 + 2 * S));
    assertEquals(Phase.BEFORE, c.phaseOf(t0 + 12 * S - 1));
    assertEquals(Phase.DURING, c.phaseOf(t0 + 12 * S));
    assertEquals(Phase.AFTER, c.phaseOf(t0 + 42 * S));
    assertEquals(Phase.DRAIN, c.phaseOf(t0 + 52 * S));
    assertEquals(Phase.DRAIN, c.phaseOf(t0 + 1_000 * S));
    assertEquals(t0 + 12 * S, c.start(Phase.DURING));
    assertEquals(t0 + 42 * S, c.end(Phase.DURING));
    assertEquals(Long.MAX_VALUE, c.end(Phase.DRAIN));
  }
}
