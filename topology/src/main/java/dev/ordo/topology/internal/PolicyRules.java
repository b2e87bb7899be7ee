package dev.ordo.topology.internal;

import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import java.util.HashMap;
import java.util.Map;

/**
 * What the namespace policies say for this partition's planner: a namespace's rules (remade when its
 * policy object changes), a group's concurrency limit and rate (with shuffle sharding, this partition's
 * part of them, decisions D61, D62), whether a topic's groups are ordered (D60), and the topic weights a
 * demand is served by (D59). Its state is the rules last made per namespace and the shards' parts
 * ({@link GroupShards}), both caches of the policies it reads (and never writes).
 */
final class PolicyRules {
  private final Policies policies;
  private final QueueDefaults defaults;
  private final int payloadLimit;
  /** Shuffle-sharded groups' parts of their limits on this partition (decisions D62). */
  private final GroupShards shards;
  /** The rules last made from a namespace's policy, by namespace (remade when its policy object changes). */
  private final Map<String, RulesOf> rules = new HashMap<>();

  private record RulesOf(NamespacePolicy policy, NamespaceRules rules, boolean anyOrdered) {}

  /**
   * @param policies the namespace policies in force (read, never written)
   * @param payloadLimit the server's payload limit ({@code ordo.payload.max.bytes}), a policy's ceiling
   */
  PolicyRules(Policies policies, QueueDefaults defaults, int payloadLimit, GroupShards shards) {
    this.policies = policies;
    this.defaults = defaults;
    this.payloadLimit = payloadLimit;
    this.shards = shards;
  }

  /** The policy of {@code namespace}, or null for none. */
  NamespacePolicy policy(String namespace) {
    return policies.policy(namespace);
  }

  /** The defaults and limits of {@code namespace}: the server's, or its policy's where it sets them. */
  NamespaceRules of(String namespace) {
    NamespacePolicy policy = policies.policy(namespace);
    if (policy == null) {
      rules.remove(namespace);
      return NamespaceRules.of(defaults, payloadLimit, null);
    }
    RulesOf known = rules.get(namespace);
    if (known == null || known.policy() != policy) {
      known = new RulesOf(policy, NamespaceRules.of(defaults, payloadLimit, policy), OrderedGroups.any(policy));
      rules.put(namespace, known);
    }
    return known.rules();
  }

  /** The concurrency limit of a group key in its namespace's policy, or null for none. */
  Integer groupLimit(String namespace, String group) {
    return groupLimit(namespace, policies.policy(namespace), group);
  }

  /**
   * The concurrency limit of a group key under {@code policy}, its namespace's (null: none), or null for
   * none; with shuffle sharding, this partition's part of it.
   */
  Integer groupLimit(String namespace, NamespacePolicy policy, String group) {
    if (policy == null) {
      return null;
    }
    Integer own = policy.getGroupConcurrencyOverrides() == null ? null : policy.getGroupConcurrencyOverrides().get(group);
    Integer limit = own != null ? own : policy.getGroupConcurrency();
    // Shuffle sharding (decisions D62): this partition holds its part of the group's limit.
    if (limit == null || !shards.shards(policy)) {
      return limit;
    }
    return shards.limit(policy, namespace, group);
  }

  /**
   * The rate of a group key in its namespace's policy (docs/queue.md, "Group rates"), or null for none;
   * with shuffle sharding, this partition's part of it.
   */
  Rate groupRate(String namespace, String group) {
    return groupRate(namespace, policies.policy(namespace), group);
  }

  /**
   * The rate of a group key under {@code policy}, its namespace's (null: none), or null for none; with
   * shuffle sharding, this partition's part of it ({@link GroupShards#rateShare}: the parts of the group's
   * shards sum to its rate and its burst, decisions D61, D62).
   */
  Rate groupRate(String namespace, NamespacePolicy policy, String group) {
    Rate rate = groupRate(policy, group);
    if (rate == null || !shards.shards(policy)) {
      return rate;
    }
    return shards.rate(policy, namespace, group);
  }

  /** True when {@code policy} sets a rate for some group ({@code groupRate} or an override). */
  static boolean hasGroupRates(NamespacePolicy policy) {
    return policy != null && (policy.getGroupRate() != null
        || policy.getGroupRateOverrides() != null && !policy.getGroupRateOverrides().isEmpty());
  }

  /**
   * The whole rate of a group key under {@code policy} (null: none): its override, else {@code groupRate};
   * or null, also for a record no policy could hold (written by hand: no positive, finite rate), which
   * limits nothing ({@link dev.ordo.api.Shards#rate}, the rule the producer's choice of shards uses too).
   */
  static Rate groupRate(NamespacePolicy policy, String group) {
    return policy == null ? null : dev.ordo.api.Shards.rate(policy, group);
  }

  /** True when {@code policy} shuffle-shards its groups (decisions D62). */
  boolean shards(NamespacePolicy policy) {
    return shards.shards(policy);
  }

  /** The shards the items of {@code group} of {@code topic} spread over under {@code policy}, which shards. */
  int spread(NamespacePolicy policy, String topic, String group) {
    return shards.spread(policy, topic, group);
  }

  /**
   * True when items of {@code topic} with a group key are taken in as an ordered group's (docs/queue.md,
   * "Ordered groups"): the namespace policy's {@code orderedTopics} entry for the topic, else true for a
   * {@code *.fifo} topic, else its {@code ordered}, else false ({@link OrderedGroups#ordered}). Asked once
   * per grouped item taken in, after {@link #of} for its namespace.
   */
  boolean ordered(String namespace, String topic) {
    RulesOf known = rules.get(namespace); // made by of(namespace) for the item: no second policy read
    if (known == null) {
      return OrderedGroups.fifo(topic); // no policy: a *.fifo topic only
    }
    return (known.anyOrdered() || OrderedGroups.fifo(topic)) && OrderedGroups.ordered(known.policy(), topic);
  }

  /**
   * The topic weights a demand is served by (docs/queue.md, "Topic weights"): its namespace's
   * {@code topicWeights} when the policy sets some and the demand spans several topics ({@code *}, or
   * more than one key); else null, and the demand is served as without weights.
   */
  Map<String, Double> topicWeights(DemandBook.Open open) {
    Map<String, Integer> keys = open.remaining();
    if (keys.size() < 2 && !keys.containsKey(DemandBook.ANY_TOPIC)) {
      return null;
    }
    NamespacePolicy policy = policies.policy(open.namespace());
    Map<String, Double> weights = policy == null ? null : policy.getTopicWeights();
    return weights == null || weights.isEmpty() ? null : weights;
  }
}
