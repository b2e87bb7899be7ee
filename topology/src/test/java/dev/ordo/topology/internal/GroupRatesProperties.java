package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.Shards;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * Per-group rates alone (docs/queue.md, "Group rates"; decisions D61): a bucket per group, never more
 * than {@code burst + rate × t} leases of a group in any window, takeovers (a new instance, buckets
 * empty as of then), evictions and prunes included; a group under its rate is never held, whatever the
 * others do; the state is bounded. With shuffle sharding (decisions D62), the same bound across the
 * group's shards: each partition holds its part of the rate and the burst ({@link GroupShards#rateShare}).
 */
class GroupRatesProperties {
  /** A step: time passes, then a group asks for up to {@code wanted} leases; sometimes a takeover or a prune first. */
  record Step(long advanceMs, int group, int wanted, int event) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(Arbitraries.longs().between(0, 1_500), Arbitraries.integers().between(0, 5),
            Arbitraries.integers().between(0, 6), Arbitraries.integers().between(0, 19))
        .as(Step::new).list().ofMinSize(1).ofMaxSize(300);
  }

  @Property(seed = "42")
  void noWindowHoldsMoreThanBurstPlusRateTimesItsLengthAcrossTakeoversEvictionsAndPrunes(
      @ForAll("steps") List<Step> steps, @ForAll @DoubleRange(min = 0.2, max = 200) double perSecond,
      @ForAll @IntRange(min = 1, max = 20) int burst, @ForAll @IntRange(min = 1, max = 8) int maxBuckets) {
    Rate rate = new Rate(perSecond, (long) burst);
    long now = 1_000_000;
    GroupRates rates = new GroupRates(maxBuckets);
    rates.started(now);
    Map<Integer, List<Long>> leases = new HashMap<>();
    for (Step s : steps) {
      now += s.advanceMs();
      if (s.event() == 0) {
        rates = new GroupRates(maxBuckets); // a failover: the new owner knows nothing of the old buckets
        rates.started(now);
      } else if (s.event() == 1) {
        rates.prune(now, (ns, g) -> rate);
      } else if (s.event() == 2) {
        rates.prune(now, (ns, g) -> g.equals("g0") ? null : rate); // g0's rate lifted for a moment: kept till full
      }
      String group = "g" + s.group();
      for (int i = 0; i < s.wanted() && rates.mayLease("ns", group, rate, now); i++) {
        rates.leased("ns", group, rate, now);
        leases.computeIfAbsent(s.group(), g -> new ArrayList<>()).add(now);
      }
      assertTrue(rates.size() <= maxBuckets, "buckets " + rates.size() + " > " + maxBuckets);
    }
    for (Map.Entry<Integer, List<Long>> e : leases.entrySet()) {
      List<Long> times = e.getValue();
      for (int i = 0; i < times.size(); i++) {
        for (int j = i; j < times.size(); j++) {
          long count = j - i + 1;
          double bound = burst + perSecond * (times.get(j) - times.get(i)) / 1000.0;
          assertTrue(count <= bound + 1e-6, "group g" + e.getKey() + ": " + count + " leases in "
              + (times.get(j) - times.get(i)) + " ms, more than " + bound);
        }
      }
    }
  }

  /**
   * Shuffle sharding splits a group's rate over its shards: on the partitions of its shards
   * ({@link Shards#spread}: at most its burst of them) the parts sum to its rate and its burst, each
   * holding at least one token, and its limit's parts to its limit; off them, one shard's rate with a burst
   * of 1. Then each shard's bucket leasing as fast as it may (on its own partition, knowing nothing of
   * the others) gives the group at most {@code burst + perSecond × t} leases in every window of length t.
   */
  @Property(seed = "42")
  void aShardedGroupsRateIsSplitSoItsShardsTogetherKeepIt(@ForAll @IntRange(min = 2, max = 32) int shards,
      @ForAll @IntRange(min = 2, max = 64) int partitions, @ForAll @IntRange(min = 1, max = 40) int burst,
      @ForAll @DoubleRange(min = 0.1, max = 50) double perSecond, @ForAll @IntRange(min = 0, max = 40) int limit,
      @ForAll @IntRange(min = 0, max = 1_000_000) int key, @ForAll("advances") List<Long> advances) {
    String group = "g" + key;
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setShards(shards)
        .setGroupRate(new Rate(perSecond, (long) burst)).setGroupConcurrency(limit == 0 ? null : limit).build();
    int k = Shards.spread(policy, group, partitions);
    assertTrue(k >= 1 && k <= burst && k <= shards && k <= partitions && (limit == 0 || k <= limit), "k " + k);
    int[] own = Shards.of(group, k, partitions);
    List<GroupShards.Part> onShards = new ArrayList<>();
    List<GroupShards.Part> offShards = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      (Shards.indexOf(own, p) < 0 ? offShards : onShards).add(GroupShards.part(policy, partitions, p, group));
    }

    // Each shard's own bucket (its own planner), leasing all it may at each step: the group's leases by time.
    List<GroupRates> buckets = new ArrayList<>();
    for (int i = 0; i < onShards.size(); i++) {
      GroupRates r = new GroupRates();
      r.started(0); // every shard's bucket fills from the same moment: the most at once they can give together
      buckets.add(r);
    }
    TreeMap<Long, Integer> leasesAt = new TreeMap<>();
    long now = 0;
    for (long advance : advances) {
      now += advance;
      for (int i = 0; i < onShards.size(); i++) {
        Rate part = onShards.get(i).rate();
        while (buckets.get(i).mayLease("ns", group, part, now)) {
          buckets.get(i).leased("ns", group, part, now);
          leasesAt.merge(now, 1, Integer::sum);
        }
      }
    }
    List<Map.Entry<Long, Integer>> byTime = new ArrayList<>(leasesAt.entrySet());
    for (int i = 0; i < byTime.size(); i++) {
      long count = 0;
      for (int j = i; j < byTime.size(); j++) {
        count += byTime.get(j).getValue();
        long window = byTime.get(j).getKey() - byTime.get(i).getKey();
        double bound = burst + perSecond * window / 1000.0;
        assertTrue(count <= bound + 1e-6, count + " leases across " + onShards.size() + " shards within " + window
            + " ms, more than " + bound);
      }
    }

    long bursts = 0;
    double rates = 0;
    int limits = 0;
    for (GroupShards.Part part : onShards) {
      assertTrue(part.rate().getBurst() >= 1, "every shard of the group may lease");
      bursts += part.rate().getBurst();
      rates += part.rate().getPerSecond();
      limits += limit == 0 ? 0 : part.limit();
    }
    assertEquals(burst, bursts, "the bursts of the shards sum to the group's: all of it usable");
    assertEquals(perSecond, rates, perSecond * 1e-9, "the rates of the shards sum to the group's: all of it usable");
    assertEquals(limit, limits, "and so do the limits");
    for (GroupShards.Part part : offShards) {
      assertEquals(new Rate(perSecond / k, 1L), part.rate(), "off the group's shards: one at a time, a shard's rate");
      assertEquals(limit == 0 ? null : 1, part.limit());
    }
  }

  @Provide
  Arbitrary<List<Long>> advances() {
    return Arbitraries.longs().between(0, 3_000).list().ofMinSize(1).ofMaxSize(60);
  }

  @Property(seed = "42")
  void aGroupUnderItsRateIsNeverHeldWhateverTheOthersDo(@ForAll @DoubleRange(min = 0.5, max = 100) double perSecond,
      @ForAll @IntRange(min = 1, max = 10) int burst, @ForAll @IntRange(min = 0, max = 20) int hogs,
      @ForAll @IntRange(min = 1, max = 20) int everyTicks) {
    Rate rate = new Rate(perSecond, (long) burst);
    long start = 0;
    GroupRates rates = new GroupRates(hogs + 2); // room for every group: nothing evicted
    rates.started(start);
    long gapMs = (long) Math.ceil(1000.0 / perSecond); // the calm group asks no more often than its rate
    long now = start + (long) Math.ceil(burst * 1000.0 / perSecond); // past the takeover's warm-up
    long nextCalm = now;
    int tick = 0;
    while (now < start + 20_000) {
      for (int h = 0; h < hogs; h++) { // groups asking far above the same rate
        while (rates.mayLease("ns", "hog" + h, rate, now)) {
          rates.leased("ns", "hog" + h, rate, now);
        }
      }
      if (now >= nextCalm && tick % everyTicks == 0) {
        assertTrue(rates.mayLease("ns", "calm", rate, now), "the calm group was held at " + now);
        rates.leased("ns", "calm", rate, now);
        nextCalm = now + gapMs;
      }
      now += 7;
      tick++;
    }
  }

  @Property(seed = "42")
  void theStateIsBoundedAndQuietGroupsAreForgotten(@ForAll @IntRange(min = 1, max = 64) int maxBuckets,
      @ForAll @IntRange(min = 1, max = 2_000) int groups, @ForAll @DoubleRange(min = 0.5, max = 50) double perSecond) {
    Rate rate = new Rate(perSecond, 3L);
    GroupRates rates = new GroupRates(maxBuckets);
    long now = 0;
    rates.started(now);
    for (int g = 0; g < groups; g++) {
      now += 1;
      if (rates.mayLease("ns", "g" + g, rate, now)) {
        rates.leased("ns", "g" + g, rate, now);
      }
      assertTrue(rates.size() <= maxBuckets);
    }
    now += (long) Math.ceil(3 * 1000.0 / perSecond) + 1; // every bucket full again
    rates.prune(now, (ns, g) -> rate);
    assertEquals(0, rates.size(), "full buckets are as fresh ones: all forgotten");
  }

  @Example
  void aBucketStartsEmptyAsOfTheTakeoverAndFillsAtItsRate() {
    Rate twoASecond = new Rate(2.0, 4L);
    GroupRates rates = new GroupRates();
    rates.started(10_000);
    assertFalse(rates.mayLease("ns", "a", twoASecond, 10_000), "no burst right after a takeover");
    assertEquals(500, rates.msUntilOne("ns", "a", twoASecond, 10_000));
    assertTrue(rates.mayLease("ns", "a", twoASecond, 10_500));
    int taken = 0;
    while (rates.mayLease("ns", "b", twoASecond, 13_000)) { // a group first seen 3 s after: its whole burst
      rates.leased("ns", "b", twoASecond, 13_000);
      taken++;
    }
    assertEquals(4, taken);
    rates.started(20_000);
    assertTrue(rates.mayLease("ns", "c", twoASecond, 12_000), "a second call to started changes nothing");
  }

  @Example
  void anEvictedGroupComesBackWithNoMoreThanItHad() {
    Rate rate = new Rate(1.0, 5L);
    GroupRates rates = new GroupRates(1);
    rates.started(0);
    long now = 10_000; // both buckets would be full
    for (int i = 0; i < 5; i++) {
      rates.leased("ns", "a", rate, now); // a emptied
    }
    assertFalse(rates.mayLease("ns", "a", rate, now));
    assertFalse(rates.mayLease("ns", "b", rate, now), "b made, a evicted: b starts empty as of the eviction");
    assertFalse(rates.mayLease("ns", "a", rate, now), "a again: empty, as it was, not a fresh burst");
    assertTrue(rates.mayLease("ns", "a", rate, now + 1_000), "and fills at its rate");
  }
}
