package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.topology.QueueMetrics;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Admission through the planner over a real store: items over a namespace's admission rate or
 * backlog limit wait in OVERFLOW and are admitted at the rate, oldest first; a partition takes the
 * share of the rate that its demand is of the namespace's.
 */
class AdmissionTest {
  private static final String NS = "ns";
  private static final long T0 = 1_000_000;

  private final PriorityStore store = QueuePlannerSimulationTest.newStore();
  private NamespacePolicy policy;
  private NamespaceLoad.Load others = NamespaceLoad.Load.NONE;
  private final QueuePlanner planner = new QueuePlanner(
      new QueuePlanner.Settings(new QueueDefaults(30_000, 5, null, 60_000), List.of(Duration.ofMinutes(1)), 10_000,
          100_000, 0, false, 1),
      0, new SplittableRandom(1), ns -> NS.equals(ns) ? policy : null, (ns, partition, now) -> others);
  private long nextOffset;
  private long overflowed;
  private long admitted;

  private static NamespacePolicy policy(Rate admissionRate, Long maxBacklog) {
    return NamespacePolicy.newBuilder().setNamespace(NS).setAdmissionRate(admissionRate).setMaxBacklog(maxBacklog)
        .setUpdatedAt(0).build();
  }

  private long arrive(long now, String namespace, Long ttlMs) {
    Item item = Item.newBuilder().setNamespace(namespace).setTopic(nextOffset % 2 == 0 ? "t" : "u").setPriority(0)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).setTtlMs(ttlMs).build();
    apply(planner.onItem(nextOffset, now, item, store, now));
    return nextOffset++;
  }

  private long arrive(long now) {
    return arrive(now, NS, null);
  }

  private void timers(long now) {
    apply(planner.onTimers(store, now));
  }

  private void apply(Effects e) {
    for (Effects.Change c : e.changes()) {
      store.transition(c.offset(), c.before(), c.after());
    }
    overflowed += e.counts().getOrDefault(QueueMetrics.OVERFLOWED, 0L);
    admitted += e.counts().getOrDefault(QueueMetrics.ADMITTED, 0L);
  }

  private ItemState state(long offset) {
    StoredItem s = store.get(offset);
    return s == null ? null : s.getState();
  }

  private List<Long> inState(ItemState state) {
    List<Long> out = new ArrayList<>();
    for (long o = 0; o < nextOffset; o++) {
      if (state(o) == state) {
        out.add(o);
      }
    }
    return out;
  }

  @Test
  void arrivalsOverTheRateWaitInOverflowAndAreAdmittedAtTheRateOldestFirst() {
    policy = policy(new Rate(10.0, 5L), null);
    for (int i = 0; i < 30; i++) {
      arrive(T0);
    }
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L), inState(ItemState.READY), "the burst is admitted at once");
    assertEquals(25, inState(ItemState.OVERFLOW).size());
    assertEquals(25, overflowed);
    assertEquals(25, store.namespaceCounts(NS).overflow());

    timers(T0 + 500); // half a second: 5 tokens
    assertEquals(10, inState(ItemState.READY).size());
    assertEquals(List.of(5L, 6L, 7L, 8L, 9L), inState(ItemState.READY).subList(5, 10), "oldest first");

    long late = arrive(T0 + 500);
    assertEquals(ItemState.OVERFLOW, state(late), "an arrival waits behind the overflow");

    for (long t = T0 + 600; t <= T0 + 3_000; t += 100) {
      timers(t);
      long ready = inState(ItemState.READY).size();
      assertTrue(ready <= 5 + 10 * (t - T0) / 1000.0, ready + " admitted by +" + (t - T0) + " ms");
    }
    assertEquals(31, inState(ItemState.READY).size(), "all admitted in the end");
    assertEquals(List.of(), inState(ItemState.OVERFLOW));
    assertEquals(26, admitted, "each overflowed item admitted once");
    assertTrue(store.overflowNamespaces().isEmpty());
  }

  @Test
  void overflowKeepsTheDueTimeAndAnItemAdmittedEarlyWaitsForIt() {
    policy = policy(new Rate(1.0, 1L), null);
    arrive(T0);
    Item delayed = Item.newBuilder().setNamespace(NS).setTopic("t").setPriority(0)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).setDeliverAfter(T0 + 5_000).build();
    apply(planner.onItem(nextOffset++, T0, delayed, store, T0));
    assertEquals(ItemState.OVERFLOW, state(1));
    timers(T0 + 1_000);
    assertEquals(ItemState.DELAYED, state(1), "admitted before its due time: it waits as any delayed item");
    assertEquals(T0 + 5_000, store.get(1).getReadyAt());
  }

  @Test
  void aBacklogAtItsLimitSendsArrivalsToOverflowUntilItDrains() {
    policy = policy(null, 3L);
    for (int i = 0; i < 5; i++) {
      arrive(T0);
    }
    assertEquals(List.of(0L, 1L, 2L), inState(ItemState.READY));
    assertEquals(List.of(3L, 4L), inState(ItemState.OVERFLOW));
    timers(T0 + 100);
    assertEquals(2, inState(ItemState.OVERFLOW).size(), "nothing drained: nothing admitted");

    // One is done (acked: gone from the store), so one may come in.
    StoredItem first = store.get(0);
    store.transition(0, first, null);
    timers(T0 + 200);
    assertEquals(List.of(1L, 2L, 3L), inState(ItemState.READY));

    // The other partitions' waiting items count too.
    others = new NamespaceLoad.Load(10, 0, 10, 0);
    store.transition(1, store.get(1), null);
    timers(T0 + 300);
    assertEquals(List.of(4L), inState(ItemState.OVERFLOW), "the namespace is over its backlog elsewhere");
  }

  @Test
  void removingThePolicyAdmitsEverythingWaiting() {
    policy = policy(new Rate(1.0, 1L), null);
    for (int i = 0; i < 20; i++) {
      arrive(T0);
    }
    assertEquals(19, inState(ItemState.OVERFLOW).size());
    policy = null;
    timers(T0 + 1);
    assertEquals(20, inState(ItemState.READY).size());
    arrive(T0 + 2);
    assertEquals(ItemState.READY, state(20));
  }

  @Test
  void aRaisedRateAppliesAtTheNextTimerRun() {
    policy = policy(new Rate(1.0, 1L), null);
    for (int i = 0; i < 101; i++) {
      arrive(T0);
    }
    policy = policy(new Rate(1_000.0, 100L), null);
    timers(T0 + 100);
    assertEquals(101, inState(ItemState.READY).size(), "the new burst and rate admit the overflow");
  }

  @Test
  void otherNamespacesAreNotHeldBack() {
    policy = policy(new Rate(1.0, 1L), null);
    arrive(T0);
    arrive(T0);
    long other = arrive(T0, "free", null);
    assertEquals(ItemState.OVERFLOW, state(1));
    assertEquals(ItemState.READY, state(other));
  }

  @Test
  void timeToLiveRunsOutInOverflowToo() {
    policy = policy(new Rate(1.0, 1L), null);
    arrive(T0, NS, null);
    long doomed = arrive(T0, NS, 500L);
    assertEquals(ItemState.OVERFLOW, state(doomed));
    timers(T0 + 600);
    assertNull(state(doomed), "expired while waiting for admission");
    assertEquals(List.of(), store.overflowHead(NS, 10));
  }

  @Test
  void aPartitionTakesTheShareOfTheRateThatItsDemandIsOfTheNamespaces() {
    policy = policy(new Rate(100.0, 10L), null);
    for (int i = 0; i < 400; i++) {
      arrive(T0);
    }
    // The rest of the namespace: three times this partition's demand.
    long waiting = store.namespaceCounts(NS).overflow();
    others = new NamespaceLoad.Load(0, 3 * waiting, 0, 3);
    long before = inState(ItemState.READY).size();
    for (long t = T0 + 100; t <= T0 + 2_000; t += 100) {
      others = new NamespaceLoad.Load(0, 3 * store.namespaceCounts(NS).overflow(), 0, 3);
      timers(t);
    }
    long got = inState(ItemState.READY).size() - before;
    // A quarter of 100/s over 2 s is 50 (the share moves a little as the arrival average decays).
    assertTrue(got >= 40 && got <= 65, "admitted " + got + " in 2 s with a quarter share of 100/s");

    others = NamespaceLoad.Load.NONE; // alone again: the whole rate
    long alone = inState(ItemState.READY).size();
    for (long t = T0 + 2_100; t <= T0 + 4_000; t += 100) {
      timers(t);
    }
    long gotAlone = inState(ItemState.READY).size() - alone;
    assertTrue(gotAlone >= 180 && gotAlone <= 210, "admitted " + gotAlone + " in 1.9 s alone at 100/s");
  }

  @Test
  void aPartitionWhoseArrivalsJustBeganGetsAtLeastAnEvenSplit() {
    policy = policy(new Rate(400.0, 400L), null);
    others = new NamespaceLoad.Load(0, 600, 0, 3); // three partitions busy at 200/s each
    for (int i = 0; i < 20; i++) {
      arrive(T0); // a first batch here: its own average is tiny yet
    }
    assertEquals(20, inState(ItemState.READY).size(), "a quarter of the burst (100) takes the batch");
    assertEquals(0, overflowed);
  }

  @Test
  void dispatchFromTheReadyIndexNeverSeesOverflowItems() {
    policy = policy(new Rate(1.0, 1L), null);
    for (int i = 0; i < 10; i++) {
      arrive(T0);
    }
    List<ReadyEntry> head = store.readyHead(NS, "t", 100);
    assertEquals(1, head.size(), "only the admitted item is ready");
    assertEquals(0, head.get(0).offset());
  }
}
