package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.Requester;
import dev.ordo.store.PriorityStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The dispatch step ({@code ordo.dispatch.step.max}, decisions D44): one record or timer run leases
 * at most that many items; the continuations that follow serve the rest of the open demand, in the
 * queue's order, round-robin among requesters; and while a dispatch is pending no item is leased on
 * arrival ahead of the items already ready.
 */
class DispatchStepTest {
  private static final String NS = "ns";
  private static final Requester A = new Requester("a", 0);
  private static final Requester B = new Requester("b", 0);

  private final PriorityStore store = QueuePlannerSimulationTest.newStore();
  private long now = 1_000_000;
  private long nextOffset;
  private QueuePlanner planner;

  private void planner(int step) {
    planner = new QueuePlanner(new QueuePlanner.Settings(new QueueDefaults(30_000, 5, null, 600_000),
        List.of(Duration.ofMinutes(1)), 10_000, 10_000, 0, false, 1).withDispatchStep(step), 0, new SplittableRandom(1));
  }

  @Test
  void aDemandLargerThanTheStepIsServedByTheTimerRunsThatFollowInTheQueuesOrder() {
    planner(3);
    int[] priorities = {5, 1, 5, 3, 1, 9, 3, 5, 1, 7};
    for (int p : priorities) {
      enqueue(p);
    }
    List<Long> leased = new ArrayList<>(leasedOffsets(demand(A, 10)));
    assertEquals(3, leased.size(), "the demand's own record leases one step");
    assertTrue(planner.dispatchPending());
    int runs = 0;
    while (planner.dispatchPending()) {
      List<Long> step = leasedOffsets(apply(planner.continueDispatch(store, ++now)));
      assertTrue(step.size() <= 3, "a continuation leased " + step.size());
      leased.addAll(step);
      runs++;
    }
    assertEquals(3, runs, "3 items by the demand's record, then 3, 3 and 1 by continuations; then nothing pending");
    // Priority first, then arrival order (same slot rule: no group keys).
    assertEquals(List.of(1L, 4L, 8L, 3L, 6L, 0L, 2L, 7L, 9L, 5L), leased);
  }

  @Test
  void anItemArrivingWhileADispatchIsPendingIsNotLeasedAheadOfTheReadyOnes() {
    planner(2);
    for (int i = 0; i < 5; i++) {
      enqueue(5);
    }
    assertEquals(List.of(0L, 1L), leasedOffsets(demand(A, 5)));
    assertTrue(planner.dispatchPending());

    // The demand still wants 3 and items 2-4 wait: item 5 must queue behind them, not go at once.
    assertEquals(List.of(), leasedOffsets(enqueue(5)), "leased on arrival ahead of three ready items");
    List<Long> rest = new ArrayList<>();
    while (planner.dispatchPending()) {
      rest.addAll(leasedOffsets(apply(planner.continueDispatch(store, ++now))));
    }
    assertEquals(List.of(2L, 3L, 4L), rest);
    assertEquals(1, store.counts(NS, "t").ready(), "item 5 stays ready: the demand had what it asked for");
  }

  @Test
  void anItemArrivingWhileADispatchIsPendingWithNothingReadyIsLeasedOnArrival() {
    planner(2);
    enqueue(5);
    enqueue(5);
    assertEquals(List.of(0L, 1L), leasedOffsets(demand(A, 5)));
    assertTrue(planner.dispatchPending(), "the step ran out with the demand wanting 3 more");
    assertEquals(0, store.counts(NS, "t").ready());

    // Nothing ready comes before item 2: it goes to the waiting demand at once, as without a step.
    assertEquals(List.of(2L), leasedOffsets(enqueue(5)), "waited READY for the continuation");
    assertEquals(0, store.counts(NS, "t").ready());
    assertEquals(3, store.counts(NS, "t").leased(), "items 0-2 leased");
    assertEquals(List.of(), leasedOffsets(apply(planner.continueDispatch(store, ++now))));
    assertFalse(planner.dispatchPending());
  }

  @Test
  void anItemArrivingWhileADispatchIsPendingWaitsBehindReadyItemsOfItsNamespacesOtherTopics() {
    planner(1);
    enqueue(5);
    enqueue("u", 5);
    Command any = new Command(A, now, new Demand(NS, Map.of(DemandBook.ANY_TOPIC, 3), 60_000L, true, false, false, -1L, 0L), false, null);
    assertEquals(List.of(0L), leasedOffsets(apply(planner.onCommand(any, store, now))));
    assertTrue(planner.dispatchPending());

    // The demand takes any topic, and topic u's item 1 is ready before it: item 2 must not go first.
    assertEquals(List.of(), leasedOffsets(enqueue(5)), "leased on arrival ahead of another topic's ready item");
    List<Long> rest = new ArrayList<>();
    while (planner.dispatchPending()) {
      rest.addAll(leasedOffsets(apply(planner.continueDispatch(store, ++now))));
    }
    assertEquals(List.of(1L, 2L), rest);
  }

  @Test
  void pendingDispatchServesTheRequestersInTurn() {
    planner(2);
    for (int i = 0; i < 8; i++) {
      enqueue(5);
    }
    assertEquals(2, demand(A, 4).size());
    assertEquals(2, demand(B, 4).size(), "B's own record leases a step too");
    List<String> order = new ArrayList<>();
    while (planner.dispatchPending()) {
      for (DeliveredItem d : apply(planner.continueDispatch(store, ++now))) {
        order.add(requesterOf(d));
      }
    }
    // A's record came first, so A is at the front of the line again once B's record has put B
    // behind it; each continuation serves up to the step, from the front of the line.
    assertEquals(List.of("a", "a", "b", "b"), order);
    assertEquals(4, order.size());
    assertEquals(0, store.counts(NS, "t").ready());
  }

  @Test
  void aDemandCutByTheStepIsNotAnsweredShortSinceTheRestMayBeHere() {
    planner(4);
    for (int i = 0; i < 6; i++) {
      enqueue(5);
    }
    Effects cut = planner.onCommand(new Command(A, now, new Demand(NS, Map.of("t", 10), 60_000L, true, true, false, -1L, 0L), false, null),
        store, now);
    assertEquals(0, cut.answers().size(), "answered short while 2 of its items were still to come");
    assertEquals(4, apply(cut).size());

    planner(0);
    Effects whole = planner.onCommand(new Command(B, now, new Demand(NS, Map.of("t", 10), 60_000L, true, true, false, -1L, 0L), false, null),
        store, now);
    assertEquals(1, whole.answers().size(), "without a step the short answer comes at once");
    assertEquals(2, apply(whole).size());
  }

  @Test
  void withoutAStepADemandIsServedInFullByItsOwnRecord() {
    planner(0);
    for (int i = 0; i < 600; i++) {
      enqueue(5);
    }
    assertEquals(600, demand(A, 1_000).size());
    assertFalse(planner.dispatchPending());
  }

  // ---- helpers ----

  private final Map<String, String> requesterByItem = new java.util.HashMap<>();

  private List<DeliveredItem> enqueue(int priority) {
    return enqueue("t", priority);
  }

  private List<DeliveredItem> enqueue(String topic, int priority) {
    Item item = Item.newBuilder().setNamespace(NS).setTopic(topic).setPriority(priority)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
    return apply(planner.onItem(nextOffset++, now, item, store, now));
  }

  private List<DeliveredItem> demand(Requester r, int n) {
    Command c = new Command(r, now, new Demand(NS, Map.of("t", n), 60_000L, true, false, false, -1L, 0L), false, null);
    return apply(planner.onCommand(c, store, now));
  }

  private List<DeliveredItem> apply(Effects effects) {
    for (Effects.Change c : effects.changes()) {
      store.transition(c.offset(), c.before(), c.after());
    }
    store.markChanges();
    List<DeliveredItem> leased = new ArrayList<>();
    for (Effects.Leased l : effects.leased()) {
      for (DeliveredItem d : l.items()) {
        requesterByItem.put(d.getItemId(), l.requester().getId());
        leased.add(d);
      }
    }
    return leased;
  }

  private String requesterOf(DeliveredItem d) {
    return requesterByItem.get(d.getItemId());
  }

  private static List<Long> leasedOffsets(List<DeliveredItem> leased) {
    return leased.stream().map(d -> ItemId.parse(d.getItemId()).offset()).toList();
  }
}
