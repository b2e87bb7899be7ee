package dev.ordo.api;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * Shuffle sharding (docs/queue.md, "Shuffle sharding"; decisions D62): what every producer of the
 * queue and every partition agree on. A namespace policy's {@code shards: k} gives each group key its
 * own combination of k of the items topic's partitions; a producer sends a grouped item to the one of
 * the k with the smallest backlog, and each partition holds the group to its share of the group's
 * concurrency limit and of its rate ({@code groupRate}, decisions D61). Everything here is a pure
 * function of its arguments.
 *
 * <p>The combination ({@link #of}) starts with the partition a group key has without sharding, the
 * murmur2 hash of its UTF-8 bytes modulo the partition count (what Kafka's default partitioner does
 * with the key as record key), so {@code k = 1} is the queue's behaviour without shards and a producer
 * that knows nothing of shards still sends to one of the group's shards. The other {@code k - 1} are
 * drawn without repetition from the remaining partitions by a generator seeded with a second, 64-bit
 * hash of the key: every set of k partitions is equally likely for a random key.
 *
 * <p>A Kafka-path producer (any Kafka client writing {@code <cluster>.items}) picks a grouped item's
 * partition itself: {@code Shards.of(groupKey, k, partitions)} and any of them (the least loaded by
 * {@code <cluster>.topics}, or the first), or {@link #forDedup} for an item with a deduplication ID.
 */
public final class Shards {
  /** The most shards a policy may give a group. */
  public static final int MAX = 32;

  private Shards() {}

  /** Null when {@code shards} is a valid policy value (null, or 1 to {@link #MAX}), else why not, naming the field. */
  public static String problem(String field, Integer shards) {
    if (shards == null || (shards >= 1 && shards <= MAX)) {
      return null;
    }
    return field + " must be between 1 and " + MAX + ", got " + shards;
  }

  /**
   * The shards a group uses: the policy's {@code shards} (null: 1), no more than the partitions, and
   * for a group with a concurrency limit no more than the limit, so that each of its shards holds at
   * least one of its leases ({@link #limitShare}).
   *
   * @param limit the group's concurrency limit, or null for none
   */
  public static int effective(Integer shards, int partitions, Integer limit) {
    return effective(shards, partitions, limit, null);
  }

  /**
   * {@link #effective(Integer, int, Integer)}, and for a group with a rate no more than its burst, so that
   * each of its shards holds at least one token of it ({@link #burstShare}): a shard's bucket needs a
   * capacity of one to lease at all, and the shards' capacities must sum to the burst for the group to get
   * no more than {@code burst + perSecond × t} in any window (decisions D61, D62).
   *
   * @param burst the group's rate's burst (read as at least 1), or null for no rate
   */
  public static int effective(Integer shards, int partitions, Integer limit, Long burst) {
    int k = shards == null ? 1 : Math.max(1, shards);
    k = Math.min(k, Math.max(1, partitions));
    if (limit != null) {
      k = Math.min(k, Math.max(1, limit));
    }
    if (burst != null) {
      k = (int) Math.min(k, Math.max(1, burst));
    }
    return k;
  }

  /**
   * The shards a group key's items of {@code topic} use under a namespace's policy (null: none): 1
   * without {@code shards}, for an ordered topic (an ordered group needs its items on one partition:
   * its home), else {@link #spread}. The ordered rule is the queue's (decisions D60): the topic's
   * {@code orderedTopics} entry, else true for a {@code *.fifo} topic, else {@code ordered}.
   */
  public static int forGroup(dev.ordo.schema.NamespacePolicy policy, String topic, String group, int partitions) {
    if (policy == null || policy.getShards() == null || policy.getShards() <= 1 || partitions <= 1) {
      return 1;
    }
    java.util.Map<String, Boolean> orderedTopics = policy.getOrderedTopics();
    Boolean own = orderedTopics == null || orderedTopics.isEmpty() ? null : orderedTopics.get(topic);
    boolean ordered = own != null ? own : topic.endsWith(".fifo") || Boolean.TRUE.equals(policy.getOrdered());
    if (ordered) {
      return 1;
    }
    return spread(policy, group, partitions);
  }

  /**
   * The shards over which a group key's items of an unordered topic spread under a namespace's policy
   * (null: none), and so the shards that split its concurrency limit and its rate: 1 without
   * {@code shards}, else {@link #effective} with the group's concurrency limit ({@link #limit}) and its
   * rate's burst ({@link #rate}). An ordered topic's items are on the first of these (its home).
   */
  public static int spread(dev.ordo.schema.NamespacePolicy policy, String group, int partitions) {
    if (policy == null || policy.getShards() == null || policy.getShards() <= 1 || partitions <= 1) {
      return 1;
    }
    dev.ordo.schema.Rate rate = rate(policy, group);
    return effective(policy.getShards(), partitions, limit(policy, group), rate == null ? null : rate.getBurst());
  }

  /**
   * The group's rate under the policy (decisions D61): its {@code groupRateOverrides} entry, else
   * {@code groupRate}; null when none, or when it is no rate a policy could hold (written by hand: not a
   * positive, finite {@code perSecond}), which limits nothing.
   */
  public static dev.ordo.schema.Rate rate(dev.ordo.schema.NamespacePolicy policy, String group) {
    java.util.Map<String, dev.ordo.schema.Rate> overrides = policy.getGroupRateOverrides();
    dev.ordo.schema.Rate own = overrides == null || overrides.isEmpty() ? null : overrides.get(group);
    dev.ordo.schema.Rate rate = own != null ? own : policy.getGroupRate();
    return rate == null || !(rate.getPerSecond() > 0) || Double.isInfinite(rate.getPerSecond()) ? null : rate;
  }

  /** The group's concurrency limit under the policy: its override, else {@code groupConcurrency}; null: none. */
  public static Integer limit(dev.ordo.schema.NamespacePolicy policy, String group) {
    java.util.Map<String, Integer> overrides = policy.getGroupConcurrencyOverrides();
    Integer own = overrides == null || overrides.isEmpty() ? null : overrides.get(group);
    return own != null ? own : policy.getGroupConcurrency();
  }

  /** The partition a group key has without shards: its murmur2 hash modulo the partition count (Kafka's). */
  public static int home(String groupKey, int partitions) {
    return Utils.toPositive(Utils.murmur2(groupKey.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  /**
   * The group key's {@code k} shards among {@code partitions} (k is clamped to 1..partitions): distinct
   * partitions, the first its {@link #home}, the rest drawn by a generator seeded with the key's 64-bit
   * FNV-1a hash (a partial Fisher–Yates shuffle of the other partitions). Stable: the same arguments
   * give the same array, in every process and version of the protocol.
   */
  public static int[] of(String groupKey, int k, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
    }
    int n = Math.max(1, Math.min(k, partitions));
    byte[] bytes = groupKey.getBytes(StandardCharsets.UTF_8);
    int home = Utils.toPositive(Utils.murmur2(bytes)) % partitions;
    int[] out = new int[n];
    out[0] = home;
    if (n == 1) {
      return out;
    }
    // The other partitions, as if the home were removed from 0..partitions-1 (index i -> i, or i+1 from the home on).
    int others = partitions - 1;
    int[] perm = new int[others];
    for (int i = 0; i < others; i++) {
      perm[i] = i < home ? i : i + 1;
    }
    long state = fnv1a64(bytes);
    for (int i = 0; i < n - 1; i++) {
      state += 0x9E3779B97F4A7C15L;
      int j = i + (int) Long.remainderUnsigned(mix(state), others - i);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
      out[i + 1] = perm[i];
    }
    return out;
  }

  /** The index of {@code partition} in {@code shards}, or -1 when it is not one of them. */
  public static int indexOf(int[] shards, int partition) {
    for (int i = 0; i < shards.length; i++) {
      if (shards[i] == partition) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The producer's choice: the shard with the smallest backlog, ties (and a producer that knows no
   * backlog yet: all 0) going to the earlier in the combination, so the home first.
   *
   * @param backlogs the backlog of each shard, in the order of {@code shards}
   */
  public static int choose(int[] shards, long[] backlogs) {
    int best = 0;
    for (int i = 1; i < shards.length; i++) {
      if (backlogs[i] < backlogs[best]) {
        best = i;
      }
    }
    return shards[best];
  }

  /**
   * The shard of a grouped item with a deduplication ID: chosen by the hash of its namespace, topic
   * and ID ({@link Dedup#routingKey}), never by backlog, so that its duplicates meet it on one
   * partition (decisions D57, D62).
   */
  public static int forDedup(int[] shards, String namespace, String topic, String dedupId) {
    if (shards.length == 1) {
      return shards[0];
    }
    int h = Utils.toPositive(Utils.murmur2(Dedup.routingKey(namespace, topic, dedupId)));
    return shards[h % shards.length];
  }

  /**
   * The part of a group's concurrency limit that its shard at {@code index} (of {@code k}) holds: the
   * limit split as evenly as it goes, the first {@code limit % k} shards one more; the shares sum to the
   * limit, so the group never has more leased at once across its shards than the limit.
   */
  public static int limitShare(int limit, int k, int index) {
    return limit / k + (index < limit % k ? 1 : 0);
  }

  /**
   * The part of a group's rate burst that its shard at {@code index} (of {@code k}) holds, as
   * {@link #limitShare} splits a limit: the shares sum to the burst (read as at least 1), and with
   * {@code k <= burst} ({@link #effective}) each is at least 1.
   */
  public static long burstShare(long burst, int k, int index) {
    long b = Math.max(1, burst);
    return b / k + (index < b % k ? 1 : 0);
  }

  private static long fnv1a64(byte[] bytes) {
    long h = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  /** SplitMix64's finalizer. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
