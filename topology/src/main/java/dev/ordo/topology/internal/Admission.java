package dev.ordo.topology.internal;

import dev.ordo.store.QueueView;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.internal.NamespaceRules.RateLimit;
import java.util.HashMap;
import java.util.Map;

/**
 * Decides, for one partition, which arriving items of a namespace are admitted and which wait in
 * OVERFLOW, and how many OVERFLOW items may be admitted now: pure code over the store's counts, what
 * the other partitions report ({@link NamespaceLoad}) and the time passed in. Its soft state is one
 * token bucket per rate-limited namespace and the recent arrival rates; after a restart a bucket
 * starts full.
 *
 * <p>A namespace's admission rate and backlog limit hold across all partitions. A partition takes the
 * share of them that its demand is of the namespace's: {@code (overflow + arrivals/s) here / (the same
 * summed over all partitions)}, the others' figures from their stats of at most a second ago, and at
 * least an even split among the partitions with demand. So a namespace active on one partition gets
 * its whole rate there, and a surge spread over all partitions is split evenly. A namespace with overflow admits its arrivals only after its
 * overflow, so OVERFLOW releases in arrival order on each partition.
 */
final class Admission {
  private final int partition;
  private final NamespaceLoad load;
  private final ArrivalRates arrivals;
  private final Map<String, TokenBucket> buckets = new HashMap<>();

  Admission(int partition, NamespaceLoad load, ArrivalRates arrivals) {
    this.partition = partition;
    this.load = load;
    this.arrivals = arrivals;
  }

  /**
   * Whether an item of {@code namespace} arriving now is admitted (taking a token) or waits in
   * OVERFLOW. Call after recording its arrival in the rates.
   */
  boolean admitArrival(String namespace, NamespaceRules rules, QueueView view, long now) {
    if (!rules.limitsAdmission()) {
      buckets.remove(namespace);
      return true;
    }
    TopicCounts mine = view.namespaceCounts(namespace);
    if (mine.overflow() > 0) {
      return false; // older items wait first
    }
    NamespaceLoad.Load others = load.others(namespace, partition, now);
    double share = share(mine, others, namespace, now);
    if (rules.maxBacklog() != null && mine.waiting() + others.waiting() >= rules.maxBacklog()) {
      return false;
    }
    RateLimit rate = rules.admissionRate();
    return rate == null || bucket(namespace, rate, share, now).tryTake(rate.perSecond() * share, capacity(rate, share), now);
  }

  /** How many of the namespace's OVERFLOW items may be admitted now, at most {@code max}; takes their tokens. */
  long admittable(String namespace, NamespaceRules rules, QueueView view, long now, long max) {
    if (!rules.limitsAdmission()) {
      buckets.remove(namespace);
      return max; // the policy went, or lost its limits: everything waiting is admitted
    }
    TopicCounts mine = view.namespaceCounts(namespace);
    NamespaceLoad.Load others = load.others(namespace, partition, now);
    double share = share(mine, others, namespace, now);
    long n = max;
    if (rules.maxBacklog() != null) {
      long room = rules.maxBacklog() - mine.waiting() - others.waiting();
      n = Math.min(n, room <= 0 ? 0 : (long) Math.ceil(room * share));
    }
    RateLimit rate = rules.admissionRate();
    if (rate != null && n > 0) {
      n = bucket(namespace, rate, share, now).take(n, rate.perSecond() * share, capacity(rate, share), now);
    }
    return n;
  }

  /** This partition's share of the namespace's limits, in (0, 1]. */
  double share(String namespace, QueueView view, long now) {
    return share(view.namespaceCounts(namespace), load.others(namespace, partition, now), namespace, now);
  }

  /**
   * The share, at least an even split among the partitions with demand: a partition whose arrivals
   * just began (the sticky partitioner moved to it) has a tiny average yet, and without the floor its
   * first batches went to OVERFLOW while the namespace was well under its rate (measured: 8% of a
   * steady 200/s under a 400/s limit on 4 partitions). The floor can let the namespace exceed its
   * rate by at most 2× while shares are uneven (decisions D22).
   */
  private double share(TopicCounts mine, NamespaceLoad.Load others, String namespace, long now) {
    double here = mine.overflow() + arrivals.perSecond(namespace, now);
    double all = here + others.demand();
    double proportional = all <= 0 || here >= all ? 1 : Math.max(here / all, 1e-6);
    return Math.max(proportional, 1.0 / (others.partitions() + 1));
  }

  /** The bucket's capacity for a share: the burst's share, at least one token (or nothing is ever admitted). */
  private static double capacity(RateLimit rate, double share) {
    return Math.max(1, rate.burst() * share);
  }

  private TokenBucket bucket(String namespace, RateLimit rate, double share, long now) {
    return buckets.computeIfAbsent(namespace, ns -> new TokenBucket(capacity(rate, share), now));
  }

  /** Forgets the buckets of namespaces no longer limited (bounded soft state). */
  void forget(String namespace) {
    buckets.remove(namespace);
  }

  int buckets() {
    return buckets.size();
  }
}
