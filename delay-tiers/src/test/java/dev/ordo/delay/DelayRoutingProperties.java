package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.delay.internal.ForwardPlanner;
import dev.ordo.delay.internal.ForwardPlanner.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The routing of client and forwarders, simulated hop by hop without Kafka: a record goes through
 * {@link TierRouter#firstHop} (the client) and then {@link ForwardPlanner} at every tier, each hop
 * taking a random time (fetch + produce + commit, or a forwarder that was down for a while).
 */
class DelayRoutingProperties {
  private static final long NOW = 1_700_000_000_000L;

  @Property(seed = "20261107", tries = 2000)
  void aRecordNeverReachesItsTargetBeforeItsDueTime(@ForAll("scenarios") Scenario s) {
    Trip trip = s.simulate();
    assertTrue(trip.deliveredAt >= s.dueAt(),
        () -> "delivered " + (s.dueAt() - trip.deliveredAt) + " ms early: " + s + " via " + trip.path);
  }

  @Property(seed = "20261107", tries = 2000)
  void theNumberOfHopsIsBounded(@ForAll("scenarios") Scenario s) {
    Trip trip = s.simulate();
    long bound = s.router().maxHops(s.delayMs());
    assertTrue(trip.hops() <= bound, () -> trip.hops() + " hops > bound " + bound + ": " + s + " via " + trip.path);
  }

  @Property(seed = "20261107", tries = 2000)
  void instantHopsDeliverExactlyAtTheDueTime(@ForAll("instantScenarios") Scenario s) {
    Trip trip = s.simulate();
    assertEquals(s.dueAt(), trip.deliveredAt, () -> s + " via " + trip.path);
  }

  /**
   * A forwarder releases a record at min(append + tier, dueAt) and decides at that time plus one hop's
   * latency, so however the path went, the record is late by at most the time one hop takes (the
   * records behind a held head are another matter, measured on a real cluster).
   */
  @Property(seed = "20261107", tries = 2000)
  void aRecordIsLateByAtMostTheTimeOfOneHop(@ForAll("noStallScenarios") Scenario s) {
    Trip trip = s.simulate();
    long lateness = trip.deliveredAt - s.dueAt();
    assertTrue(lateness <= s.maxLatencyMs(), () -> "late by " + lateness + " ms: " + s + " via " + trip.path);
  }

  @Property(seed = "20261107", tries = 2000)
  void theRouterNeverChoosesATierLongerThanTheRemainingDelayPlusSlack(@ForAll("scenarios") Scenario s) {
    Route route = s.router().route(s.dueAt(), NOW);
    long remaining = s.dueAt() - NOW;
    if (route instanceof Route.Tier tier) {
      assertTrue(tier.delay().toMillis() <= remaining + s.router().slack().toMillis());
      assertTrue(remaining > 0);
    } else {
      Route.Target target = (Route.Target) route;
      assertEquals(s.dueAt(), target.notBefore());
      assertTrue(remaining <= 0
          || remaining + s.router().slack().toMillis() < s.router().shortest().toMillis());
    }
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    return scenarios(Arbitraries.longs().between(0, 3_000), Arbitraries.integers().between(0, 100));
  }

  @Provide
  Arbitrary<Scenario> instantScenarios() {
    return scenarios(Arbitraries.just(0L), Arbitraries.just(0));
  }

  @Provide
  Arbitrary<Scenario> noStallScenarios() {
    return scenarios(Arbitraries.longs().between(0, 2_000), Arbitraries.just(0));
  }

  /** @param latency the usual hop time; @param stallPercent how often a hop stalls (up to a minute) */
  private Arbitrary<Scenario> scenarios(Arbitrary<Long> latency, Arbitrary<Integer> stallPercent) {
    Arbitrary<List<Long>> tiers = Arbitraries.longs().between(10, 7_200_000).set().ofMinSize(1).ofMaxSize(5)
        .map(set -> new ArrayList<>(new TreeSet<>(set)));
    return Combinators.combine(tiers, Arbitraries.doubles().between(0, 1), Arbitraries.doubles().between(0, 1),
            latency, stallPercent, Arbitraries.longs(), Arbitraries.longs().between(0, 50))
        .as((t, slackFraction, delayFraction, lat, stall, seed, allowance) -> {
          List<Duration> list = t.stream().map(Duration::ofMillis).toList();
          long slack = (long) (slackFraction * (t.get(0) - 1) * 0.5);
          // Up to 200 longest tiers: from 0 to days with long tiers, bounded work with short ones.
          long delay = (long) (delayFraction * delayFraction * t.get(t.size() - 1) * 200);
          return new Scenario(new TierRouter(list, Duration.ofMillis(slack)), delay, lat, stall, seed,
              Duration.ofMillis(allowance));
        });
  }

  record Scenario(TierRouter router, long delayMs, long maxLatencyMs, int stallPercent, long seed,
      Duration allowance) {
    long dueAt() {
      return NOW + delayMs;
    }

    /** Client, then forwarders, until the record is produced to its target. */
    Trip simulate() {
      Random random = new Random(seed);
      List<String> path = new ArrayList<>();
      long dueAt = dueAt();
      TierRouter.FirstHop first = router.firstHop(dueAt, NOW, allowance);
      long t = first.sendAt();
      Route route = router.route(dueAt, t);
      while (true) {
        if (route instanceof Route.Target target) {
          // The client or a forwarder produces to the target only when due; the record is stamped then.
          if (!target.isDue(t)) {
            throw new AssertionError("routed to the target " + (target.notBefore() - t) + " ms before due");
          }
          path.add("target@" + (t - NOW));
          return new Trip(t, path);
        }
        Duration tier = ((Route.Tier) route).delay();
        path.add(tier.toMillis() + "ms");
        if (path.size() > 1_000_000) {
          throw new AssertionError("runaway path " + path.subList(0, 20));
        }
        long append = t + latency(random);
        ForwardPlanner planner = new ForwardPlanner(tier, router);
        long now = append;
        Step step = planner.decide(append, dueAt, now);
        while (!(step instanceof Step.Forward)) {
          long until = step instanceof Step.Wait wait ? wait.until() : ((Step.Hold) step).until();
          if (until <= now) {
            throw new AssertionError("wait until " + until + " is not ahead of " + now);
          }
          now = until + latency(random);
          step = planner.decide(append, dueAt, now);
        }
        route = ((Step.Forward) step).route();
        t = now;
      }
    }

    private long latency(Random random) {
      if (stallPercent > 0 && random.nextInt(100) < stallPercent / 10) {
        return random.nextLong(60_000);
      }
      return maxLatencyMs == 0 ? 0 : random.nextLong(maxLatencyMs + 1);
    }
  }

  record Trip(long deliveredAt, List<String> path) {
    int hops() {
      return path.size();
    }
  }
}
