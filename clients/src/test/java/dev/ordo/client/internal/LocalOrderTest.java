package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/** The order a lease consumer's leased items wait in for a worker ({@link LocalOrder}). */
class LocalOrderTest {
  private final LocalOrder order = new LocalOrder();
  private final PriorityQueue<LocalOrder.Ticket> waiting = new PriorityQueue<>(LocalOrder.COMPARATOR);

  private void admit(int priority, String group, int n) {
    for (int i = 0; i < n; i++) {
      waiting.add(order.admit(priority, group));
    }
  }

  /** What the workers take next, as they take it. */
  private List<String> start(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n && !waiting.isEmpty(); i++) {
      LocalOrder.Ticket t = waiting.poll();
      order.started(t);
      out.add(t.priority() + ":" + t.group());
    }
    return out;
  }

  @Test
  void anItemOfAGroupWithNothingWaitingIsNextNotBehindAnotherGroupsBacklog() {
    admit(5, "bob", 1_000);
    assertEquals(List.of("5:bob", "5:bob"), start(2));
    admit(5, "alice", 1);
    assertEquals(List.of("5:alice", "5:bob", "5:bob"), start(3),
        "Alice's one item is next, not behind Bob's 998");
  }

  @Test
  void anItemWithoutAGroupKeyIsAGroupOfItsOwn() {
    admit(5, "bob", 100);
    start(10);
    admit(5, null, 1);
    assertEquals(List.of("5:null", "5:bob", "5:bob"), start(3));
  }

  @Test
  void twoBackloggedGroupsTakeTurnsWhateverOrderTheyCameIn() {
    admit(5, "bob", 4);
    admit(5, "carol", 4);
    assertEquals(List.of("5:bob", "5:carol", "5:bob", "5:carol", "5:bob", "5:carol", "5:bob", "5:carol"), start(8));
  }

  @Test
  void lowerPriorityNumbersComeFirstWhateverTheGroups() {
    admit(5, "bob", 3);
    admit(1, "bob", 1);
    admit(9, "alice", 1);
    admit(1, "carol", 1);
    assertEquals(List.of("1:bob", "1:carol", "5:bob", "5:bob", "5:bob", "9:alice"), start(6));
  }

  @Test
  void aGroupIsForgottenOnceNothingOfItWaits() {
    admit(5, "bob", 3);
    admit(5, "alice", 2);
    start(4);
    assertEquals(1, order.groupsWaiting());
    start(1);
    assertEquals(0, order.groupsWaiting());
    LocalOrder.Ticket dropped = order.admit(5, "dave");
    order.dropped(dropped);
    assertEquals(0, order.groupsWaiting(), "an item that never starts is forgotten too");
  }
}
