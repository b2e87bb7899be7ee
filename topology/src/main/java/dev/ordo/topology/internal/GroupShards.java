package dev.ordo.topology.internal;

import dev.ordo.api.Shards;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import java.util.HashMap;
import java.util.Map;

/**
 * A partition's part of shuffle-sharded groups' concurrency limits and rates (docs/queue.md, "Shuffle
 * sharding" and "Group rates"; decisions D61, D62). A namespace whose policy sets {@code shards: k}
 * spreads each group key over its own combination of k partitions ({@link Shards#of}); the group's limit
 * L and its rate ({@code perSecond}, {@code burst}) are split over them statically, so the group never
 * has more than L leased, nor more than {@code burst + perSecond × t} leases in any window of length t,
 * across its shards, whatever each partition's owner knows of the others:
 *
 * <ul>
 *   <li>the limit: {@link Shards#limitShare} (the shares sum to L);
 *   <li>the rate ({@link #rateShare}): each shard {@code perSecond / k} (the producer spreads a group's
 *       items evenly by backlog, so its shards drain at the same pace) and {@link Shards#burstShare} of
 *       the burst (the shares sum to the burst). Each shard's bucket admits at most {@code burst_i +
 *       perSecond / k × t} in a window, and these sum to {@code burst + perSecond × t}.
 * </ul>
 *
 * A group uses at most L shards, and at most {@code burst} shards ({@link Shards#spread}), so each shard
 * holds at least one lease and one token: no item waits on a shard that could never lease it. A
 * partition that is not one of the group's shards (an item a Kafka-path producer sent elsewhere, or one
 * sent before the policy changed) lets the group lease one at a time there, at one shard's rate with a
 * burst of 1: never stuck, and while those items drain at most one lease over the limit and
 * {@code 1 + perSecond / k × t} over the rate per such partition.
 *
 * <p>The parts are cached per (namespace, group) for the policy object they were made from (a policy
 * change makes a new object), at most {@link #MAX_GROUPS} groups per namespace.
 */
final class GroupShards {
  static final int MAX_GROUPS = 4_096;

  private final int partition;
  private final int partitions;
  private final Map<String, Cache> byNamespace = new HashMap<>();

  /** This partition's part of a group's limit (null: none) and of its rate (null: none). */
  record Part(Integer limit, Rate rate) {}

  private record Cache(NamespacePolicy policy, Map<String, Part> parts) {}

  GroupShards(int partition, int partitions) {
    this.partition = partition;
    this.partitions = partitions;
  }

  /** True when {@code policy} shards group keys on a queue of several partitions. */
  boolean shards(NamespacePolicy policy) {
    return policy != null && policy.getShards() != null && policy.getShards() > 1 && partitions > 1;
  }

  /** This partition's part of {@code group}'s limit under {@code policy}, which shards ({@link #shards}); null: none. */
  Integer limit(NamespacePolicy policy, String namespace, String group) {
    return part(policy, namespace, group).limit();
  }

  /** This partition's part of {@code group}'s rate under {@code policy}, which shards ({@link #shards}); null: none. */
  Rate rate(NamespacePolicy policy, String namespace, String group) {
    return part(policy, namespace, group).rate();
  }

  private Part part(NamespacePolicy policy, String namespace, String group) {
    Cache cache = byNamespace.get(namespace);
    if (cache == null || cache.policy() != policy) {
      cache = new Cache(policy, new HashMap<>());
      byNamespace.put(namespace, cache);
    }
    Part known = cache.parts().get(group);
    if (known != null) {
      return known;
    }
    Part part = part(policy, partitions, partition, group);
    if (cache.parts().size() >= MAX_GROUPS) {
      cache.parts().clear();
    }
    cache.parts().put(group, part);
    return part;
  }

  /**
   * The pure rule: {@code partition}'s part of {@code group}'s limit and rate under {@code policy} (which
   * shards) over {@code partitions}: the group's shards are {@link Shards#spread} of them, its limit
   * {@link Shards#limit}, its rate {@link Shards#rate}.
   */
  static Part part(NamespacePolicy policy, int partitions, int partition, String group) {
    int k = Shards.spread(policy, group, partitions);
    int index = Shards.indexOf(Shards.of(group, k, partitions), partition);
    Integer limit = Shards.limit(policy, group);
    Rate rate = Shards.rate(policy, group);
    return new Part(limit == null ? null : limitShare(k, index, limit), rate == null ? null : rateShare(k, index, rate));
  }

  /** The shard at {@code index} of the group's {@code k} (-1: not one of them): its part of {@code limit}. */
  static int limitShare(int k, int index, int limit) {
    return index < 0 ? Math.min(1, limit) : Shards.limitShare(limit, k, index);
  }

  /**
   * The shard at {@code index} of the group's {@code k} (-1: not one of them; {@code k} at most the
   * burst, {@link Shards#effective}): its part of {@code rate}, {@code perSecond / k} with
   * {@link Shards#burstShare} of the burst (1 off the group's shards). With one shard, the rate itself.
   */
  static Rate rateShare(int k, int index, Rate rate) {
    if (k <= 1 && index == 0) {
      return rate;
    }
    long burst = index < 0 ? 1 : Shards.burstShare(rate.getBurst(), k, index);
    return new Rate(rate.getPerSecond() / k, burst);
  }

  /** The shards over which {@code group}'s items of {@code topic} spread (1 for an ordered topic): its weight's divisor. */
  int spread(NamespacePolicy policy, String topic, String group) {
    return Shards.forGroup(policy, topic, group, partitions);
  }
}
