package dev.ordo.delay.internal;

import dev.ordo.delay.Route;
import dev.ordo.delay.TierRouter;
import java.time.Duration;

/**
 * What a forwarder of tier D does with the record at the head of a partition, pure: pause the
 * partition until some time, or forward the record somewhere now.
 *
 * <p>Every record of a tier waits exactly D after its append time, so a partition's records come due
 * in offset order and the head is the only record worth looking at. The head leaves the tier at
 * {@code release = min(appendTime + D, dueAt)}: normally append + D; earlier when the record was put
 * into a tier longer than what it had left (the router's slack), so it still reaches its target on
 * time. Leaving, it is routed by {@link TierRouter} on what remains. If less than the shortest tier
 * remains, the record is held until its due time: never early.
 */
public final class ForwardPlanner {
  private final long tierMs;
  private final TierRouter router;

  public ForwardPlanner(Duration tier, TierRouter router) {
    this.tierMs = tier.toMillis();
    this.router = router;
  }

  /**
   * @param appendTime the record's LogAppendTime (epoch ms)
   * @param dueAt the envelope's due time (epoch ms)
   * @param now the forwarder's clock (epoch ms)
   */
  public Step decide(long appendTime, long dueAt, long now) {
    long release = Math.min(saturatedAdd(appendTime, tierMs), dueAt);
    if (now < release) {
      return new Step.Wait(release);
    }
    Route route = router.route(dueAt, now);
    if (route instanceof Route.Target target && !target.isDue(now)) {
      return new Step.Hold(target.notBefore());
    }
    return new Step.Forward(route);
  }

  /** The outcome of {@link #decide}. */
  public sealed interface Step {
    /**
     * Not released yet: seek back to the head, pause its partition until {@code until} (epoch ms), then
     * decide again. The records behind the head are released no earlier (same tier, later appended).
     */
    record Wait(long until) implements Step {}

    /**
     * Released, with less than the shortest tier to go: to the target at {@code until} (its due time).
     * The records behind it may be due sooner, so it should wait out of line (the forwarder keeps it
     * aside) rather than at the head of its partition.
     */
    record Hold(long until) implements Step {}

    /** Produce the record along {@code route} now, in the forwarder's transaction. */
    record Forward(Route route) implements Step {}
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
