package dev.ordo.topology.internal;

import dev.ordo.api.Shards;
import dev.ordo.schema.NamespacePolicy;
import java.util.HashMap;
import java.util.Map;

/**
 * A partition's part of shuffle-sharded groups' concurrency limits (docs/queue.md, "Shuffle sharding";
 * decisions D62). A namespace whose policy sets {@code shards: k} spreads each group key over its own
 * combination of k partitions ({@link Shards#of}); the group's limit L is split over them statically
 * ({@link Shards#limitShare}: the shares sum to L), so the group never has more than L leased across
 * its shards whatever each partition's owner knows of the others. A group with a limit uses at most L
 * shards ({@link Shards#effective}), so each holds at least one lease. A partition that is not one of
 * the group's shards (an item a Kafka-path producer sent elsewhere, or one sent before the policy
 * changed) lets the group lease one at a time there: never stuck, at most one over the limit per such
 * partition while those items drain.
 *
 * <p>The shares are cached per (namespace, group) for the policy object they were made from (a policy
 * change makes a new object), at most {@link #MAX_GROUPS} groups per namespace.
 */
final class GroupShards {
  static final int MAX_GROUPS = 4_096;

  private final int partition;
  private final int partitions;
  private final Map<String, Cache> byNamespace = new HashMap<>();

  private record Cache(NamespacePolicy policy, Map<String, Integer> shares) {}

  GroupShards(int partition, int partitions) {
    this.partition = partition;
    this.partitions = partitions;
  }

  /** True when {@code policy} shards group keys on a queue of several partitions. */
  boolean shards(NamespacePolicy policy) {
    return policy != null && policy.getShards() != null && policy.getShards() > 1 && partitions > 1;
  }

  /** This partition's part of {@code group}'s limit {@code limit} under {@code policy}, which shards ({@link #shards}). */
  int limit(NamespacePolicy policy, String namespace, String group, int limit) {
    Cache cache = byNamespace.get(namespace);
    if (cache == null || cache.policy() != policy) {
      cache = new Cache(policy, new HashMap<>());
      byNamespace.put(namespace, cache);
    }
    Integer known = cache.shares().get(group);
    if (known != null) {
      return known;
    }
    int share = share(policy.getShards(), partitions, partition, group, limit);
    if (cache.shares().size() >= MAX_GROUPS) {
      cache.shares().clear();
    }
    cache.shares().put(group, share);
    return share;
  }

  /** The pure rule: {@code partition}'s part of the group's {@code limit} with {@code shards} over {@code partitions}. */
  static int share(int shards, int partitions, int partition, String group, int limit) {
    int k = Shards.effective(shards, partitions, limit);
    int at = Shards.indexOf(Shards.of(group, k, partitions), partition);
    return at < 0 ? Math.min(1, limit) : Shards.limitShare(limit, k, at);
  }

  /** The shards over which {@code group}'s items of {@code topic} spread (1 for an ordered topic): its weight's divisor. */
  int spread(NamespacePolicy policy, String topic, String group) {
    return Shards.forGroup(policy, topic, group, partitions);
  }
}
