package dev.ordo.topology.internal;

import dev.ordo.schema.Item;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.internal.NamespaceRules.RateLimit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Whether a lease may go now, past the gates that only time or an ended lease opens: a namespace's
 * dispatch rate ({@link DispatchLimit}, this partition's share of it), a group's concurrency limit and a
 * group's rate ({@link GroupRates}, docs/queue.md, "Group rates"). Owns those buckets, soft state, and
 * the topics whose open demand waits at a gate, which each timer run offers to dispatch again once it
 * opens ({@link #offerThrottled}, {@link #offerRateWaits}).
 */
final class RateGates {
  private final PolicyRules rules;
  private final DemandBook demands;
  private final NamespaceLoad load;
  private final int partition;
  private final DispatchLimit dispatchLimit = new DispatchLimit();
  /** Per-group rates (docs/queue.md, "Group rates"): a token bucket per group leasing under one, soft state. */
  private final GroupRates groupRates = new GroupRates();
  /**
   * (namespace, topic) pairs whose open demand waits for the namespace's dispatch rate: each timer run
   * offers them to dispatch again once a lease is allowed.
   */
  private final Set<TopicRef> throttled = new LinkedHashSet<>();
  /**
   * (namespace, topic) pairs that had a group passed over at its rate while a demand waited, with the
   * earliest time one of those groups may lease again: each timer run offers them to dispatch then.
   */
  private final Map<TopicRef, Long> rateWaits = new LinkedHashMap<>();
  /** The rate of the group last let through by {@link #groupHeld} (null: none): the lease takes a token of it. */
  private Rate heldRate;

  /** @param load what the other partitions report of each namespace (for shares of its dispatch rate) */
  RateGates(PolicyRules rules, DemandBook demands, NamespaceLoad load, int partition) {
    this.rules = rules;
    this.demands = demands;
    this.load = load;
    this.partition = partition;
  }

  /**
   * How many of {@code wanted} leases the namespace's dispatch rate allows now ({@code wanted} without
   * a rate). Its share is taken from the ready counts here and on the other partitions.
   */
  int allowance(Plan plan, String namespace, int wanted) {
    Plan.Allowance a = plan.allowances == null ? null : plan.allowances.get(namespace);
    if (a == null) {
      NamespacePolicy policy = rules.policy(namespace);
      if (policy == null || policy.getDispatchRate() == null) {
        if (dispatchLimit.buckets() > 0) {
          dispatchLimit.forget(namespace);
        }
        return wanted;
      }
      RateLimit rate = rules.of(namespace).dispatchRate();
      double share = DispatchLimit.share(plan.view.namespaceCounts(namespace).ready(),
          load.others(namespace, partition, plan.now).ready());
      a = new Plan.Allowance(rate, share);
      a.left = dispatchLimit.available(namespace, rate, share, plan.now);
      if (plan.allowances == null) {
        plan.allowances = new HashMap<>();
      }
      plan.allowances.put(namespace, a);
    }
    return (int) Math.min(wanted, a.left);
  }

  /** The open demand on {@code topic} waits for its namespace's dispatch rate: offered again once a lease is allowed. */
  void throttled(String namespace, String topic) {
    throttled.add(new TopicRef(namespace, topic));
  }

  /**
   * Why an item of {@code group} may not be leased now: {@link QueueMetrics#GROUP_LIMITED} (its
   * concurrency limit is leased), {@link QueueMetrics#GROUP_RATE_LIMITED} (its rate has no token: the
   * topic is offered again when it has, {@link #offerRateWaits}), each counted; or null, and
   * {@link #heldRate} is the group's rate (null: none), for the lease to take a token of. One policy
   * read, as the limit alone took.
   */
  String groupHeld(Plan plan, String namespace, String group, String topic) {
    heldRate = null;
    NamespacePolicy policy = rules.policy(namespace);
    if (policy == null) {
      return null;
    }
    if (atGroupLimit(plan, namespace, group, rules.groupLimit(namespace, policy, group))) {
      plan.effects.count(QueueMetrics.GROUP_LIMITED);
      return QueueMetrics.GROUP_LIMITED;
    }
    if (policy.getGroupRate() == null && policy.getGroupRateOverrides() == null) {
      return null; // no group rates in the namespace: nothing more per item (an empty map is looked in once)
    }
    Rate rate = rules.groupRate(namespace, policy, group); // with shards, this partition's part
    long now = plan.now;
    if (rate != null && !groupRates.mayLease(namespace, group, rate, now)) {
      plan.effects.count(QueueMetrics.GROUP_RATE_LIMITED);
      plan.effects.groupRateWait(namespace, topic);
      long wait = Math.max(1, groupRates.msUntilOne(namespace, group, rate, now));
      long due = wait > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + wait;
      rateWaits.merge(new TopicRef(namespace, topic), due, Math::min);
      return QueueMetrics.GROUP_RATE_LIMITED;
    }
    heldRate = rate;
    return null;
  }

  /**
   * False only when {@code group} has a rate (its part on this partition) without a token now: an item of it
   * becoming READY then goes straight into the group's queue. A group with a rate and a token is laid out
   * flat like a group without one (decisions D61, point 4): a rate that does not bind costs nothing in the
   * store, and a flat item that dispatch meets over the rate is moved into the queue then, once.
   */
  boolean rateOpen(String namespace, NamespacePolicy policy, String group, long now) {
    if (!PolicyRules.hasGroupRates(policy)) {
      return true;
    }
    Rate rate = rules.groupRate(namespace, policy, group);
    return rate == null || groupRates.wouldLease(namespace, group, rate, now);
  }

  /** The rate of the group {@link #groupHeld} last let through (null: none). */
  Rate heldRate() {
    return heldRate;
  }

  /** True when the group has {@code limit} items leased (with this plan's leases); false for no limit (null). */
  private boolean atGroupLimit(Plan plan, String namespace, String group, Integer limit) {
    if (limit == null) {
      return false;
    }
    long leased = plan.view.groupLeased(namespace, group);
    if (plan.leasedPerGroup != null) {
      leased += plan.leasedPerGroup.getOrDefault(new Plan.GroupRef(namespace, group), 0);
    }
    return leased >= limit;
  }

  /** The plan leased {@code item}: one more lease of its group, one less its namespace's dispatch rate allows. */
  void leased(Plan plan, Item item) {
    if (item.getGroupKey() != null) {
      if (plan.leasedPerGroup == null) {
        plan.leasedPerGroup = new HashMap<>();
      }
      plan.leasedPerGroup.merge(new Plan.GroupRef(item.getNamespace(), item.getGroupKey()), 1, Integer::sum);
    }
    Plan.Allowance a = plan.allowances == null ? null : plan.allowances.get(item.getNamespace());
    if (a != null) {
      a.left--;
      dispatchLimit.take(item.getNamespace(), a.rate(), a.share(), 1, plan.now);
    }
  }

  /** A lease of {@code group} let through at {@code rate} ({@link #heldRate}) takes a token of it. */
  void tokenTaken(String namespace, String group, Rate rate, long now) {
    groupRates.leased(namespace, group, rate, now);
  }

  /** Topics whose demand waited for a dispatch rate go to dispatch again once a lease is allowed. */
  void offerThrottled(Plan plan) {
    for (var it = throttled.iterator(); it.hasNext(); ) {
      TopicRef nsTopic = it.next();
      if (demands.wanting(nsTopic.namespace(), nsTopic.topic()).isEmpty()) {
        it.remove(); // the demand lapsed or was served elsewhere
      } else if (allowance(plan, nsTopic.namespace(), 1) > 0) {
        it.remove();
        plan.effects.topicReady(nsTopic.namespace(), nsTopic.topic());
      }
    }
  }

  /** Topics that had a group passed at its rate go to dispatch again once one of those groups may lease. */
  void offerRateWaits(Plan plan) {
    for (var it = rateWaits.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      TopicRef nsTopic = e.getKey();
      if (demands.wanting(nsTopic.namespace(), nsTopic.topic()).isEmpty()) {
        it.remove(); // the demand lapsed or was served
      } else if (e.getValue() <= plan.now || !PolicyRules.hasGroupRates(rules.policy(nsTopic.namespace()))) {
        it.remove(); // a token is back, or the policy lifted its group rates
        plan.effects.topicReady(nsTopic.namespace(), nsTopic.topic());
      }
    }
  }

  /** True while demand waits for a namespace's dispatch rate or a group's rate: only the passing of time serves it. */
  boolean throttling() {
    return !throttled.isEmpty() || !rateWaits.isEmpty();
  }

  /** The partition's takeover, or the first plan's time: a group's rate bucket made from now on is empty as of it. */
  void started(long now) {
    groupRates.started(now);
  }

  /** Drops the group-rate buckets a fresh one would equal (full ones). */
  void prune(long now) {
    if (groupRates.size() > 0) {
      groupRates.prune(now, rules::groupRate);
    }
  }

  /** Rate buckets held (bounded: {@link GroupRates#MAX_BUCKETS}). */
  int groupRateBuckets() {
    return groupRates.size();
  }

  /** (namespace, topic) pairs waiting for a group's rate to let a lease through. */
  int rateWaits() {
    return rateWaits.size();
  }
}
