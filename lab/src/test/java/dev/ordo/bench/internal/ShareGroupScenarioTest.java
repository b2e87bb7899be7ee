package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ShareGroupScenarioTest {

  @Test
  void theSteadyStateCountsOnlyWhatCameAfterTheWarmUp() {
    // 1,000 received, 100 of them by the warm-up at t=1 s, the last at t=2.8 s: 900 in 1.8 s
    assertEquals(500.0, ShareGroupScenario.steadyRate(1_000, 100, 0, 1_000_000_000L, 2_800_000_000L), 1e-9);
  }

  @Test
  void whenOnePollBroughtEverythingTheWholeRunIsTheFigure() {
    // the CI failure of 2026-11-22: 300 records in the first poll gave 0 records/s
    assertEquals(150.0, ShareGroupScenario.steadyRate(300, 300, 0, 1_500_000_000L, 2_000_000_000L), 1e-9);
  }
}
