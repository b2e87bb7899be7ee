package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.bench.internal.FairOrder.Dispatch;
import dev.ordo.bench.internal.FairOrder.Sent;
import dev.ordo.bench.internal.FairOrder.Share;
import dev.ordo.bench.internal.FairOrder.Turn;
import dev.ordo.bench.internal.FairOrder.TurnSummary;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FairOrderTest {

  @Test
  void aTurnCountsTheDispatchesBeforeTheItemSinceItsEnqueueAndSinceItsArrival() {
    //                                 0    1    2    3    4    5    6    7
    List<Dispatch> order = FairOrder.of("b", "b", "b", "a", "b", "b", "a", "b");
    List<Turn> turns = FairOrder.turns(order, "a", "b", List.of(
        new Sent(0, 1, 2, 3),   // enqueued after 1 dispatch, arrived after 2 or 3, dispatched at 3
        new Sent(1, 3, 4, 6))); // enqueued after 3, arrived after 4 to 6, dispatched at 6
    assertEquals(List.of(new Turn(0, 3, 2, 0, 1, true), new Turn(1, 6, 3, 0, 2, true)), turns);
  }

  @Test
  void itemsTakenInTogetherEachWaitFromTheirTurnNotFromTheirArrival() {
    //                                 0    1    2    3    4    5    6    7    8
    List<Dispatch> order = FairOrder.of("b", "b", "a", "b", "a", "b", "a", "b", "b");
    // All three of hers taken in by one poll, after 2 dispatches (exactly): the queue alternates.
    List<Turn> turns = FairOrder.turns(order, "a", "b", List.of(
        new Sent(0, 0, 2, 2), new Sent(1, 0, 2, 2), new Sent(2, 0, 2, 2)));
    assertEquals(List.of(0L, 1L, 1L), turns.stream().map(Turn::afterArrivalAtLeast).toList(),
        "each waited for one of Bob's after her previous one, not for her own earlier items");
    assertEquals(List.of(0L, 1L, 1L), turns.stream().map(Turn::afterArrivalAtMost).toList());
    assertEquals(List.of(2L, 4L, 6L), turns.stream().map(Turn::sinceEnqueue).toList(), "since enqueue: unchanged");

    // The same order with Bob served twice in a row between her items: the turn shows it.
    List<Turn> unfair = FairOrder.turns(FairOrder.of("b", "b", "a", "b", "b", "b", "a"), "a", "b", List.of(
        new Sent(0, 0, 2, 2), new Sent(1, 0, 2, 2)));
    assertEquals(3, unfair.get(1).afterArrivalAtLeast(), "three of Bob's after her previous one");
  }

  @Test
  void anItemEnqueuedAfterBobsLastWasDispatchedIsNotBehindHisBacklog() {
    List<Dispatch> order = FairOrder.of("b", "b", "a", "b", "a");
    List<Turn> turns = FairOrder.turns(order, "a", "b", List.of(new Sent(0, 0, 0, 0), new Sent(1, 3, 4, 4),
        new Sent(1, 4, 4, 4)));
    assertTrue(turns.get(0).behindBacklog());
    assertTrue(turns.get(1).behindBacklog(), "3 dispatched: Bob's last (entry 3) was not yet");
    assertFalse(turns.get(2).behindBacklog(), "4 dispatched: Bob's last was");
  }

  @Test
  void aRedispatchIsAnEntryButNotTheItemsDispatchAndUndispatchedItemsAreLeftOut() {
    List<Dispatch> order = List.of(new Dispatch("a", 0), new Dispatch("b", 0), new Dispatch("a", 0),
        new Dispatch("b", 1), new Dispatch("b", 0));
    List<Turn> turns = FairOrder.turns(order, "a", "b", List.of(new Sent(0, 0, 0, 1), new Sent(9, 0, 0, 0)));
    assertEquals(1, turns.size());
    assertEquals(0, turns.get(0).position(), "its first dispatch");
    assertTrue(turns.get(0).behindBacklog(), "Bob's last first dispatch is entry 3");
  }

  @Test
  void theSummaryCoversTheItemsBehindTheBacklog() {
    List<Turn> turns = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      turns.add(new Turn(i, 10 * i, i % 7, 0, i % 3, true));
    }
    turns.add(new Turn(200, 5_000, 999, 900, 999, false));
    TurnSummary s = FairOrder.summary(turns);
    assertEquals(200, s.items());
    assertEquals(2, s.afterArrivalMax());
    assertEquals(2, s.afterArrivalP99(), 1e-9);
    assertEquals(1, s.afterArrivalP50(), 1e-9);
    assertEquals(0, s.afterArrivalAtLeastMax());
    assertEquals(6, s.sinceEnqueueMax());
    assertEquals(0, FairOrder.summary(List.of()).items());
    assertTrue(Double.isNaN(FairOrder.summary(List.of()).afterArrivalP99()));
  }

  @Test
  void theShareStopsWhenEitherGroupHadItsLastDispatched() {
    List<Dispatch> order = FairOrder.of("h", "l", "h", "h", "h", "l", "h", "h", "l", "l", "l");
    Share s = FairOrder.share(order, "h", "l", 6);
    assertEquals(new Share(6, 2), s, "h's sixth is entry 7: l had 2 by then");
    assertEquals(3.0, s.ratio(), 1e-12);
    Share redispatched = FairOrder.share(List.of(new Dispatch("h", 0), new Dispatch("h", 0), new Dispatch("l", 0)),
        "h", "l", 2);
    assertEquals(new Share(1, 1), redispatched, "an item counts once");
    assertTrue(Double.isNaN(new Share(3, 0).ratio()));
  }
}
