package dev.ordo.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.utils.Utils;

/**
 * The pure parts of shuffle sharding (decisions D62): the combination, the producer's choice, the limit's
 * split, the rate burst's split (D61).
 */
class ShardsProperties {

  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.strings().ofMinLength(1).ofMaxLength(40);
  }

  @Property
  void aCombinationIsKDistinctPartitionsStartingAtTheKeysHome(@ForAll("keys") String key,
      @ForAll @IntRange(min = 1, max = 40) int k, @ForAll @IntRange(min = 1, max = 200) int partitions) {
    int[] shards = Shards.of(key, k, partitions);
    assertEquals(Math.min(k, partitions), shards.length);
    assertEquals(Utils.toPositive(Utils.murmur2(key.getBytes(java.nio.charset.StandardCharsets.UTF_8))) % partitions,
        shards[0], "the first shard is the partition Kafka's partitioner gives the key");
    Set<Integer> seen = new HashSet<>();
    for (int p : shards) {
      assertTrue(p >= 0 && p < partitions, "in range: " + p);
      assertTrue(seen.add(p), "distinct: " + Arrays.toString(shards));
    }
    assertArrayEquals(shards, Shards.of(key, k, partitions), "stable");
    assertArrayEquals(new int[] {shards[0]}, Shards.of(key, 1, partitions), "k = 1 is the home alone");
  }

  @Property
  void aSmallerKIsAPrefix(@ForAll("keys") String key, @ForAll @IntRange(min = 1, max = 8) int k,
      @ForAll @IntRange(min = 1, max = 64) int partitions) {
    int[] more = Shards.of(key, k + 1, partitions);
    int[] fewer = Shards.of(key, k, partitions);
    assertArrayEquals(fewer, Arrays.copyOf(more, fewer.length), "a group keeps its shards when k shrinks");
  }

  /**
   * Distinct as far as C(n, k) allows: with many more keys than combinations, every combination is
   * someone's, in near-equal numbers; with far more combinations than keys, nearly all keys have their own.
   */
  @Example
  void combinationsCoverEveryChoiceEvenly() {
    Map<Set<Integer>, Integer> counts = new HashMap<>();
    int keys = 28_000;
    for (int i = 0; i < keys; i++) {
      counts.merge(set(Shards.of("tenant-" + i, 2, 8)), 1, Integer::sum);
    }
    assertEquals(28, counts.size(), "every pair of 8 partitions is some group's");
    for (int c : counts.values()) {
      assertTrue(c > 800 && c < 1200, "about 1,000 keys per pair: " + counts);
    }
    Set<Set<Integer>> distinct = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      distinct.add(set(Shards.of("customer-" + i, 3, 64))); // C(64,3) = 41,664
    }
    assertTrue(distinct.size() >= 985, "1,000 keys over 41,664 triples: nearly all their own, got " + distinct.size());
  }

  /** Amazon's point: with 8 partitions and k = 2, most pairs of groups share at most one partition. */
  @Example
  void mostPairsOfKeysShareAtMostOnePartitionOfEight() {
    int keys = 400;
    int[][] shards = new int[keys][];
    for (int i = 0; i < keys; i++) {
      shards[i] = Shards.of("g" + i, 2, 8);
    }
    long pairs = 0;
    long both = 0;
    for (int i = 0; i < keys; i++) {
      for (int j = i + 1; j < keys; j++) {
        pairs++;
        if (set(shards[i]).equals(set(shards[j]))) {
          both++;
        }
      }
    }
    double shareBoth = (double) both / pairs; // 1/28 = 0.036 expected
    assertTrue(shareBoth < 0.05, "pairs sharing both partitions: " + shareBoth);
    // Without shards (k = 1) a pair shares its only partition with probability 1/8.
    long same = 0;
    for (int i = 0; i < keys; i++) {
      for (int j = i + 1; j < keys; j++) {
        if (shards[i][0] == shards[j][0]) {
          same++;
        }
      }
    }
    assertTrue((double) same / pairs > 0.10, "one partition each: about 1/8 of pairs share everything");
  }

  @Property
  void theChoiceIsASmallestBacklogEarliestOnTies(@ForAll @Size(min = 1, max = 8) java.util.List<@LongRange(min = 0, max = 5) Long> loads) {
    int[] shards = new int[loads.size()];
    long[] backlogs = new long[loads.size()];
    for (int i = 0; i < shards.length; i++) {
      shards[i] = 10 + i * 3;
      backlogs[i] = loads.get(i);
    }
    int chosen = Shards.choose(shards, backlogs);
    int at = Shards.indexOf(shards, chosen);
    for (int i = 0; i < shards.length; i++) {
      assertTrue(backlogs[at] <= backlogs[i], "smallest");
      if (i < at) {
        assertTrue(backlogs[i] > backlogs[at], "the earliest of the smallest");
      }
    }
    assertEquals(shards[0], Shards.choose(shards, new long[shards.length]), "no backlog known: the home");
  }

  @Property
  void duplicatesMeetOnOneShardWhateverTheBacklog(@ForAll("keys") String group, @ForAll @IntRange(min = 1, max = 4) int k,
      @ForAll @IntRange(min = 1, max = 16) int partitions, @ForAll @Size(min = 1, max = 20) String dedupId) {
    int[] shards = Shards.of(group, k, partitions);
    int p = Shards.forDedup(shards, "ns", "t", dedupId);
    assertTrue(Shards.indexOf(shards, p) >= 0, "one of the group's shards");
    assertEquals(p, Shards.forDedup(Shards.of(group, k, partitions), "ns", "t", dedupId), "the same for a duplicate");
  }

  @Property
  void theSharesOfALimitSumToItAndDifferByAtMostOne(@ForAll @IntRange(min = 1, max = 1000) int limit,
      @ForAll @IntRange(min = 1, max = 32) int shards, @ForAll @IntRange(min = 1, max = 64) int partitions) {
    int k = Shards.effective(shards, partitions, limit);
    assertTrue(k >= 1 && k <= shards && k <= partitions && k <= limit);
    int sum = 0;
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (int i = 0; i < k; i++) {
      int s = Shards.limitShare(limit, k, i);
      sum += s;
      min = Math.min(min, s);
      max = Math.max(max, s);
    }
    assertEquals(limit, sum, "never more than the limit across the shards, and all of it usable");
    assertTrue(min >= 1, "every shard of the group may lease");
    assertTrue(max - min <= 1);
  }

  @Property
  void theSharesOfABurstSumToItAndEachHoldsAToken(@ForAll @IntRange(min = 1, max = 1000) int burst,
      @ForAll @IntRange(min = 1, max = 32) int shards, @ForAll @IntRange(min = 1, max = 64) int partitions,
      @ForAll @IntRange(min = 0, max = 40) int limit) {
    int k = Shards.effective(shards, partitions, limit == 0 ? null : limit, (long) burst);
    assertTrue(k >= 1 && k <= shards && k <= partitions && k <= burst && (limit == 0 || k <= limit));
    long sum = 0;
    for (int i = 0; i < k; i++) {
      long s = Shards.burstShare(burst, k, i);
      assertTrue(s >= 1, "every shard of the group holds a token: a bucket of capacity 0 could never lease");
      sum += s;
    }
    assertEquals(burst, sum, "never more than the burst across the shards at once, and all of it usable");
  }

  @Example
  void aGroupsRateBurstBoundsItsShards() {
    dev.ordo.schema.NamespacePolicy policy = dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace("ns")
        .setUpdatedAt(0).setShards(4).setGroupRate(new dev.ordo.schema.Rate(0.5, 1L))
        .setGroupRateOverrides(Map.of("big", new dev.ordo.schema.Rate(50.0, 3L), "bad", new dev.ordo.schema.Rate(0.0, 1L)))
        .build();
    assertEquals(1, Shards.forGroup(policy, "t", "small", 8), "a burst of 1: one shard, the home");
    assertEquals(3, Shards.forGroup(policy, "t", "big", 8), "its own burst of 3: three shards");
    assertEquals(4, Shards.forGroup(policy, "t", "bad", 8), "a rate no policy could hold limits nothing");
    assertEquals(null, Shards.rate(policy, "bad"));
    assertEquals(4, Shards.effective(4, 8, null, null));
    assertEquals(2, Shards.effective(4, 8, 5, 2L));
    assertEquals(1, Shards.effective(4, 8, null, 0L), "a burst read as at least 1");
  }

  @Example
  void policyValuesAreNamed() {
    assertEquals(null, Shards.problem("shards", null));
    assertEquals(null, Shards.problem("shards", 1));
    assertEquals(null, Shards.problem("shards", Shards.MAX));
    assertTrue(Shards.problem("shards", 0).startsWith("shards must be between 1 and 32"));
    assertTrue(Shards.problem("shards", 33).startsWith("shards "));
    assertEquals(1, Shards.effective(null, 8, null));
    assertEquals(2, Shards.effective(2, 8, null));
    assertEquals(1, Shards.effective(2, 8, 1), "a limit of 1 leaves one shard: a shard holding 0 could never lease");
    assertEquals(3, Shards.effective(5, 3, null));
  }

  private static Set<Integer> set(int[] shards) {
    Set<Integer> s = new HashSet<>();
    for (int p : shards) {
      s.add(p);
    }
    return s;
  }
}
