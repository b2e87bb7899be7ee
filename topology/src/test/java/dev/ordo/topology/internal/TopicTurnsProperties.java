package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.store.ReadyEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The topic-weights rule ({@link TopicTurns}) alone: pure, over plain ready entries. */
class TopicTurnsProperties {
  private static final String NS = "ns";

  /** A merge over topics each with {@code n} entries at {@code priority}, offsets interleaved by topic. */
  private static TopicTurns.Merge<ReadyEntry> merge(TopicTurns.Share share, Map<String, Integer> priorities, int n,
      Map<ReadyEntry, String> topicOf) {
    TopicTurns.Merge<ReadyEntry> m = new TopicTurns.Merge<>(share, e -> e);
    long offset = 0;
    for (int i = 0; i < n; i++) {
      for (Map.Entry<String, Integer> t : priorities.entrySet()) {
        ReadyEntry e = new ReadyEntry(t.getValue(), false, 0, 1_000, offset++);
        m.add(t.getKey(), e);
        topicOf.put(e, t.getKey());
      }
    }
    return m;
  }

  /** Takes {@code n} entries (leasing each), returning their topics in order. */
  private static List<String> take(TopicTurns.Merge<ReadyEntry> m, TopicTurns.Share share, int n,
      Map<ReadyEntry, String> topicOf) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ReadyEntry e = m.poll();
      if (e == null) {
        break;
      }
      String topic = topicOf.get(e);
      share.leased(topic, e.priority());
      out.add(topic);
    }
    return out;
  }

  @Test
  void weightsThreeToOneGiveThreeItemsAndOneInEveryFour() {
    TopicTurns turns = new TopicTurns();
    Map<String, Double> weights = Map.of("a", 3.0, "b", 1.0);
    TopicTurns.Share share = new TopicTurns.Share(turns, NS, weights, Map.of(), 1_000);
    Map<ReadyEntry, String> topicOf = new HashMap<>();
    Map<String, Integer> topics = new LinkedHashMap<>();
    topics.put("b", 0); // b's entries first in the ready order: weights, not age, decide
    topics.put("a", 0);
    TopicTurns.Merge<ReadyEntry> m = merge(share, topics, 100, topicOf);
    List<String> got = take(m, share, 40, topicOf);
    for (int i = 0; i < 40; i += 4) {
      List<String> turn = got.subList(i, i + 4);
      assertEquals(3, turn.stream().filter("a"::equals).count(), "every four: three of a " + got);
    }
  }

  @Test
  void theTurnsOutliveOneServingSoSingleItemDequeuesShareByWeightToo() {
    TopicTurns turns = new TopicTurns();
    Map<String, Double> weights = Map.of("a", 3.0);
    Map<String, Integer> count = new HashMap<>();
    for (int i = 0; i < 40; i++) {
      TopicTurns.Share share = new TopicTurns.Share(turns, NS, weights, Map.of(), 1);
      Map<ReadyEntry, String> topicOf = new HashMap<>();
      Map<String, Integer> topics = new LinkedHashMap<>();
      topics.put("b", 0); // no weight: 1
      topics.put("a", 0);
      List<String> got = take(merge(share, topics, 2, topicOf), share, 1, topicOf);
      count.merge(got.get(0), 1, Integer::sum);
    }
    assertEquals(30, count.get("a"));
    assertEquals(10, count.get("b"));
  }

  @Test
  void aBetterPriorityComesFirstWhateverTheWeights() {
    TopicTurns turns = new TopicTurns();
    TopicTurns.Share share = new TopicTurns.Share(turns, NS, Map.of("a", 1_000.0), Map.of(), 100);
    Map<ReadyEntry, String> topicOf = new HashMap<>();
    Map<String, Integer> topics = new LinkedHashMap<>();
    topics.put("a", 5);
    topics.put("b", 1);
    List<String> got = take(merge(share, topics, 5, topicOf), share, 10, topicOf);
    assertEquals(List.of("b", "b", "b", "b", "b", "a", "a", "a", "a", "a"), got);
  }

  @Test
  void theFreshLaneComesBeforeTheBacklogLaneWhateverTheWeights() {
    TopicTurns turns = new TopicTurns();
    TopicTurns.Share share = new TopicTurns.Share(turns, NS, Map.of("a", 1_000.0), Map.of(), 100);
    TopicTurns.Merge<ReadyEntry> m = new TopicTurns.Merge<>(share, e -> e);
    ReadyEntry old = new ReadyEntry(0, true, 0, 1, 0);
    ReadyEntry fresh = new ReadyEntry(0, false, 0, 9, 1);
    m.add("a", old);
    m.add("b", fresh);
    assertEquals(fresh, m.poll());
  }

  @Test
  void ownCountsCapEachTopicAndTheAnyCountIsShared() {
    TopicTurns turns = new TopicTurns();
    TopicTurns.Share share = new TopicTurns.Share(turns, NS, Map.of("a", 3.0), Map.of("a", 1, "b", 1), 1);
    Map<ReadyEntry, String> topicOf = new HashMap<>();
    Map<String, Integer> topics = new LinkedHashMap<>();
    topics.put("a", 0);
    topics.put("b", 0);
    topics.put("c", 0);
    TopicTurns.Merge<ReadyEntry> m = merge(share, topics, 10, topicOf);
    List<String> got = take(m, share, 10, topicOf);
    assertEquals(3, got.size(), "a: 1, b: 1, any: 1 " + got);
    assertNull(m.poll(), "nothing more is taken");
    assertEquals(3, share.takenOwn().values().stream().mapToInt(Integer::intValue).sum() + share.takenAny());
    assertEquals(1, share.takenAny());
  }

  @Test
  void aTopicIdleForAWhileStartsAtTheVirtualTimeWithNoCreditSavedUp() {
    TopicTurns turns = new TopicTurns();
    Map<String, Double> weights = Map.of("a", 1.0, "b", 1.0);
    TopicTurns.Share alone = new TopicTurns.Share(turns, NS, weights, Map.of(), 50);
    Map<ReadyEntry, String> topicOf = new HashMap<>();
    take(merge(alone, Map.of("a", 0), 50, topicOf), alone, 50, topicOf);
    TopicTurns.Share both = new TopicTurns.Share(turns, NS, weights, Map.of(), 10);
    Map<String, Integer> topics = new LinkedHashMap<>();
    topics.put("b", 0);
    topics.put("a", 0);
    List<String> got = take(merge(both, topics, 10, topicOf), both, 10, topicOf);
    assertEquals(5, got.stream().filter("b"::equals).count(), "b does not get 50 turns in a row: " + got);
  }

  @Test
  void incrementsAreBoundedForTinyAndHugeWeights() {
    assertEquals(QueuePlanner.SLOT_UNIT, TopicTurns.increment(Map.of(), "x"));
    assertEquals(TopicTurns.MAX_INCREMENT, TopicTurns.increment(Map.of("x", 1e-300), "x"));
    assertEquals(1, TopicTurns.increment(Map.of("x", 1e300), "x"));
    assertEquals(QueuePlanner.SLOT_UNIT / 4, TopicTurns.increment(Map.of("x", 4.0), "x"));
  }

  @Test
  void stateStaysBounded() {
    TopicTurns turns = new TopicTurns();
    for (int p = 0; p < TopicTurns.MAX_STATES + 100; p++) {
      turns.of(NS, p).served("t", 1);
    }
    assertEquals(TopicTurns.MAX_STATES, turns.size());
    TopicTurns.Turns one = turns.of("other", 0);
    for (int t = 0; t < 10_000; t++) {
      one.served("t" + t, 1); // ten thousand topics, each served once: all one turn ahead
      assertTrue(one.next.size() <= TopicTurns.MAX_TOPICS, "at most MAX_TOPICS: " + one.next.size());
    }
    TopicTurns.Turns two = turns.of("two", 0);
    for (int round = 0; round < 1_000; round++) {
      for (int t = 0; t < 3; t++) {
        two.served("t" + (round * 3 + t) % 300, 1); // a few topics at a time, then others
      }
    }
    two.served("t0", 1_000); // one topic far ahead: the virtual time passes every other's turn
    two.served("t0", 1);
    for (int t = 0; t < 400; t++) {
      two.served("n" + t, 1); // new topics: the map grows past its pruning point
    }
    assertTrue(two.next.keySet().stream().noneMatch(t -> t.matches("t[1-9][0-9]*")),
        "topics whose turn the virtual time passed are forgotten: " + two.next.size());
    assertTrue(two.next.containsKey("t0"), "the topic still ahead is kept");
  }

  /**
   * Any weights (1 to 8 over up to 5 topics) and any split into servings: while every topic has items,
   * the weighted services of two topics never differ by more than {@code 1/w_i + 1/w_j} (start-time fair
   * queueing's bound for items of equal cost), so each topic's count is its weight's share within one
   * turn.
   */
  @Property(tries = 200)
  void everyTopicGetsItsWeightsShareWithinATurn(@ForAll @IntRange(min = 2, max = 5) int topicCount,
      @ForAll("weights") List<Integer> weightList, @ForAll @IntRange(min = 1, max = 7) int servingSize,
      @ForAll @IntRange(min = 10, max = 200) int total) {
    TopicTurns turns = new TopicTurns();
    Map<String, Double> weights = new HashMap<>();
    Map<String, Integer> topics = new LinkedHashMap<>();
    for (int t = 0; t < topicCount; t++) {
      weights.put("t" + t, (double) weightList.get(t % weightList.size()));
      topics.put("t" + t, 0);
    }
    Map<String, Integer> served = new HashMap<>();
    int done = 0;
    while (done < total) {
      TopicTurns.Share share = new TopicTurns.Share(turns, NS, weights, Map.of(), servingSize);
      Map<ReadyEntry, String> topicOf = new HashMap<>();
      for (String t : take(merge(share, topics, servingSize, topicOf), share, servingSize, topicOf)) {
        served.merge(t, 1, Integer::sum);
        done++;
      }
      for (String i : topics.keySet()) {
        for (String j : topics.keySet()) {
          double wi = weights.get(i);
          double wj = weights.get(j);
          double gap = Math.abs(served.getOrDefault(i, 0) / wi - served.getOrDefault(j, 0) / wj);
          assertTrue(gap <= 1 / wi + 1 / wj + 1e-9, "services of " + i + " and " + j + ": " + served + " by " + weights);
        }
      }
    }
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<List<Integer>> weights() {
    return net.jqwik.api.Arbitraries.integers().between(1, 8).list().ofMinSize(1).ofMaxSize(5);
  }
}
