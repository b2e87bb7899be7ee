package dev.ordo.delay.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.api.Durations;
import dev.ordo.delay.Route;
import dev.ordo.delay.TierRouter;
import dev.ordo.delay.internal.ForwardPlanner.Step;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ForwardPlannerTest {
  private static final long APPEND = 1_700_000_000_000L;
  private final TierRouter router = new TierRouter(Durations.parseList("200ms,500ms,2s,5s"), Duration.ofMillis(20));
  private final ForwardPlanner twoSeconds = new ForwardPlanner(Duration.ofSeconds(2), router);

  @Test
  void aHeadThatIsNotDuePausesItsPartitionUntilAppendTimePlusTheTier() {
    assertEquals(new Step.Wait(APPEND + 2000), twoSeconds.decide(APPEND, APPEND + 9000, APPEND + 100));
    assertEquals(new Step.Wait(APPEND + 2000), twoSeconds.decide(APPEND, APPEND + 9000, APPEND + 1999));
  }

  @Test
  void aDueHeadIsRoutedByWhatRemains() {
    assertEquals(new Step.Forward(new Route.Tier(Duration.ofSeconds(5))),
        twoSeconds.decide(APPEND, APPEND + 7000, APPEND + 2000));
    assertEquals(new Step.Forward(new Route.Tier(Duration.ofMillis(500))),
        twoSeconds.decide(APPEND, APPEND + 2600, APPEND + 2003));
  }

  @Test
  void anOverdueHeadGoesToItsTarget() {
    assertEquals(new Step.Forward(new Route.Target(APPEND + 2000)),
        twoSeconds.decide(APPEND, APPEND + 2000, APPEND + 2000));
    assertEquals(new Step.Forward(new Route.Target(APPEND + 1500)),
        twoSeconds.decide(APPEND, APPEND + 1500, APPEND + 2500));
  }

  @Test
  void aHeadWithLessThanTheShortestTierLeftIsHeldUntilItsDueTime() {
    assertEquals(new Step.Hold(APPEND + 2100), twoSeconds.decide(APPEND, APPEND + 2100, APPEND + 2005));
    assertEquals(new Step.Forward(new Route.Target(APPEND + 2100)),
        twoSeconds.decide(APPEND, APPEND + 2100, APPEND + 2100));
  }

  @Test
  void aRecordDueBeforeItsTierEndsLeavesAtItsDueTime() {
    // Put into the 2s tier with 1.99 s to go (within the slack): it leaves at its due time, not 10 ms late.
    assertEquals(new Step.Wait(APPEND + 1990), twoSeconds.decide(APPEND, APPEND + 1990, APPEND + 5));
    assertEquals(new Step.Forward(new Route.Target(APPEND + 1990)),
        twoSeconds.decide(APPEND, APPEND + 1990, APPEND + 1990));
  }

  @Test
  void aHugeAppendTimeDoesNotOverflow() {
    assertEquals(new Step.Wait(Long.MAX_VALUE - 1),
        twoSeconds.decide(Long.MAX_VALUE - 10, Long.MAX_VALUE - 1, 0));
  }
}
