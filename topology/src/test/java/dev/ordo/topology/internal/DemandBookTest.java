package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.Requester;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The open demand of a partition: soft state, round-robin, lapsing. */
class DemandBookTest {
  private static final Requester A = new Requester("a", 0);
  private static final Requester B = new Requester("b", 1);
  private final DemandBook book = new DemandBook();

  private static List<String> ids(List<DemandBook.Open> open) {
    return open.stream().map(o -> o.requester().getId()).toList();
  }

  @Test
  void aDemandReplacesTheRequestersOpenOneOrAddsToIt() {
    book.put(A, "ns", Map.of("t", 3), 100, true);
    DemandBook.Open replaced = book.put(A, "ns", Map.of("u", 2), 100, true);
    assertEquals(Map.of("u", 2), replaced.remaining());
    DemandBook.Open added = book.put(A, "ns", Map.of("u", 1, "t", 4), 100, false);
    assertEquals(Map.of("u", 3, "t", 4), added.remaining());
    assertEquals(1, book.size(), "one demand per requester and namespace");
    book.put(A, "other", Map.of("t", 1), 100, true);
    assertEquals(2, book.size(), "another namespace is another demand");
  }

  @Test
  void countsOfZeroAreIgnoredAndANothingDemandIsNotKept() {
    DemandBook.Open open = book.put(A, "ns", Map.of("t", 0, "u", 2), 100, true);
    assertEquals(Map.of("u", 2), open.remaining());
    DemandBook.Open nothing = book.put(A, "ns", Map.of("t", 0), 100, true);
    assertTrue(nothing.satisfied());
    assertTrue(book.isEmpty(), "a demand for nothing withdraws the open one");
  }

  @Test
  void wantingFindsDemandsForTheTopicOrAnyTopicOfTheNamespace() {
    book.put(A, "ns", Map.of("t", 1), 100, true);
    book.put(B, "ns", Map.of(DemandBook.ANY_TOPIC, 1), 100, true);
    assertEquals(List.of("a", "b"), ids(book.wanting("ns", "t")));
    assertEquals(List.of("b"), ids(book.wanting("ns", "u")));
    assertTrue(book.wanting("other", "t").isEmpty());
  }

  @Test
  void aServedDemandGoesToTheBackOfTheLineAndASatisfiedOneLeaves() {
    DemandBook.Open a = book.put(A, "ns", Map.of("t", 2), 100, true);
    book.put(B, "ns", Map.of("t", 2), 100, true);
    a.served("t", 1);
    book.afterServing(a);
    assertEquals(List.of("b", "a"), ids(book.wanting("ns", "t")), "round-robin");
    assertEquals(1, a.wanted("t"));
    a.served("t", 1);
    assertTrue(a.satisfied());
    book.afterServing(a);
    assertEquals(List.of("b"), ids(book.all()));
  }

  @Test
  void servingAReplacedDemandLeavesItsReplacementAlone() {
    DemandBook.Open old = book.put(A, "ns", Map.of("t", 1), 100, true);
    DemandBook.Open current = book.put(A, "ns", Map.of("t", 5), 100, true);
    old.served("t", 1);
    book.afterServing(old);
    assertSame(current, book.all().get(0));
    assertEquals(5, book.all().get(0).wanted("t"));
  }

  @Test
  void demandsLapseAtTheirExpiry() {
    book.put(A, "ns", Map.of("t", 1), 100, true);
    book.put(B, "ns", Map.of("t", 1), 200, true);
    assertEquals(0, book.expire(99));
    assertEquals(1, book.expire(100), "at or before now");
    assertEquals(List.of("b"), ids(book.all()));
    book.put(B, "ns", Map.of("t", 1), 300, true);
    assertEquals(0, book.expire(250), "a refreshed demand lives on");
    assertFalse(book.isEmpty());
  }

  @Test
  void expireDueDropsLapsedDemandsOnlyOnceTheEarliestExpiryIsReached() {
    book.put(A, "ns", Map.of("t", 1), 100, true);
    book.put(B, "ns", Map.of("t", 1), 300, true);
    assertEquals(0, book.expireDue(99));
    assertEquals(2, book.size());
    assertEquals(1, book.expireDue(100), "A lapsed");
    assertEquals(List.of("b"), ids(book.wanting("ns", "t")));
    assertEquals(0, book.expireDue(299), "the next earliest is B's");

    book.put(B, "ns", Map.of("t", 1), 500, true); // refreshed: its old expiry no longer holds
    assertEquals(0, book.expireDue(300), "a bound passed that no demand has any more: a look, nothing dropped");
    assertEquals(1, book.size());
    assertEquals(1, book.expireDue(500));
    assertTrue(book.isEmpty());
  }

  @Test
  void underALimitTheBookCountsItsGrantsAcrossDemandsSoItemsInTransitAreNotGrantedTwice() {
    // A consumer with 5 free slots, nothing received yet: the limit is 0 + 5.
    DemandBook.Open first = book.put(A, "ns", Map.of("t", 5, "u", 5), 100, true, false, 5, 0);
    assertEquals(5, first.wanted("t"), "each topic within the limit");
    first.served("t", 3);
    first.served("u", 2);
    assertTrue(first.satisfied(), "the limit is reached however the topics share it");
    book.afterServing(first);
    assertTrue(book.isEmpty(), "nothing open");
    // It refreshes before any of the five arrived, still with 5 free slots: they are in transit.
    DemandBook.Open refresh = book.put(A, "ns", Map.of("t", 5, "u", 5), 100, true, false, 5, 0);
    assertEquals(0, refresh.wanted("t"), "the five granted count against the limit");
    assertTrue(refresh.satisfied());
    // Two arrived and finished: 2 received, 5 free again.
    DemandBook.Open later = book.put(A, "ns", Map.of("t", 5, "u", 5), 100, true, false, 7, 2);
    assertEquals(2, later.wanted("t"), "three still in transit");
    assertEquals(5, later.granted());
  }

  @Test
  void aBookWithNoCountForTheRequesterStartsFromWhatItReceived() {
    DemandBook.Open open = book.put(A, "ns", Map.of("t", 10), 100, true, false, 47, 40);
    assertEquals(7, open.wanted("t"), "limit 47 less the 40 it received from an earlier owner");
    DemandBook.Open known = book.put(A, "ns", Map.of("t", 10), 100, true, false, 50, 45);
    assertEquals(5, known.wanted("t"), "the requester saw more than the book knew: its count is the floor");
  }

  @Test
  void theCountOfAServedDemandLapsesWithIt() {
    DemandBook.Open open = book.put(A, "ns", Map.of("t", 2), 100, true, false, 2, 0);
    open.served("t", 2);
    book.afterServing(open);
    book.expire(100);
    DemandBook.Open fresh = book.put(A, "ns", Map.of("t", 2), 300, true, false, 4, 0);
    assertEquals(2, fresh.wanted("t"), "after the lapse the requester's own count is all there is");
  }

  @Test
  void aOnceDemandIsNotInTheBookAndLeavesTheRequestersOpenDemandAlone() {
    book.put(A, "ns", Map.of("t", 3), 100, true);
    DemandBook.Open once = book.once(A, "ns", Map.of("t", 2), true);
    assertTrue(DemandBook.isOnce(once));
    assertEquals(1, book.size());
    assertEquals(3, book.wanting("ns", "t").get(0).wanted("t"), "the open demand is untouched");
    once.served("t", 1);
    assertEquals(1, once.granted());
    book.hold(once, 200);
    assertEquals(2, book.size(), "held for a continuation beside the open demand");
    book.drop(once);
    assertEquals(1, book.size());
  }
}
