package dev.ordo.topology.internal;

import dev.ordo.topology.internal.NamespaceRules.RateLimit;
import java.util.HashMap;
import java.util.Map;

/**
 * A namespace's dispatch rate on one partition: how many of its items may be leased now. Pure: the
 * time, the rules and the namespace's ready counts (here and on the other partitions) are passed in;
 * its soft state is one token bucket per rate-limited namespace, full after a restart.
 *
 * <p>The rate holds across the namespace's partitions. A partition takes the share of it that its
 * ready items are of the namespace's ({@code ready here / ready everywhere}, the others' from their
 * stats, docs/decisions/0022-namespace-rates-shared-by-demand.md), so a namespace whose backlog sits on one partition gets its whole
 * rate there. A partition with nothing ready leases only what arrives while a demand waits; once an
 * item stays ready there, its share grows.
 */
final class DispatchLimit {
  private final Map<String, TokenBucket> buckets = new HashMap<>();

  /** Whole leases {@code namespace} may take now at its {@code share} of {@code rate}. Takes nothing. */
  long available(String namespace, RateLimit rate, double share, long now) {
    return bucket(namespace, rate, share, now).available(rate.perSecond() * share, capacity(rate, share), now);
  }

  /** Records {@code n} leases of {@code namespace} (no more than {@link #available} at the same {@code now}). */
  void take(String namespace, RateLimit rate, double share, long n, long now) {
    bucket(namespace, rate, share, now).take(n, rate.perSecond() * share, capacity(rate, share), now);
  }

  /** Forgets the bucket of a namespace that lost its dispatch rate (bounded soft state). */
  void forget(String namespace) {
    buckets.remove(namespace);
  }

  /** This partition's share of the rate, in (0, 1]. */
  static double share(long readyHere, long readyOthers) {
    long all = readyHere + readyOthers;
    return all <= 0 || readyHere >= all ? 1 : Math.max((double) readyHere / all, 1e-6);
  }

  private static double capacity(RateLimit rate, double share) {
    return Math.max(1, rate.burst() * share);
  }

  private TokenBucket bucket(String namespace, RateLimit rate, double share, long now) {
    return buckets.computeIfAbsent(namespace, ns -> new TokenBucket(capacity(rate, share), now));
  }

  int buckets() {
    return buckets.size();
  }
}
