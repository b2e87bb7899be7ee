package dev.ordo.delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The routing rule of the delay tiers, pure: no clock (callers pass {@code now}), no I/O.
 *
 * <p>A record due at {@code dueAt} with {@code remaining = dueAt - now}:
 * <ol>
 *   <li>{@code remaining <= 0}: to its target at once;
 *   <li>else into the longest tier not longer than {@code remaining + slack};
 *   <li>else (less than the shortest tier remains): to its target at {@code dueAt}, held until then.
 * </ol>
 * A record leaving tier D at its append time + D is routed again by what then remains, so tiers
 * chain to any delay (a day with tiers up to 30m is 48 hops of 30m). The target is only ever chosen
 * when it is reached at or after {@code dueAt}: a record is never early. Tiers are only a way to
 * wait cheaply; choosing one is never what makes a record early, since every tier is at most
 * {@code remaining + slack} long and a forwarder releases a record at {@code min(append + D, dueAt)}.
 *
 * <p>The {@code slack} absorbs the few milliseconds each hop takes (fetch, produce, commit): without
 * it a record planned for 2s + 500ms would find 500ms minus a few ms left after the 2s tier, miss the
 * 500ms tier and end up held for almost the shortest tier at the head of some partition, delaying the
 * records behind it. With it the planned tier is kept and the record leaves that tier at its due time.
 *
 * <p>Number of tier hops for a delay d (tiers T1 < ... < Tn = M, slack s): while
 * {@code remaining + s >= M} every hop removes at least M, so at most {@code floor((d + s) / M)} of
 * them; while {@code remaining + s} lies in [Ti, Ti+1) every hop into Ti removes at least Ti, so at most
 * {@code ceil(Ti+1 / Ti) - 1}; plus the final hop to the target. See {@link #maxHops(long)}.
 */
public final class TierRouter {
  private final List<Duration> tiers;
  private final long[] tierMs;
  private final long slackMs;

  /**
   * @param tiers strictly increasing positive delays (as {@code Durations.parseList} returns them)
   * @param slack how much longer than the remaining delay a chosen tier may be; less than the shortest tier
   */
  public TierRouter(List<Duration> tiers, Duration slack) {
    if (tiers == null || tiers.isEmpty()) {
      throw new IllegalArgumentException("at least one delay tier is needed");
    }
    this.tiers = List.copyOf(tiers);
    this.tierMs = new long[tiers.size()];
    for (int i = 0; i < tierMs.length; i++) {
      long ms = tiers.get(i).toMillis();
      if (ms <= 0 || (i > 0 && ms <= tierMs[i - 1])) {
        throw new IllegalArgumentException("delay tiers must be positive and strictly increasing: " + tiers);
      }
      tierMs[i] = ms;
    }
    this.slackMs = slack.toMillis();
    if (slackMs < 0 || slackMs >= tierMs[0]) {
      throw new IllegalArgumentException(
          "route slack must be >= 0 and shorter than the shortest tier (" + tiers.get(0) + "), got " + slack);
    }
  }

  public List<Duration> tiers() {
    return tiers;
  }

  public Duration shortest() {
    return tiers.get(0);
  }

  public Duration slack() {
    return Duration.ofMillis(slackMs);
  }

  /** The next step of a record due at {@code dueAt}, at time {@code now} (both epoch ms). */
  public Route route(long dueAt, long now) {
    long remaining = dueAt - now;
    if (remaining <= 0) {
      return new Route.Target(dueAt);
    }
    int i = longestTierWithin(remaining);
    return i < 0 ? new Route.Target(dueAt) : new Route.Tier(tiers.get(i));
  }

  /**
   * The tiers a record with {@code delayMs} to go passes through if every hop took no time: the
   * sequence {@link #route} picks. Their sum is at most {@code delayMs + slack}.
   */
  public List<Duration> plan(long delayMs) {
    List<Duration> path = new ArrayList<>();
    long remaining = delayMs;
    for (int i = remaining > 0 ? longestTierWithin(remaining) : -1; i >= 0;
        i = remaining > 0 ? longestTierWithin(remaining) : -1) {
      path.add(tiers.get(i));
      remaining -= tierMs[i];
    }
    return path;
  }

  /**
   * When and where a client writes a record due at {@code dueAt}, at {@code now}.
   *
   * <p>Tiers can only add up to sums of their delays; what is left over (less than the shortest tier)
   * has to be waited somewhere. A forwarder can only wait at the head of a partition, which delays every
   * record behind the head, so the client waits it before the first write instead, minus
   * {@code hopAllowance} per planned hop to pay for the time hops take. Whatever the allowance leaves
   * over is held by the last forwarder, a few milliseconds at most when hops take about the allowance.
   * A delay shorter than the shortest tier is waited in full and written to the target at its due time.
   */
  public FirstHop firstHop(long dueAt, long now, Duration hopAllowance) {
    Route route = route(dueAt, now);
    if (route instanceof Route.Target target) {
      return new FirstHop(Math.max(now, target.notBefore()), route);
    }
    long delay = dueAt - now;
    List<Duration> path = plan(delay);
    long sum = path.stream().mapToLong(Duration::toMillis).sum();
    long residual = delay - sum;
    long reserve = path.size() * hopAllowance.toMillis();
    long sendAt = now + Math.max(0, residual - reserve);
    return new FirstHop(sendAt, route(dueAt, sendAt));
  }

  /** Upper bound on the hops (tier hops plus the final one to the target) of a {@code delayMs} delay. */
  public long maxHops(long delayMs) {
    long max = tierMs[tierMs.length - 1];
    long hops = Math.max(0, delayMs + slackMs) / max + 1;
    for (int i = 0; i + 1 < tierMs.length; i++) {
      hops += ceilDiv(tierMs[i + 1], tierMs[i]) - 1;
    }
    return hops;
  }

  /** The latest time not after {@code dueAt} that tiers alone reach exactly from {@code now}: now + the plan's sum, capped at dueAt. */
  public long alignedDueAt(long dueAt, long now) {
    long sum = plan(dueAt - now).stream().mapToLong(Duration::toMillis).sum();
    return Math.min(dueAt, now + sum);
  }

  /** A client's first write: at {@code sendAt} (epoch ms) along {@code route}. */
  public record FirstHop(long sendAt, Route route) {}

  private int longestTierWithin(long remaining) {
    long reach = remaining + slackMs;
    for (int i = tierMs.length - 1; i >= 0; i--) {
      if (tierMs[i] <= reach) {
        return i;
      }
    }
    return -1;
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }
}
