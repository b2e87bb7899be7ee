package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.QueueView;
import dev.ordo.topology.QueueMetrics;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Where a group's ready items wait (decisions D48): a group without a concurrency limit has every
 * ready item in the ready index itself ({@code flat}); a group with one keeps them in its own queue,
 * the ready index holding its first, so that at its limit it is passed over at one entry. A limit set
 * while a group's items are flat moves each into the group's queue the first time dispatch passes it;
 * a limit lifted leaves the queued ones where they are. The dispatch order is the ready key's in every
 * case.
 */
class GroupLayoutTest {
  private static final String NS = "ns";
  private static final Requester WORKER = new Requester("w", 0);
  private static final NamespacePolicy BOB_LIMITED = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0)
      .setGroupConcurrencyOverrides(Map.of("bob", 1)).build();

  private final PriorityStore store = QueuePlannerSimulationTest.newStore();
  private NamespacePolicy policy;
  private final QueuePlanner planner = new QueuePlanner(
      new QueuePlanner.Settings(new QueueDefaults(30_000, 5, null, 600_000), List.of(Duration.ofMinutes(1)), 10_000,
          10_000, 0, false, 1),
      0, new SplittableRandom(1), ns -> NS.equals(ns) ? policy : null, NamespaceLoad.NONE);
  private long now = 1_000_000;
  private long nextOffset;
  private long groupLimited;
  private long rateLimited;
  /** Reads of a group's queue by the planner (through {@link #view}). */
  private int groupQueueReads;
  /** The store as the planner sees it, counting its reads of the groups' queues. */
  private final QueueView view = (QueueView) Proxy.newProxyInstance(QueueView.class.getClassLoader(),
      new Class<?>[] {QueueView.class}, (proxy, method, args) -> {
        if (method.getName().equals("groupHead")) {
          groupQueueReads++;
        }
        try {
          return method.invoke(store, args);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      });

  @Test
  void aGroupWithoutALimitHasItsReadyItemsInTheReadyIndexAndOneWithALimitInItsQueue() {
    for (int i = 0; i < 5; i++) {
      enqueue("bob");
    }
    enqueue("alice");
    assertEquals(6, store.readyHead(NS, "t", 100).size(), "every ready item in the ready index");
    assertEquals(List.of(), store.groupHead(NS, "t", 0, "bob", 100), "nothing in bob's queue");
    assertTrue(store.get(0).getFlat());

    policy = BOB_LIMITED;
    for (int i = 0; i < 3; i++) {
      enqueue("bob");
    }
    enqueue("alice");
    assertEquals(3, store.groupHead(NS, "t", 0, "bob", 100).size(), "bob's new items in his queue");
    assertFalse(store.get(6).getFlat());
    assertTrue(store.get(9).getFlat(), "alice has no limit");
    assertEquals(8, store.readyHead(NS, "t", 100).size(), "bob's 5 flat items, the first of his queue, alice's 2");
  }

  @Test
  void flatItemsOfAGroupGivenALimitGoIntoItsQueueWhenPassedSoTheGroupIsPassedAtOneEntry() {
    List<Long> bob = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      bob.add(enqueue("bob"));
    }
    List<Long> alice = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      alice.add(enqueue("alice"));
    }
    policy = BOB_LIMITED; // set while all of bob's items are flat

    List<DeliveredItem> first = demand(100);
    assertEquals(List.of(bob.get(0), alice.get(0), alice.get(1), alice.get(2), alice.get(3), alice.get(4)),
        offsets(first), "one of bob's (his limit), then alice's, in slot order");
    assertEquals(19, groupLimited, "each of bob's other items passed once");
    assertEquals(19, store.groupHead(NS, "t", 0, "bob", 100).size(), "and moved into his queue");
    assertEquals(1, store.readyHead(NS, "t", 100).size(), "the ready index holds his queue's first alone");

    groupLimited = 0;
    assertEquals(List.of(), demand(100), "bob is at his limit");
    assertEquals(1, groupLimited, "passed over at one entry, his queue not read");

    List<Long> served = new ArrayList<>(offsets(first).subList(0, 1));
    for (DeliveredItem held = first.get(0); held != null; ) {
      ack(held);
      List<DeliveredItem> next = demand(100);
      assertTrue(next.size() <= 1, "never more than his limit: " + next.size());
      held = next.isEmpty() ? null : next.get(0);
      served.addAll(offsets(next));
    }
    assertEquals(bob, served, "bob's items in their order, one at a time");
  }

  @Test
  void aLiftedLimitLeavesQueuedItemsQueuedAndTheOrderIsTheReadyKeysAcrossBothLayouts() {
    policy = BOB_LIMITED;
    List<Long> order = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      order.add(enqueue("bob"));
      order.add(enqueue("alice"));
    }
    policy = null; // lifted: bob's next items go flat, his first three stay in his queue
    for (int i = 0; i < 3; i++) {
      order.add(enqueue("bob"));
      order.add(enqueue("alice"));
    }
    assertEquals(3, store.groupHead(NS, "t", 0, "bob", 100).size());
    assertTrue(store.get(order.get(6)).getFlat());

    List<Long> expected = new ArrayList<>(order);
    expected.sort((a, b) -> {
      StoredItem x = store.get(a);
      StoredItem y = store.get(b);
      int bySlot = Long.compare(x.getSlot(), y.getSlot());
      return bySlot != 0 ? bySlot : Long.compare(a, b);
    });
    assertEquals(order, expected, "alternating: the slots of two groups of weight 1");
    assertEquals(order, offsets(demand(100)), "served in the ready key's order, queued and flat items merged");
    assertEquals(1, groupQueueReads, "bob's queue read once, from its first item; alice's never");
  }

  /**
   * A group with a rate (docs/queue.md, "Group rates"; decisions D61) is laid out flat while it has a token,
   * so a rate that does not bind costs the store nothing; over its rate it is passed at one entry, its queue
   * not read: the flat items dispatch meets over the rate are moved into its queue, each once, and an item
   * that becomes ready while the group has no token goes into the queue at once.
   */
  @Test
  void aGroupWithARateIsFlatWhileItHasATokenAndQueuedOverItsRate() {
    for (int i = 0; i < 10; i++) {
      enqueue("bob"); // flat: no rate yet
    }
    policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0)
        .setGroupRateOverrides(Map.of("bob", new dev.ordo.schema.Rate(1.0, 2L))).build();
    now += 10_000; // past the takeover's warm-up: bob's bucket starts full (2)
    for (int i = 0; i < 10; i++) {
      enqueue("bob");
    }
    assertTrue(store.get(10).getFlat(), "a group with a rate and a token is flat");
    for (int i = 0; i < 3; i++) {
      enqueue("alice");
    }
    assertTrue(store.get(20).getFlat(), "alice has no rate: flat");

    List<DeliveredItem> first = demand(100);
    assertEquals(5, first.size(), "bob's burst of 2, and alice's 3 not slowed");
    long passes = rateLimited;
    assertEquals(18, passes, "bob's other flat items passed, each once, into his queue");
    assertEquals(18, store.groupHead(NS, "t", 0, "bob", 100).size());

    rateLimited = 0;
    groupQueueReads = 0;
    assertEquals(List.of(), demand(100), "bob is over his rate");
    assertEquals(1, rateLimited, "passed at one entry");
    assertEquals(0, groupQueueReads, "his queue not read");
    enqueue("bob");
    assertFalse(store.get(23).getFlat(), "ready while bob has no token: into his queue at once");
    assertEquals(19, store.groupHead(NS, "t", 0, "bob", 100).size());

    now += 1_000;
    assertEquals(1, demand(100).size(), "a second later: one token");
  }

  @Test
  void dispatchOfFlatGroupsReadsNoGroupQueue() {
    for (int i = 0; i < 10; i++) {
      enqueue("g" + (i % 3));
    }
    assertEquals(10, demand(100).size());
    assertEquals(0, groupQueueReads, "every item came from the ready index");
  }

  // ---- helpers ----

  private long enqueue(String group) {
    long offset = nextOffset++;
    Item item = Item.newBuilder().setNamespace(NS).setTopic("t").setPriority(0).setGroupKey(group)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
    apply(planner.onItem(offset, now, item, view, now));
    return offset;
  }

  /** A demand for n items, answered now and then dropped, so nothing arrives for it later. */
  private List<DeliveredItem> demand(int n) {
    now++;
    List<DeliveredItem> got = apply(planner.onCommand(
        new Command(WORKER, now, new Demand(NS, Map.of("t", n), 1L, true, false, false, -1L, 0L), false, null), view, now));
    planner.expireDemands(now + 2);
    return got;
  }

  private void ack(DeliveredItem d) {
    apply(planner.onCommand(new Command(WORKER, now, new Ack(d.getItemId(), d.getLeaseId()), false, null), view, now));
  }

  private List<DeliveredItem> apply(Effects effects) {
    for (Effects.Change c : effects.changes()) {
      store.transition(c.offset(), c.before(), c.after());
    }
    store.markChanges();
    groupLimited += effects.counts().getOrDefault(QueueMetrics.GROUP_LIMITED, 0L);
    rateLimited += effects.counts().getOrDefault(QueueMetrics.GROUP_RATE_LIMITED, 0L);
    List<DeliveredItem> leased = new ArrayList<>();
    for (Effects.Leased l : effects.leased()) {
      leased.addAll(l.items());
    }
    return leased;
  }

  private static List<Long> offsets(List<DeliveredItem> leased) {
    return leased.stream().map(d -> ItemId.parse(d.getItemId()).offset()).toList();
  }
}
