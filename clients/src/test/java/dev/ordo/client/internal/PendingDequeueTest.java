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

  @Test
  void anExactPlanWidensAsSoonAsEveryPartitionItAskedHasAnsweredShort() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.planned(DemandPlan.of(Map.of("t", 3), List.of(new DemandPlan.Entry(1, "t", 2, 0), new DemandPlan.Entry(2, "t", 1, 0)),
        4), 0, 5_000);
    q.offer(item("1-1"), 3);
    q.answeredShort(1);
    assertFalse(q.widenDue(4), "partition 2 has not answered yet");
    q.answeredShort(2);
    assertTrue(q.widenDue(5), "both answered and one item is still missing: no need to wait for the timer");
    assertFalse(q.widenDue(6), "once");

    PendingDequeue served = new PendingDequeue("s", "ns", Map.of("t", 1), 10_000, 1_000);
    served.planned(DemandPlan.of(Map.of("t", 1), List.of(new DemandPlan.Entry(3, "t", 1, 0)), 4), 0, 5_000);
    served.offer(item("3-1"), 2);
    assertFalse(served.widenDue(3), "all it wanted came");
    assertTrue(served.shouldFinish(3, GATHER));

    PendingDequeue silent = new PendingDequeue("q", "ns", Map.of("t", 1), 10_000, 1_000);
    silent.planned(DemandPlan.of(Map.of("t", 1), List.of(new DemandPlan.Entry(3, "t", 1, 0)), 4), 0, 200);
    assertFalse(silent.widenDue(199), "the answer may be on its way");
    assertTrue(silent.widenDue(200), "no answer at all in its time");
  }

  @Test
  void anItemAFinishedDequeueNoLongerTakesGoesToAnOpenOneThatStillWantsItsTopic() {
    PendingDequeue finished = new PendingDequeue("f", "ns", Map.of("t", 1), 10_000, 1_000);
    finished.future().complete(List.of());
    PendingDequeue full = new PendingDequeue("full", "ns", Map.of("t", 1), 10_000, 1_000);
    full.offer(item("0-1"), 1);
    PendingDequeue otherNamespace = new PendingDequeue("o", "other", Map.of("t", 5), 10_000, 1_000);
    PendingDequeue otherTopic = new PendingDequeue("u", "ns", Map.of("u", 5), 10_000, 1_000);
    PendingDequeue any = new PendingDequeue("any", "ns", Map.of("*", 2), 10_000, 1_000);
    PendingDequeue wants = new PendingDequeue("w", "ns", Map.of("t", 2), 10_000, 1_000);

    DeliveredItem late = item("0-9");
    assertFalse(finished.takes(late), "done");
    assertFalse(full.takes(late), "has what it asked for");
    assertFalse(otherNamespace.takes(late));
    assertFalse(otherTopic.takes(late));
    assertTrue(any.takes(late), "any topic of the namespace");
    assertTrue(wants.takes(late));
    assertEquals("w", PendingDequeue.taker(List.of(finished, full, otherNamespace, otherTopic, wants, any), late, "f")
        .requesterId());
    assertEquals(null, PendingDequeue.taker(List.of(wants), late, "w"), "never back to the dequeue it came from");
    wants.fail(new IllegalStateException("send failed"));
    assertFalse(wants.takes(late), "failed");
  }

  private static DeliveredItem item(String id) {
    return DeliveredItem.newBuilder().setItemId(id).setLeaseId("l").setNamespace("ns").setTopic("t").setPriority(0)
        .setAttempt(1).setPayload(ByteBuffer.wrap(new byte[0])).setEnqueuedAt(0).setLeaseExpiresAt(0)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE).build();
  }

  @Test
  void onlyPartitionsThatHaveNotServedAllTheyWereAskedAreStillAsking() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 5), 10_000, 1_000);
    q.planned(DemandPlan.of(Map.of("t", 5), List.of(new DemandPlan.Entry(0, "t", 3, 1),
        new DemandPlan.Entry(1, "t", 2, 1)), 2), 0, 50);
    assertEquals(java.util.Set.of(0, 1), q.stillAsking());
    q.servedBy(0);
    q.servedBy(0);
    assertEquals(java.util.Set.of(0, 1), q.stillAsking(), "partition 0 owes one more");
    q.servedBy(0);
    assertEquals(java.util.Set.of(1), q.stillAsking(), "served in full: the partition dropped the demand");
    q.servedBy(1);
    q.servedBy(1);
    assertEquals(java.util.Set.of(), q.stillAsking());

    q.planned(DemandPlan.widened(Map.of("t", 4), 2), 10, 50);
    assertEquals(java.util.Set.of(0, 1), q.stillAsking(), "a new plan asks anew");
  }
}
