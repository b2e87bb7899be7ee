package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import dev.ordo.schema.Requester;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueMetrics;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A command on an item carries the namespaces its sender may act on (Command.namespaces, set by the
 * HTTP API from the caller's grants): the queue applies it only to an item of one of them, and leaves
 * any other item exactly as it was, answering INVALID with the namespace that was missing.
 */
class CommandScopeTest {
  private static final Requester A = new Requester("a", 0);
  private final PlannedStore planned = new PlannedStore();
  private final PriorityStore store = planned.store;
  private final QueuePlanner planner = planned.planner;
  private final QueueMetrics metrics = planned.metrics;
  private long now = 1_000_000;

  @Test
  void anAckOutsideTheScopeLeavesTheItemLeasedAndNamesTheNamespace() {
    DeliveredItem d = enqueueAndLease("team-b.billing", 0);
    Outcome refused = single(command(new Ack(d.getItemId(), d.getLeaseId()), List.of("team-a.*")));
    assertEquals(OutcomeResult.INVALID, refused.getResult());
    assertEquals("team-b.billing", refused.getForbiddenNamespace());
    assertEquals(ItemState.LEASED, store.get(0).getState(), "nothing was done");
    assertEquals(1, metrics.get(QueueMetrics.FORBIDDEN));

    Outcome applied = single(command(new Ack(d.getItemId(), d.getLeaseId()), List.of("team-a.*", "team-b.*")));
    assertEquals(OutcomeResult.APPLIED, applied.getResult());
    assertNull(applied.getForbiddenNamespace());
    assertNull(store.get(0), "acked within the scope");
  }

  @Test
  void aCancelOutsideTheScopeKeepsTheItemAndNoScopeMeansAnyNamespace() {
    enqueue("shop", 0);
    Outcome refused = single(command(new Cancel("0-0"), List.of("shops")));
    assertEquals("shop", refused.getForbiddenNamespace());
    assertNotNull(store.get(0));
    Outcome exact = single(command(new Cancel("0-0"), null));
    assertEquals(OutcomeResult.APPLIED, exact.getResult(), "null: any namespace");
    assertNull(store.get(0));
  }

  @Test
  void aBatchOfAcksRefusesOnlyTheItemsOutsideTheScope() {
    DeliveredItem a = enqueueAndLease("a", 0);
    DeliveredItem b = enqueueAndLease("b", 1);
    Effects e = planner.onCommand(new Command(A, now, new Acks(List.of(new Ack(a.getItemId(), a.getLeaseId()),
        new Ack(b.getItemId(), b.getLeaseId()))), false, List.of("a")), store, now);
    apply(e);
    Outcomes outcomes = (Outcomes) e.answers().get(0).body();
    assertEquals(OutcomeResult.APPLIED, outcomes.getOutcomes().get(0).getResult());
    assertEquals("b", outcomes.getOutcomes().get(1).getForbiddenNamespace());
    assertNull(store.get(0));
    assertEquals(ItemState.LEASED, store.get(1).getState());
  }

  private void enqueue(String namespace, long offset) {
    Item item = Item.newBuilder().setNamespace(namespace).setTopic("t").setPriority(0)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
    apply(planner.onItem(offset, now, item, store, now));
  }

  private DeliveredItem enqueueAndLease(String namespace, long offset) {
    enqueue(namespace, offset);
    Effects e = planner.onCommand(new Command(A, now,
        new Demand(namespace, Map.of("t", 1), 60_000L, true, false, true, -1L, 0L), false, null), store, now);
    List<DeliveredItem> got = apply(e);
    assertEquals(1, got.size());
    return got.get(0);
  }

  private Effects command(Object body, List<String> scope) {
    Effects e = planner.onCommand(new Command(A, now, body, true, scope), store, now);
    apply(e);
    return e;
  }

  private static Outcome single(Effects e) {
    assertEquals(1, e.answers().size());
    return (Outcome) e.answers().get(0).body();
  }

  private List<DeliveredItem> apply(Effects effects) {
    return planned.apply(effects);
  }
}
