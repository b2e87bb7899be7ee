package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.bench.internal.PhaseClock.Phase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SurgeRecorderTest {
  private static final long MS = 1_000_000L;

  @Test
  void aIsFiledByWhenItWasEnqueuedBByWhenItWasWorkedOnAndRedeliveriesCountOnce() {
    PhaseClock clock = new PhaseClock(0, Duration.ofMillis(100), Duration.ofMillis(1_000), Duration.ofMillis(1_000));
    SurgeRecorder r = new SurgeRecorder(clock);
    r.tenantA(0, 50 * MS, 60 * MS);            // warm-up: counted as delivered, not in a phase
    r.tenantA(1, 500 * MS, 510 * MS);          // before, 10 ms
    r.tenantA(2, 1_099 * MS, 1_400 * MS);      // enqueued before, worked on during: before, 301 ms
    r.tenantA(2, 1_099 * MS, 1_900 * MS);      // delivered again: ignored
    r.tenantA(3, 1_500 * MS, 1_520 * MS);      // during, 20 ms
    r.tenantB(0, 1_050 * MS);                  // before
    r.tenantB(1, 2_200 * MS);                  // after
    r.tenantB(1, 2_300 * MS);                  // again: ignored

    assertEquals(2, r.tenantA(Phase.BEFORE).count());
    assertEquals(301, r.tenantA(Phase.BEFORE).max(), 1e-9);
    assertEquals(1, r.tenantA(Phase.DURING).count());
    assertEquals(20, r.tenantA(Phase.DURING).p50(), 1e-9);
    assertEquals(0, r.tenantA(Phase.AFTER).count());
    assertEquals(4, r.tenantADelivered());
    assertEquals(1, r.tenantB(Phase.BEFORE));
    assertEquals(0, r.tenantB(Phase.DURING));
    assertEquals(1, r.tenantB(Phase.AFTER));
    assertEquals(2, r.tenantBDelivered());
  }

  @Test
  void theQueuesPartOfALatencyIsKeptBesideIt() {
    SurgeRecorder r = new SurgeRecorder(new PhaseClock(0, Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1)));
    r.tenantA(0, 100 * MS, 130 * MS, 400 * MS);   // 30 ms to the handler, 300 ms to a worker
    r.tenantA(1, 1_100 * MS, 1_105 * MS, 1_110 * MS);
    r.tenantA(1, 1_100 * MS, 1_900 * MS, 1_950 * MS); // delivered again: ignored

    assertEquals(300, r.tenantA(Phase.BEFORE).p50(), 1e-9);
    assertEquals(30, r.tenantAQueued(Phase.BEFORE).p50(), 1e-9);
    assertEquals(10, r.tenantA(Phase.DURING).max(), 1e-9);
    assertEquals(5, r.tenantAQueued(Phase.DURING).max(), 1e-9);
  }

  @Test
  void manySamplesGrowTheirPhase() {
    SurgeRecorder r = new SurgeRecorder(new PhaseClock(0, Duration.ZERO, Duration.ofSeconds(10), Duration.ofSeconds(1)));
    for (int i = 0; i < 5_000; i++) {
      r.tenantA(i, i * MS, i * MS + (i % 100) * MS);
    }
    assertEquals(5_000, r.tenantA(Phase.BEFORE).count());
    assertEquals(99, r.tenantA(Phase.BEFORE).max(), 1e-9);
  }
}
