package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliverySemantics;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PendingDequeueTest {
  private static final long GATHER = 50;

  @Test
  void anExactPlanFinishesAsSoonAsEveryCountArrived() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 2), 10_000, 1_000);
    q.planned(DemandPlan.of(Map.of("t", 2), List.of(new DemandPlan.Entry(0, "t", 5, 0)), 4), 0, GATHER);
    q.offer(item("0-1"), 5);
    assertFalse(q.shouldFinish(6, GATHER), "one of two");
    q.offer(item("0-2"), 7);
    assertTrue(q.shouldFinish(7, GATHER), "both came: nothing better to wait for");
  }

  @Test
  void aBroadcastPlanWaitsTheGatherWindowForBetterItems() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 1), 10_000, 1_000);
    q.planned(DemandPlan.of(Map.of("t", 1), List.of(), 4), 0, GATHER);
    q.offer(item("0-1"), 5);
    assertFalse(q.shouldFinish(6, GATHER), "another partition may offer a better one");
    assertTrue(q.shouldFinish(5 + GATHER, GATHER));
  }

  @Test
  void anExactPlanThatBroughtNothingIsWidenedOnceAfterTheGatherWindow() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 1), 10_000, 1_000);
    q.planned(DemandPlan.of(Map.of("t", 1), List.of(new DemandPlan.Entry(3, "t", 1, 0)), 4), 0, GATHER);
    assertFalse(q.widenDue(GATHER - 1));
    assertTrue(q.widenDue(GATHER));
    assertFalse(q.widenDue(GATHER + 1), "once");
    assertEquals(java.util.Set.of(3), q.asked());
  }

  @Test
  void anExactPlanThatGotItemsIsNotWidened() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.planned(DemandPlan.of(Map.of("t", 3), List.of(new DemandPlan.Entry(3, "t", 3, 0)), 4), 0, GATHER);
    q.offer(item("3-1"), 10);
    assertFalse(q.widenDue(GATHER));
    assertTrue(q.shouldFinish(10 + GATHER, GATHER), "short of the count, it ends with the gather window");
  }

  @Test
  void theFirstArrivalOfAnExactPlanTellsHowLongThePartitionsTookToAnswer() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.planned(DemandPlan.of(Map.of("t", 3), List.of(new DemandPlan.Entry(3, "t", 3, 0)), 4), 100, GATHER);
    assertEquals(35, q.offer(item("3-1"), 135));
    assertEquals(-1, q.offer(item("3-2"), 140), "only the first");

    PendingDequeue broadcast = new PendingDequeue("s", "ns", Map.of("t", 3), 10_000, 1_000);
    broadcast.planned(DemandPlan.of(Map.of("t", 3), List.of(), 4), 100, GATHER);
    assertEquals(-1, broadcast.offer(item("0-1"), 400), "a broadcast waits for items to become ready, not for answers");
  }

  @Test
  void widenWaitsLongerWhenThePartitionsAnswerSlowly() {
    assertEquals(GATHER, PendingDequeue.widenAfter(GATHER, 10));
    assertEquals(180, PendingDequeue.widenAfter(GATHER, 60), "a loaded server: its answers are on their way");
  }

  @Test
  void reservationsAreUsedByArrivalsAndTheRestGivenBack() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.reserve(Map.of("3/t", 3L));
    assertTrue(q.useReservation("3/t"));
    assertFalse(q.useReservation("1/t"));
    assertEquals(Map.of("3/t", 2L), q.dropReservations());
    assertEquals(Map.of(), q.dropReservations());
  }

  private static DeliveredItem item(String id) {
    return DeliveredItem.newBuilder().setItemId(id).setLeaseId("l").setNamespace("ns").setTopic("t").setPriority(0)
        .setAttempt(1).setPayload(ByteBuffer.wrap(new byte[0])).setEnqueuedAt(0).setLeaseExpiresAt(0)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE).build();
  }
}
