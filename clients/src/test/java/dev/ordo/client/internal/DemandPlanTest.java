package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class DemandPlanTest {
  @Test
  void aStandingBacklogIsAskedForExactlyTheCountFromTheBestHeadsWhateverThePartitionCount() {
    List<DemandPlan.Entry> entries = new ArrayList<>();
    for (int p = 0; p < 32; p++) {
      entries.add(new DemandPlan.Entry(p, "t", 100, p == 7 ? 0 : 5));
    }
    DemandPlan plan = DemandPlan.of(Map.of("t", 50), entries, 32);
    assertTrue(plan.exact());
    assertEquals(50, plan.total(), "N asked, not N x P");
    assertEquals(Set.of(7), plan.partitions(), "the partition with the best head holds enough");

    DemandPlan wide = DemandPlan.of(Map.of("t", 250), entries, 32);
    assertEquals(250, wide.total());
    assertEquals(100, wide.asks().get(7).get("t"), "the best head first, all it holds");
    assertEquals(3, wide.partitions().size(), "then as few others as cover the rest: " + wide.asks());
  }

  /** Decisions D40. */
  @Test
  void theLastServingPartitionGoesFirstAmongEqualHeadsWhileItsOldestItemIsNotTooYoung() {
    List<DemandPlan.Entry> entries = List.of(
        new DemandPlan.Entry(0, "t", 500, 3, 1_000),
        new DemandPlan.Entry(1, "t", 100, 3, 1_400),
        new DemandPlan.Entry(2, "t", 900, 3, 1_200));
    assertEquals(Set.of(2), DemandPlan.of(Map.of("t", 50), entries, 3).partitions(), "no preference: the most ready");
    assertEquals(Set.of(1), DemandPlan.of(Map.of("t", 50), entries, 3, new DemandPlan.Sticky(1, 1_000)).partitions(),
        "partition 1 served last, its oldest 400 ms younger than the oldest: it stays");
    assertEquals(Set.of(2), DemandPlan.of(Map.of("t", 50), entries, 3, new DemandPlan.Sticky(1, 300)).partitions(),
        "items elsewhere waited more than 300 ms longer: the usual order");
    assertEquals(Set.of(2), DemandPlan.of(Map.of("t", 50), entries, 3, new DemandPlan.Sticky(1, 0)).partitions(),
        "0: no preference");
    DemandPlan more = DemandPlan.of(Map.of("t", 300), entries, 3, new DemandPlan.Sticky(1, 1_000));
    assertEquals(Map.of("t", 100), more.asks().get(1), "all the sticky partition holds");
    assertEquals(Map.of("t", 200), more.asks().get(2), "then the usual order");
  }

  @Test
  void theStickyPartitionNeverGoesAheadOfABetterPriority() {
    List<DemandPlan.Entry> entries = List.of(
        new DemandPlan.Entry(0, "t", 10, 1, 5_000),
        new DemandPlan.Entry(1, "t", 100, 3, 1_000));
    DemandPlan plan = DemandPlan.of(Map.of("t", 20), entries, 2, new DemandPlan.Sticky(1, 60_000));
    assertEquals(10, plan.asks().get(0).get("t"), "priority 1 first, all 10");
    assertEquals(10, plan.asks().get(1).get("t"));
    assertEquals(Set.of(0), DemandPlan.of(Map.of("t", 5), entries, 2, new DemandPlan.Sticky(1, 60_000)).partitions());
  }

  @Test
  void aStickyPartitionWithoutAnAgeInItsStatsIsNotPreferredOverOnesWithAnAge() {
    List<DemandPlan.Entry> entries = List.of(
        new DemandPlan.Entry(0, "t", 100, 3, 1_000),
        new DemandPlan.Entry(1, "t", 100, 3));
    assertEquals(Set.of(0), DemandPlan.of(Map.of("t", 5), entries, 2, new DemandPlan.Sticky(1, 60_000)).partitions());
    List<DemandPlan.Entry> noAges = List.of(new DemandPlan.Entry(0, "t", 100, 3), new DemandPlan.Entry(1, "t", 50, 3));
    assertEquals(Set.of(1), DemandPlan.of(Map.of("t", 5), noAges, 2, new DemandPlan.Sticky(1, 1_000)).partitions(),
        "no ages at all (older stats records): stickiness alone");
  }

  @Test
  void whatTheStatsCannotCoverIsAskedOfEveryPartition() {
    DemandPlan plan = DemandPlan.of(Map.of("t", 10), List.of(new DemandPlan.Entry(2, "t", 3, 1)), 4);
    assertFalse(plan.exact());
    assertEquals(Map.of("t", 10), plan.asks().get(2), "its 3 and the 7 uncovered");
    for (int p : List.of(0, 1, 3)) {
      assertEquals(Map.of("t", 7), plan.asks().get(p));
    }
    DemandPlan empty = DemandPlan.of(Map.of("t", 5), List.of(), 3);
    assertFalse(empty.exact());
    assertEquals(Set.of(0, 1, 2), empty.partitions());
  }

  @Test
  void aLongPollAsksEveryPartitionForAShareNotTheWholeCount() {
    DemandPlan wide = DemandPlan.longPoll(Map.of("t", 50), 32);
    assertFalse(wide.exact());
    assertEquals(32, wide.partitions().size(), "items may become ready anywhere");
    assertEquals(Map.of("t", 2), wide.asks().get(31), "ceil(50 / 32)");
    assertTrue(wide.total() < 50 + 32, "about the count in all, not 32 x 50: " + wide.total());
    assertEquals(Map.of("t", 1), DemandPlan.longPoll(Map.of("t", 1), 32).asks().get(5), "at least one each");
    assertEquals(Map.of("t", 5), DemandPlan.longPoll(Map.of("t", 10), 2).asks().get(0));
    assertEquals(Map.of(), DemandPlan.longPoll(Map.of("t", 10), 2).takes(), "it counts on no stats entry");
  }

  @Test
  void aPlanFromTheStatsAsksOnlyWhatTheyShowAndBroadcastsNothing() {
    List<DemandPlan.Entry> entries = List.of(new DemandPlan.Entry(2, "t", 3, 0));
    DemandPlan plan = DemandPlan.fromStats(Map.of("t", 5), entries, 4, DemandPlan.Sticky.NONE);
    assertEquals(Map.of(2, Map.of("t", 3)), plan.asks());
    assertFalse(plan.exact(), "two are not covered");
    assertTrue(DemandPlan.fromStats(Map.of("t", 5), List.of(), 4, DemandPlan.Sticky.NONE).asks().isEmpty());
  }

  @Test
  void anyTopicTakesWhatTheNamedTopicsLeft() {
    List<DemandPlan.Entry> entries = List.of(new DemandPlan.Entry(0, "a", 2, 0), new DemandPlan.Entry(1, "b", 5, 3));
    Map<String, Integer> wanted = new LinkedHashMap<>();
    wanted.put("a", 2);
    wanted.put("*", 3);
    DemandPlan plan = DemandPlan.of(wanted, entries, 2);
    assertTrue(plan.exact());
    assertEquals(Map.of("a", 2), plan.asks().get(0), "a's two are a's, not counted again for *");
    assertEquals(Map.of("*", 3), plan.asks().get(1));
    assertEquals(Map.of("0/a", 2L, "1/b", 3L), plan.takes());
  }

  @Test
  void entriesWithNothingReadyOrOutsideThePartitionsAreIgnored() {
    List<DemandPlan.Entry> entries = List.of(new DemandPlan.Entry(0, "t", 0, 0), new DemandPlan.Entry(9, "t", 50, 0),
        new DemandPlan.Entry(1, "t", 5, 4));
    DemandPlan plan = DemandPlan.of(Map.of("t", 5), entries, 2);
    assertEquals(Map.of(1, Map.of("t", 5)), plan.asks());
  }

  /** Over any stats: never more asked of an entry than it holds while the plan is exact; counts covered; heads in order. */
  @Property(seed = "4242", tries = 500)
  void anExactPlanAsksEachEntryForAtMostWhatItHoldsAndPrefersBetterHeads(
      @ForAll @IntRange(min = 1, max = 16) int partitions,
      @ForAll @IntRange(min = 1, max = 200) int want,
      @ForAll("seeds") long seed) {
    java.util.Random random = new java.util.Random(seed);
    List<DemandPlan.Entry> entries = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      if (random.nextBoolean()) {
        entries.add(new DemandPlan.Entry(p, "t", random.nextInt(40), random.nextInt(5)));
      }
    }
    long ready = entries.stream().mapToLong(DemandPlan.Entry::ready).sum();
    DemandPlan plan = DemandPlan.of(Map.of("t", want), entries, partitions);
    assertEquals(ready >= want, plan.exact());
    if (plan.exact()) {
      assertEquals(want, plan.total());
      Map<Integer, Long> held = new HashMap<>();
      entries.forEach(e -> held.put(e.partition(), e.ready()));
      plan.asks().forEach((p, counts) -> assertTrue(counts.get("t") <= held.get(p), "partition " + p));
      // A partition with a worse head is asked only if every better one was asked for all it holds.
      int worstAsked = plan.asks().keySet().stream().mapToInt(p -> head(entries, p)).max().orElseThrow();
      for (DemandPlan.Entry e : entries) {
        if (e.ready() > 0 && e.headPriority() < worstAsked) {
          assertEquals(e.ready(), (long) plan.asks().get(e.partition()).get("t"), "better head " + e);
        }
      }
    } else {
      assertEquals(partitions, plan.partitions().size(), "uncovered counts go to every partition");
      long uncovered = want - ready;
      for (int p = 0; p < partitions; p++) {
        assertTrue(plan.asks().get(p).get("t") >= uncovered);
      }
    }
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<Long> seeds() {
    return net.jqwik.api.Arbitraries.longs();
  }

  private static int head(List<DemandPlan.Entry> entries, int partition) {
    return entries.stream().filter(e -> e.partition() == partition).mapToInt(DemandPlan.Entry::headPriority)
        .findFirst().orElseThrow();
  }
}
