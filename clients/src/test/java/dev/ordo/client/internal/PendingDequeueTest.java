package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliverySemantics;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The decisions of one dequeue: when it ends, when it asks again, what it takes (decisions D50). */
class PendingDequeueTest {
  private static final long GATHER = 50;
  private static final long GRACE = 2_000;

  @Test
  void anExactRoundFinishesAsSoonAsEveryPartitionSentWhatItWasAsked() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.askedOnce(Map.of(0, Map.of("t", 2), 1, Map.of("t", 1)), 0, 500);
    q.offer(item("0-1"), 0, 5);
    q.offer(item("0-2"), 0, 6);
    assertFalse(q.roundSettled(), "partition 1 has not sent its item");
    assertFalse(q.shouldFinish(7, GATHER, GRACE), "no gather window while an asked partition has items on the way");
    assertFalse(q.shouldFinish(400, GATHER, GRACE), "nor later: what partition 1 was asked is this dequeue's");
    q.offer(item("1-1"), 1, 401);
    assertTrue(q.roundSettled());
    assertTrue(q.shouldFinish(401, GATHER, GRACE));
  }

  @Test
  void aPartitionAbandonedForItsOpenBreakerIsNoLongerWaitedFor() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 2), 10_000, 1_000);
    q.askedOnce(Map.of(0, Map.of("t", 2)), 0, 500);
    assertTrue(q.roundOverdue(500));
    assertFalse(q.shouldFinish(10_000, GATHER, GRACE), "a partition asked once is waited for past the deadline");
    q.abandon(Set.of(0));
    assertEquals(Map.of("t", 2), q.stillUncovered(), "what it owed is asked of the others");
    q.longPolled(Map.of(1, Map.of("t", 2)), 500);
    q.offer(item("1-1"), 1, 600);
    assertTrue(q.shouldFinish(600 + GATHER, GATHER, GRACE), "served by the others, it ends after the gather window");
    q.offer(item("0-1"), 0, 700); // the hung partition's item, late: still taken while open
    assertEquals(2, q.received().size());
  }

  @Test
  void aPartitionThatAnsweredShortIsWaitedForUntilWhatItGrantedCame() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 5), 10_000, 1_000);
    q.askedOnce(Map.of(0, Map.of("t", 5)), 0, 500);
    // The short answer may come before the items it counts (they ride the transaction, it does not).
    assertEquals(Set.of("t"), q.answeredOnce(0, 2), "fewer than asked: its stats entry is stale");
    assertFalse(q.roundSettled());
    q.offer(item("0-1"), 0, 3);
    assertFalse(q.roundSettled());
    q.offer(item("0-2"), 0, 4);
    assertTrue(q.roundSettled());
    assertTrue(q.shouldFinish(4, GATHER, GRACE), "items in hand and nothing more on the way: done, like SQS");
  }

  @Test
  void aRoundThatBroughtNothingIsFollowedByAnotherPlanNotByTheEnd() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 1), 10_000, 1_000);
    q.askedOnce(Map.of(3, Map.of("t", 1)), 0, 500);
    assertEquals(Set.of("t"), q.answeredOnce(3, 0));
    assertTrue(q.roundSettled());
    assertFalse(q.shouldFinish(10, GATHER, GRACE), "the caller waits: ask again");
    assertEquals(1, q.rounds());
    assertTrue(q.shouldFinish(10_000, GATHER, GRACE), "at the deadline it ends empty");
  }

  @Test
  void aDequeueWhoseFirstPlanIsStillBeingSentIsNeitherSettledNorDone() {
    // The caller's thread plans the first round while the poll thread already sees the dequeue: were
    // it "settled", the poll thread would send a second round, and the dequeue get twice its count.
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 20), 10_000, 1_000);
    assertFalse(q.roundSettled());
    assertFalse(q.roundOverdue(5_000));
    assertFalse(q.shouldFinish(5, GATHER, GRACE));
  }

  @Test
  void aRoundPastItsTimeLongPollsOnlyForWhatItsAnswersDoNotCover() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 5), 10_000, 1_000);
    q.askedOnce(Map.of(0, Map.of("t", 2), 1, Map.of("t", 2)), 0, 300);
    q.offer(item("0-1"), 0, 10);
    q.answeredOnce(1, 1);
    assertEquals(Map.of("t", 2), q.stillUncovered(), "5 wanted, 1 came, 1 owed by 0 and 1 by 1");
    q.longPolled(Map.of(2, Map.of("t", 2)), 400);
    assertFalse(q.shouldFinish(10_000 - 1, GATHER, GRACE), "the once answers are still counted on");
    q.offer(item("0-2"), 0, 450);
    q.offer(item("1-1"), 1, 460);
    assertEquals(Map.of("t", 2), q.stillUncovered());
    assertTrue(q.shouldFinish(500, GATHER, GRACE), "settled, with items in hand since long before the gather window");
  }

  @Test
  void anUnansweredRoundWaitsPastTheDeadlineOnlyForTheGrace() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 1), 1_000, 1_000);
    q.askedOnce(Map.of(3, Map.of("t", 1)), 0, 300);
    assertFalse(q.roundOverdue(299));
    assertTrue(q.roundOverdue(300), "answers lost or slow: the dequeue long-polls");
    assertFalse(q.shouldFinish(1_000 + GRACE - 1, GATHER, GRACE));
    assertTrue(q.shouldFinish(1_000 + GRACE, GATHER, GRACE));
  }

  @Test
  void aLongPollWaitsTheGatherWindowAfterItsFirstItem() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.longPolled(Map.of(0, Map.of("t", 1), 1, Map.of("t", 1), 2, Map.of("t", 1)), 0);
    assertEquals(Set.of(0, 1, 2), q.lingering(), "what to cancel when it ends");
    assertFalse(q.shouldFinish(100, GATHER, GRACE));
    assertEquals(-1, q.offer(item("0-1"), 0, 100), "a long poll's arrival says nothing of answer times");
    assertFalse(q.shouldFinish(149, GATHER, GRACE));
    assertTrue(q.shouldFinish(150, GATHER, GRACE));
  }

  @Test
  void aLongPolledPartitionThatServedItsWholeShareIsAskedOnceForMoreAndWaitedFor() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 4), 10_000, 1_000);
    q.longPolled(Map.of(0, Map.of("t", 1), 1, Map.of("t", 1), 2, Map.of("t", 1), 3, Map.of("t", 1)), 0);
    q.offer(item("2-1"), 2, 10);
    assertEquals(Set.of(2), q.takeFilled(), "its share served: it may hold more");
    assertEquals(Set.of(), q.takeFilled());
    assertEquals(Map.of("t", 3), q.stillUncovered());
    q.askedMore(2, Map.of("t", 3));
    assertEquals(Set.of(2), q.awaitingOnce(), "a refresh of the long poll leaves it out");
    assertFalse(q.shouldFinish(10 + GATHER, GATHER, GRACE), "its answer is on its way");
    q.answeredOnce(2, 1);
    q.offer(item("2-2"), 2, 70);
    assertTrue(q.shouldFinish(70, GATHER, GRACE));
    assertEquals(2, q.received().size());
  }

  @Test
  void theFirstItemOfAnExactRoundTellsHowLongThePartitionsTookToAnswer() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.askedOnce(Map.of(3, Map.of("t", 3)), 100, 500);
    assertEquals(40, q.offer(item("3-1"), 3, 140));
    assertEquals(-1, q.offer(item("3-2"), 3, 150), "only the first item tells");
    assertEquals(GATHER, PendingDequeue.roundTimeout(GATHER, 0), "the gather window at least");
    assertEquals(600, PendingDequeue.roundTimeout(GATHER, 200), "three answer times when longer");
  }

  @Test
  void aDequeueHoldsOneLeaseAnItemTheLatest() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.longPolled(Map.of(0, Map.of("t", 3)), 0);
    q.offer(item("0-1", "l1"), 0, 10);
    q.offer(item("0-1", "l1"), 0, 11); // the same record read twice
    assertEquals(1, q.received().size());
    q.offer(item("0-1", "l2"), 0, 12); // leased again: the first lease is no longer the item's
    assertEquals(List.of("l2"), q.received().stream().map(DeliveredItem::getLeaseId).toList());
    q.handOver(item("0-1", "l3"), 13);
    assertEquals(List.of("l3"), q.received().stream().map(DeliveredItem::getLeaseId).toList());
  }

  @Test
  void reservationsAreUsedByArrivalsAndTheRestGivenBack() {
    PendingDequeue q = new PendingDequeue("r", "ns", Map.of("t", 3), 10_000, 1_000);
    q.reserve(Map.of("0/t", 2L, "1/t", 1L));
    assertTrue(q.useReservation("0/t"));
    assertFalse(q.useReservation("2/t"));
    assertEquals(Map.of("0/t", 1L, "1/t", 1L), q.dropReservations());
    assertEquals(Map.of(), q.dropReservations());
  }

  @Test
  void anItemAFinishedDequeueNoLongerTakesGoesToAnOpenOneThatStillWantsItsTopic() {
    PendingDequeue finished = new PendingDequeue("f", "ns", Map.of("t", 1), 10_000, 1_000);
    finished.future().complete(List.of());
    PendingDequeue full = new PendingDequeue("full", "ns", Map.of("t", 1), 10_000, 1_000);
    full.longPolled(Map.of(0, Map.of("t", 1)), 0);
    full.offer(item("0-1"), 0, 1);
    PendingDequeue otherNamespace = new PendingDequeue("o", "other", Map.of("t", 5), 10_000, 1_000);
    PendingDequeue otherTopic = new PendingDequeue("u", "ns", Map.of("u", 5), 10_000, 1_000);
    PendingDequeue any = new PendingDequeue("any", "ns", Map.of("*", 2), 10_000, 1_000);
    PendingDequeue wants = new PendingDequeue("w", "ns", Map.of("t", 2), 10_000, 1_000);
    PendingDequeue exact = new PendingDequeue("x", "ns", Map.of("t", 2), 10_000, 1_000);
    exact.askedOnce(Map.of(1, Map.of("t", 2)), 0, 500);

    DeliveredItem late = item("0-9");
    assertFalse(finished.takes(late), "done");
    assertFalse(full.takes(late), "has what it asked for");
    assertFalse(otherNamespace.takes(late));
    assertFalse(otherTopic.takes(late));
    assertFalse(exact.takes(late), "its round's items are on their way: one more would be a surplus");
    assertTrue(any.takes(late), "any topic of the namespace");
    assertTrue(wants.takes(late));
    assertEquals("w", PendingDequeue.taker(List.of(finished, full, otherNamespace, otherTopic, exact, wants, any), late,
        "f").requesterId());
    assertEquals(null, PendingDequeue.taker(List.of(wants), late, "w"), "never back to the dequeue it came from");
    wants.fail(new IllegalStateException("send failed"));
    assertFalse(wants.takes(late), "failed");
  }

  private static DeliveredItem item(String id) {
    return item(id, "l-" + id);
  }

  private static DeliveredItem item(String id, String lease) {
    return DeliveredItem.newBuilder().setItemId(id).setLeaseId(lease).setNamespace("ns").setTopic("t").setPriority(0)
        .setAttempt(1).setPayload(ByteBuffer.wrap(new byte[0])).setEnqueuedAt(0).setLeaseExpiresAt(0)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE).build();
  }
}
