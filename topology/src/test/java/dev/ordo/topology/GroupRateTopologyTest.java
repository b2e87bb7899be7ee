package dev.ordo.topology;

import static dev.ordo.topology.QueueDriver.ALICE;
import static dev.ordo.topology.QueueDriver.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-group rates (docs/queue.md, "Group rates"; decisions D61) through the whole topology under
 * {@link org.apache.kafka.streams.TopologyTestDriver}, on its controlled clock: a group over its rate
 * waits (its items are neither refused nor dropped, all leased in the end), a group without one is
 * served everything it asks meanwhile, and the waits are counted.
 */
class GroupRateTopologyTest {
  private final QueueDriver q = new QueueDriver();

  @AfterEach
  void close() {
    q.close();
  }

  private static NamespacePolicy policy(Rate all, Map<String, Rate> overrides) {
    return NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setGroupRate(all)
        .setGroupRateOverrides(overrides).build();
  }

  /** Acks what was delivered since the last call and returns it. */
  private List<DeliveredItem> takeAndAck() {
    List<DeliveredItem> got = q.delivered();
    for (DeliveredItem d : got) {
      q.ack(d);
    }
    return got;
  }

  @Test
  void aGroupOverItsRateWaitsWhileAnotherIsServedEverythingItAsks() {
    q.policy("ns", policy(null, Map.of("a", new Rate(2.0, 2L)))); // a: 2 a second, 2 at once; b: no rate
    q.advance(Duration.ofSeconds(1)); // past the takeover's warm-up (burst / rate): a's bucket is full
    Set<String> aItems = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      aItems.add(q.enqueue(item("t", 0).setGroupKey("a").build()));
    }
    q.demand(ALICE, Map.of("t", 1_000), Duration.ofMinutes(10)); // a worker that takes whatever comes

    List<String> aLeased = new ArrayList<>();
    int bAsked = 0;
    int bServedAtOnce = 0;
    for (int step = 0; step < 100; step++) { // 10 s, a b item every 100 ms
      for (DeliveredItem d : takeAndAck()) {
        assertEquals("a", d.getGroupKey());
        aLeased.add(d.getItemId());
      }
      String b = q.enqueue(item("t", 0).setGroupKey("b").build());
      bAsked++;
      for (DeliveredItem d : takeAndAck()) {
        if ("b".equals(d.getGroupKey())) {
          assertEquals(b, d.getItemId());
          bServedAtOnce++;
        } else {
          aLeased.add(d.getItemId());
        }
      }
      q.advance(Duration.ofMillis(100));
    }
    assertEquals(bAsked, bServedAtOnce, "b, without a rate, got every item the moment it arrived");
    assertTrue(aLeased.size() <= 2 + 2 * 10, "a got " + aLeased.size() + " leases in 10 s, more than 2 + 2 × 10");
    assertTrue(aLeased.size() >= 2 * 10, "a got " + aLeased.size() + " leases in 10 s: its rate was not served");
    assertTrue(q.metrics.get(QueueMetrics.GROUP_RATE_LIMITED) > 0, "the waits are counted");
    double perTopic = q.registry.find("ordo.group.rate.limited").tags("namespace", "ns", "topic", "t").counter().count();
    assertTrue(perTopic > 0, "and by topic for /metrics");

    q.advance(Duration.ofSeconds(25)); // 60 items at 2 a second: the rest of a's are leased, none dropped
    for (DeliveredItem d : takeAndAck()) {
      aLeased.add(d.getItemId());
    }
    assertEquals(aItems, new HashSet<>(aLeased), "every item of a leased in the end");
    assertEquals(aItems.size(), aLeased.size(), "each once");
    assertEquals(List.of(), q.deadLetters());
  }

  @Test
  void theNamespaceRateAppliesToEveryGroupAnOverrideToItsOwnAndUngroupedItemsAreNotLimited() {
    q.policy("ns", policy(new Rate(1.0, 1L), Map.of("fast", new Rate(5.0, 5L))));
    q.advance(Duration.ofSeconds(2));
    for (int i = 0; i < 10; i++) {
      q.enqueue(item("t", 0).setGroupKey("slow").build());
      q.enqueue(item("t", 0).setGroupKey("fast").build());
      q.enqueue(item("t", 0).build()); // no group key: not rate-limited
    }
    q.demand(ALICE, Map.of("t", 100), Duration.ofMinutes(5));
    Map<String, Integer> byGroup = new java.util.HashMap<>();
    for (DeliveredItem d : takeAndAck()) {
      byGroup.merge(String.valueOf(d.getGroupKey()), 1, Integer::sum);
    }
    assertEquals(Map.of("slow", 1, "fast", 5, "null", 10), byGroup, "each group's burst at once, ungrouped items all");
    q.advance(Duration.ofMillis(1_050));
    byGroup.clear();
    for (DeliveredItem d : takeAndAck()) {
      byGroup.merge(String.valueOf(d.getGroupKey()), 1, Integer::sum);
    }
    assertEquals(Map.of("slow", 1, "fast", 5), byGroup, "a second later: a second's worth of each");
  }

  @Test
  void aConcurrencyLimitAndARateTogetherEachHold() {
    q.policy("ns", NamespacePolicy.newBuilder(policy(new Rate(10.0, 10L), null)).setGroupConcurrency(1).build());
    q.advance(Duration.ofSeconds(2));
    for (int i = 0; i < 5; i++) {
      q.enqueue(item("t", 0).setGroupKey("a").build());
    }
    q.demand(ALICE, Map.of("t", 100), Duration.ofMinutes(5));
    for (int i = 0; i < 5; i++) {
      List<DeliveredItem> one = q.delivered();
      assertEquals(1, one.size(), "one at a time (the limit), the rate having tokens");
      q.ack(one.get(0));
    }
    assertEquals(List.of(), q.delivered());
  }

  @Test
  void aRateLiftedLetsTheWaitingItemsGo() {
    q.policy("ns", policy(new Rate(0.1, 1L), null));
    q.advance(Duration.ofSeconds(10));
    for (int i = 0; i < 5; i++) {
      q.enqueue(item("t", 0).setGroupKey("a").build());
    }
    q.demand(ALICE, Map.of("t", 100), Duration.ofMinutes(5));
    assertEquals(1, takeAndAck().size(), "its burst of one");
    q.advance(Duration.ofSeconds(1));
    assertEquals(0, takeAndAck().size(), "then one per 10 s");
    q.policy("ns", policy(null, null));
    q.advance(Duration.ofMillis(500)); // the policy read again (every 100 ms), the waiting demand served
    assertEquals(4, takeAndAck().size(), "no rate any more: the rest at once, to the demand that waited");
  }

  @Test
  void anOrderedGroupOverItsRateKeepsItsOrderAndWaitsAtItsHead() {
    q.policy("ns", NamespacePolicy.newBuilder(policy(new Rate(1.0, 1L), null)).setOrdered(true).build());
    q.advance(Duration.ofSeconds(2));
    List<String> a = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      a.add(q.enqueue(item("t", i % 2 == 0 ? 5 : 0).setGroupKey("a").build()));
    }
    String loose = q.enqueue(item("t", 9).build());
    q.demand(ALICE, Map.of("t", 100), Duration.ofMinutes(5));
    List<String> got = new ArrayList<>();
    for (DeliveredItem d : takeAndAck()) {
      got.add(d.getItemId());
    }
    assertEquals(List.of(a.get(0), loose), got, "a's head (its one token), and the ungrouped item not limited");
    for (int s = 0; s < 3; s++) {
      q.advance(Duration.ofMillis(500));
      assertEquals(List.of(), takeAndAck(), "half a token: a's next waits");
      q.advance(Duration.ofMillis(520));
      List<DeliveredItem> next = takeAndAck();
      assertEquals(1, next.size());
      got.add(next.get(0).getItemId());
    }
    assertEquals(List.of(a.get(0), loose, a.get(1), a.get(2), a.get(3)), got, "in enqueue order, one a second");
  }

  @Test
  void aDequeueOverTopicsWithWeightsPassesAGroupOverItsRate() {
    q.policy("ns", NamespacePolicy.newBuilder(policy(null, Map.of("a", new Rate(1.0, 1L))))
        .setTopicWeights(Map.of("x", 3.0)).build());
    q.advance(Duration.ofSeconds(2));
    for (int i = 0; i < 5; i++) {
      q.enqueue(item("x", 0).setGroupKey("a").build());
      q.enqueue(item("y", 0).setGroupKey("b").build());
    }
    q.demand(ALICE, Map.of("*", 100), Duration.ofMinutes(5));
    Map<String, Integer> byGroup = new java.util.HashMap<>();
    for (DeliveredItem d : takeAndAck()) {
      byGroup.merge(d.getGroupKey(), 1, Integer::sum);
    }
    assertEquals(Map.of("a", 1, "b", 5), byGroup, "a's one token whatever x's weight; b all of its");
    q.advance(Duration.ofMillis(1_050));
    assertEquals(1, takeAndAck().size(), "a's next token, to the demand that waited");
  }
}
