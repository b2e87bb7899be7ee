package dev.ordo.topology;

import static dev.ordo.topology.QueueDriver.ALICE;
import static dev.ordo.topology.QueueDriver.BOB;
import static dev.ordo.topology.QueueDriver.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.topology.internal.NamespaceStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ordered groups (docs/queue.md, "Ordered groups"; decisions D60) through the whole topology under
 * {@link org.apache.kafka.streams.TopologyTestDriver}: one item of a group at a time in enqueue order
 * (across priorities), a nacked head holding its group through its delay, dead-lettered or expired
 * heads letting the next go, groups interleaved and served in parallel, per-topic overrides, and a
 * policy switched on while items stand.
 */
class OrderedGroupsTopologyTest {
  private final QueueDriver q = new QueueDriver();

  @BeforeEach
  void ordered() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setOrdered(true)
        .setOrderedTopics(Map.of("free", false)).build());
  }

  @AfterEach
  void close() {
    q.close();
  }

  private static List<String> ids(List<DeliveredItem> ds) {
    return ds.stream().map(DeliveredItem::getItemId).toList();
  }

  @Test
  void aNackedHeadHoldsItsGroupThroughItsDelayAndNoLaterItemOvertakesIt() {
    List<String> a = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      a.add(q.enqueue(item("t", 0).setGroupKey("a").build()));
    }
    q.demand(ALICE, Map.of("t", 10), Duration.ofMinutes(5));
    List<DeliveredItem> first = q.delivered();
    assertEquals(List.of(a.get(0)), ids(first), "one item of the group at a time, its oldest");

    q.nack(first.get(0), 500, null);
    assertEquals(List.of(), q.delivered(), "the nacked head waits its delay and its group with it");
    q.advance(Duration.ofMillis(300));
    assertEquals(List.of(), q.delivered(), "still within the delay: the next item does not overtake");
    q.advance(Duration.ofMillis(250));
    DeliveredItem retry = q.delivered().get(0);
    assertEquals(a.get(0), retry.getItemId(), "due again: the head first");
    assertEquals(2, retry.getAttempt());

    q.nack(retry, 0, null); // no delay: READY at once, still the head
    DeliveredItem third = q.delivered().get(0);
    assertEquals(a.get(0), third.getItemId());
    q.ack(third);
    DeliveredItem next = q.delivered().get(0);
    assertEquals(a.get(1), next.getItemId(), "acked: the next one goes");
    q.release(next);
    assertEquals(List.of(a.get(1)), ids(q.delivered()), "released: still the head");
    assertTrue(q.metrics.get(QueueMetrics.ORDER_WAITED) == 0, "nothing arrived behind a head here");
  }

  @Test
  void severalGroupsInterleavedAreEachInOrderAndServedInParallel() {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      all.add(q.enqueue(item("t", i % 2 == 0 ? 5 : 0).setGroupKey("g" + (i % 3)).build()));
    }
    String loner1 = q.enqueue(item("t", 3).build());
    String loner2 = q.enqueue(item("t", 3).build());
    q.demand(ALICE, Map.of("t", 100), Duration.ofMinutes(5));
    List<DeliveredItem> got = q.delivered();
    assertEquals(List.of(all.get(1), loner1, loner2, all.get(0), all.get(2)), ids(got),
        "each group's oldest at once, whatever the priorities behind it; items without a group key all go;"
            + " the heads in priority order among themselves");

    List<String> served = new ArrayList<>();
    List<DeliveredItem> held = new ArrayList<>(got.stream().filter(d -> d.getGroupKey() != null).toList());
    while (!held.isEmpty()) {
      List<DeliveredItem> now = new ArrayList<>(held);
      held.clear();
      for (DeliveredItem d : now) {
        served.add(d.getItemId());
        q.ack(d);
        List<DeliveredItem> next = q.delivered();
        assertTrue(next.size() <= 1, "an ack frees one group: at most its next");
        held.addAll(next);
      }
    }
    for (int g = 0; g < 3; g++) {
      List<String> expected = new ArrayList<>();
      for (int i = g; i < 12; i += 3) {
        expected.add(all.get(i));
      }
      final int group = g;
      List<String> inGroup = served.stream().filter(id -> all.indexOf(id) % 3 == group).toList();
      assertEquals(expected, inGroup, "group g" + g + " in enqueue order");
    }
  }

  @Test
  void aDeadLetteredHeadAndAnExpiredHeadLetTheNextGo() {
    String a1 = q.enqueue(item("t", 0).setGroupKey("a").setMaxAttempts(1).build());
    String a2 = q.enqueue(item("t", 0).setGroupKey("a").setTtlMs(1_000L).build());
    String a3 = q.enqueue(item("t", 0).setGroupKey("a").build());
    q.demand(ALICE, Map.of("t", 10), Duration.ofMinutes(5));
    DeliveredItem d1 = q.delivered().get(0);
    assertEquals(a1, d1.getItemId());
    q.nack(d1, 0, null); // its last attempt
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, q.deadLetters().get(0).getReason());
    DeliveredItem d2 = q.delivered().get(0);
    assertEquals(a2, d2.getItemId(), "dead-lettered: the next goes");
    q.advance(Duration.ofMillis(1_100)); // a2's TTL runs out while it is leased
    assertEquals(List.of(a3), ids(q.delivered()), "expired: the next goes");
    assertEquals(1, q.metrics.get(QueueMetrics.TTL_EXPIRED));
  }

  @Test
  void aLeaseThatRunsOutGivesTheHeadBackFirstAndACancelOfTheHeadLetsTheNextGo() {
    String a1 = q.enqueue(item("t", 0).setGroupKey("a").setLeaseDurationMs(200L).build());
    String a2 = q.enqueue(item("t", 0).setGroupKey("a").build());
    q.demand(ALICE, Map.of("t", 10), Duration.ofMinutes(5));
    assertEquals(List.of(a1), ids(q.delivered()));
    q.advance(Duration.ofMillis(250));
    DeliveredItem again = q.delivered().get(0);
    assertEquals(a1, again.getItemId(), "the expired lease's item is the head still");
    q.cancel(a1);
    assertEquals(List.of(a2), ids(q.delivered()));
  }

  @Test
  void aTopicOrderedOffByItsOverrideAndAnItemArrivingBehindAHeadWaits() {
    String f1 = q.enqueue(item("free", 0).setGroupKey("a").build());
    String f2 = q.enqueue(item("free", 0).setGroupKey("a").build());
    q.demand(ALICE, Map.of("free", 10, "t", 10), Duration.ofMinutes(5));
    assertEquals(List.of(f1, f2), ids(q.delivered()), "orderedTopics free=false: the group is not ordered there");

    String t1 = q.enqueue(item("t", 0).setGroupKey("a").build());
    String t2 = q.enqueue(item("t", 0).setGroupKey("a").build());
    List<DeliveredItem> got = q.delivered();
    assertEquals(List.of(t1), ids(got), "the second arrives behind a leased head: it waits");
    assertEquals(1, q.metrics.get(QueueMetrics.ORDER_WAITED));
    q.ack(got.get(0));
    assertEquals(List.of(t2), ids(q.delivered()));
  }

  @Test
  void aFifoTopicIsOrderedByItsNameWithoutAPolicyUnlessItsOverrideSaysNot() {
    q.policy("ns", null);
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    String f1 = q.enqueue(item("jobs.fifo", 0).setGroupKey("a").build());
    q.enqueue(item("jobs.fifo", 0).setGroupKey("a").build());
    q.demand(ALICE, Map.of("jobs.fifo", 10), Duration.ofMinutes(5));
    assertEquals(List.of(f1), ids(q.delivered()), "an SQS FIFO queue's topic: one at a time");

    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(2)
        .setOrderedTopics(Map.of("free.fifo", false)).build());
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    String g1 = q.enqueue(item("free.fifo", 0).setGroupKey("a").build());
    String g2 = q.enqueue(item("free.fifo", 0).setGroupKey("a").build());
    q.demand(BOB, Map.of("free.fifo", 10), Duration.ofMinutes(5));
    assertEquals(List.of(g1, g2), ids(q.delivered()), "its override says not");
  }

  @Test
  void aPolicySwitchedOnOrdersTheItemsTakenInAfterwardsOnly() {
    q.policy("ns", null);
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    String old1 = q.enqueue(item("t", 0).setGroupKey("a").build());
    String old2 = q.enqueue(item("t", 0).setGroupKey("a").build());
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(1).setOrdered(true).build());
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    String new1 = q.enqueue(item("t", 0).setGroupKey("a").build());
    String new2 = q.enqueue(item("t", 0).setGroupKey("a").build());
    q.demand(BOB, Map.of("t", 10), Duration.ofMinutes(5));
    List<DeliveredItem> got = q.delivered();
    assertEquals(List.of(old1, old2, new1), ids(got),
        "the items taken in before are not ordered (both leased at once); the new ones are, among themselves");
    q.ack(got.get(0));
    q.ack(got.get(1));
    assertEquals(List.of(), q.delivered(), "new2 waits for new1 alone");
    q.ack(got.get(2));
    assertEquals(List.of(new2), ids(q.delivered()));
  }

  /**
   * Topic weights (decisions D59) over an ordered topic: a {@code *} dequeue served by the weighted
   * multi-topic path takes only each ordered group's head, however many turns the topic's weight gives
   * it, and the rest of its share goes to the other topics; an ack, a nack with a delay and an arrival
   * behind a leased head keep the group's order while the demand is served by weight.
   */
  @Test
  void aWeightedStarDequeueTakesOnlyTheHeadsOfAnOrderedTopic() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(1).setOrdered(true)
        .setOrderedTopics(Map.of("free", false)).setTopicWeights(Map.of("t", 3.0)).build());
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    List<String> a = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      a.add(q.enqueue(item("t", 0).setGroupKey("a").build()));
    }
    String b1 = q.enqueue(item("t", 0).setGroupKey("b").build());
    String b2 = q.enqueue(item("t", 0).setGroupKey("b").build());
    List<String> free = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      free.add(q.enqueue(item("free", 0).setGroupKey("a").build()));
    }

    q.demand(ALICE, Map.of("*", 20), Duration.ofMinutes(5));
    List<DeliveredItem> got = q.delivered();
    List<String> fromT = got.stream().filter(d -> d.getTopic().equals("t")).map(DeliveredItem::getItemId).toList();
    assertEquals(2, fromT.size(), "weight 3 or not, only the heads of t's ordered groups: " + ids(got));
    assertEquals(java.util.Set.of(a.get(0), b1), new java.util.HashSet<>(fromT), ids(got).toString());
    assertEquals(new java.util.HashSet<>(free), new java.util.HashSet<>(got.stream()
        .filter(d -> d.getTopic().equals("free")).map(DeliveredItem::getItemId).toList()), "free is not ordered");
    assertEquals(10, got.size(), ids(got).toString());

    DeliveredItem a1 = got.stream().filter(d -> d.getItemId().equals(a.get(0))).findFirst().orElseThrow();
    DeliveredItem lb1 = got.stream().filter(d -> d.getItemId().equals(b1)).findFirst().orElseThrow();
    q.ack(a1);
    List<DeliveredItem> next = q.delivered();
    assertEquals(List.of(a.get(1)), ids(next), "acked: the group's next, and only it");

    q.nack(next.get(0), 500, null);
    assertEquals(List.of(), q.delivered(), "the nacked head holds its group through its delay");
    q.advance(Duration.ofMillis(300));
    assertEquals(List.of(), q.delivered(), "still within the delay: a[2] does not overtake it");
    q.advance(Duration.ofMillis(250));
    DeliveredItem retry = q.delivered().get(0);
    assertEquals(a.get(1), retry.getItemId(), "due again: the head first");
    assertEquals(2, retry.getAttempt());

    String b3 = q.enqueue(item("t", 0).setGroupKey("b").build());
    assertEquals(List.of(), q.delivered(), "an arrival behind b's leased head waits, the * demand open");
    assertEquals(1, q.metrics.get(QueueMetrics.ORDER_WAITED));
    q.ack(lb1);
    DeliveredItem nb = q.delivered().get(0);
    assertEquals(b2, nb.getItemId());
    q.ack(nb);
    assertEquals(List.of(b3), ids(q.delivered()), "group b in enqueue order");
  }

  /**
   * The same with sidelining: the weighted path's candidates from the backlog lane (items it sidelines
   * itself) are an ordered group's head only, the items behind it moved to the lane but never offered.
   */
  @Test
  void aWeightedStarDequeueThatSidelinesStillTakesOnlyTheHeads() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(1).setOrdered(true)
        .setOrderedTopics(Map.of("free", false)).setTopicWeights(Map.of("t", 3.0, "free", 1.0))
        .setSidelineAfterMs(100L).build());
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    List<String> a = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      a.add(q.enqueue(item("t", 0).setGroupKey("a").build()));
    }
    for (int i = 0; i < 5; i++) {
      q.enqueue(item("free", 0).build());
    }
    q.advance(Duration.ofMillis(300)); // every ready item is past sidelineAfterMs now
    q.demand(ALICE, Map.of("*", 10), Duration.ofMinutes(5));
    List<DeliveredItem> got = q.delivered();
    assertEquals(List.of(a.get(0)), got.stream().filter(d -> d.getTopic().equals("t")).map(DeliveredItem::getItemId)
        .toList(), "one item of the ordered group, its oldest: " + ids(got));
    assertEquals(6, got.size(), ids(got).toString());
    for (int i = 1; i < a.size(); i++) {
      q.ack(got.stream().filter(d -> d.getTopic().equals("t")).findFirst().orElseThrow());
      got = q.delivered();
      assertEquals(List.of(a.get(i)), ids(got), "acked: the next, from the backlog lane, alone");
    }
  }
}
