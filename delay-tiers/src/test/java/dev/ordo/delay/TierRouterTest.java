package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.api.Durations;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TierRouterTest {
  private static final long NOW = 1_700_000_000_000L;
  private final TierRouter router = new TierRouter(Durations.parseList("30s,1m,5m,30m"), Duration.ZERO);

  @Test
  void dueOrOverdueGoesToTheTargetAtOnce() {
    assertEquals(new Route.Target(NOW), router.route(NOW, NOW));
    assertEquals(new Route.Target(NOW - 5), router.route(NOW - 5, NOW));
  }

  @Test
  void lessThanTheShortestTierWaitsForTheTargetUntilDue() {
    Route route = router.route(NOW + 29_999, NOW);
    assertEquals(new Route.Target(NOW + 29_999), route);
  }

  @Test
  void picksTheLongestTierNotLongerThanTheRemainingDelay() {
    assertEquals(new Route.Tier(Duration.ofSeconds(30)), router.route(NOW + 30_000, NOW));
    assertEquals(new Route.Tier(Duration.ofSeconds(30)), router.route(NOW + 59_999, NOW));
    assertEquals(new Route.Tier(Duration.ofMinutes(1)), router.route(NOW + 60_000, NOW));
    assertEquals(new Route.Tier(Duration.ofMinutes(30)), router.route(NOW + Duration.ofDays(3).toMillis(), NOW));
  }

  @Test
  void slackLetsATierSlightlyLongerThanTheRemainingDelayBeChosen() {
    TierRouter slack = new TierRouter(Durations.parseList("200ms,500ms,2s"), Duration.ofMillis(50));
    assertEquals(new Route.Tier(Duration.ofMillis(500)), slack.route(NOW + 460, NOW));
    assertEquals(new Route.Tier(Duration.ofMillis(200)), slack.route(NOW + 449, NOW));
    assertEquals(new Route.Target(NOW + 149), slack.route(NOW + 149, NOW));
  }

  @Test
  void aDayTakesFortyEightHopsOfThirtyMinutes() {
    List<Duration> path = router.plan(Duration.ofDays(1).toMillis());
    assertEquals(48, path.size());
    assertEquals(List.of(Duration.ofMinutes(30)), path.stream().distinct().toList());
  }

  @Test
  void planChainsTiersGreedily() {
    assertEquals(List.of(Duration.ofMinutes(30), Duration.ofMinutes(5), Duration.ofMinutes(1), Duration.ofSeconds(30)),
        router.plan(Duration.ofMinutes(36).plusSeconds(45).toMillis()));
  }

  @Test
  void clientWaitsTheResidualMinusAnAllowancePerHop() {
    // 2m45s = 1m + 1m + 30s + 15s left over; 3 hops of 10 ms allowance: wait 15s - 30ms, then the 1m tier.
    TierRouter.FirstHop hop = router.firstHop(NOW + 165_000, NOW, Duration.ofMillis(10));
    assertEquals(NOW + 15_000 - 30, hop.sendAt());
    assertEquals(new Route.Tier(Duration.ofMinutes(1)), hop.route());
  }

  @Test
  void clientWritesShortDelaysToTheTargetAtTheirDueTime() {
    TierRouter.FirstHop hop = router.firstHop(NOW + 10_000, NOW, Duration.ofMillis(10));
    assertEquals(NOW + 10_000, hop.sendAt());
    assertEquals(new Route.Target(NOW + 10_000), hop.route());
  }

  @Test
  void clientWritesAtOnceWhenTheResidualIsWithinTheAllowance() {
    TierRouter.FirstHop hop = router.firstHop(NOW + 60_005, NOW, Duration.ofMillis(10));
    assertEquals(NOW, hop.sendAt());
    assertEquals(new Route.Tier(Duration.ofMinutes(1)), hop.route());
  }

  @Test
  void alignedDueAtIsWhatTiersAloneReach() {
    assertEquals(NOW + 150_000, router.alignedDueAt(NOW + 165_000, NOW));
    assertEquals(NOW, router.alignedDueAt(NOW + 10_000, NOW));
  }

  @Test
  void rejectsBadTiersAndSlack() {
    assertThrows(IllegalArgumentException.class, () -> new TierRouter(List.of(), Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> new TierRouter(List.of(Duration.ofSeconds(2), Duration.ofSeconds(1)), Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> new TierRouter(List.of(Duration.ofMillis(200)), Duration.ofMillis(200)));
  }

  @Test
  void maxHopsCountsEachBand() {
    // 30s,1m,5m,30m: 1 day = 48 max-tier hops; bands add 1 + 4 + 5; plus the hop to the target.
    assertEquals(48 + 1 + 4 + 5 + 1, router.maxHops(Duration.ofDays(1).toMillis()));
  }
}
