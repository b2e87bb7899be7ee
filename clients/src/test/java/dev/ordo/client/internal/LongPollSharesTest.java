package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A long poll's standing demands: which partitions served their share in full, and may hold more. */
class LongPollSharesTest {

  @Test
  void aPartitionIsFilledOnceItSentItsWholeShareAndIsReportedOnce() {
    LongPollShares shares = new LongPollShares();
    assertTrue(shares.isEmpty());
    shares.polled(Map.of(0, Map.of("t", 2), 1, Map.of("t", 1, "u", 1)));
    assertEquals(Set.of(0, 1), shares.lingering());
    shares.received(0);
    shares.received(1);
    assertEquals(Set.of(), shares.takeFilled(), "neither sent its whole share yet");
    shares.received(0);
    assertEquals(Set.of(0), shares.takeFilled());
    assertEquals(Set.of(), shares.takeFilled(), "taken once");
    shares.received(0);
    assertEquals(Set.of(), shares.takeFilled(), "a filled partition's share is spent: more items do not fill it again");
    assertEquals(Set.of(0, 1), shares.lingering(), "its standing demand is still cancelled when the dequeue ends");
    assertFalse(shares.isEmpty());
  }

  @Test
  void aPartitionAskedOnceNoLongerCountsAgainstItsShare() {
    LongPollShares shares = new LongPollShares();
    shares.polled(Map.of(3, Map.of("t", 1)));
    shares.askedOnce(3);
    shares.received(3);
    assertEquals(Set.of(), shares.takeFilled());
  }

  @Test
  void aNewLongPollStartsEveryShareAfresh() {
    LongPollShares shares = new LongPollShares();
    shares.polled(Map.of(0, Map.of("t", 2)));
    shares.received(0);
    shares.polled(Map.of(0, Map.of("t", 2)));
    shares.received(0);
    assertEquals(Set.of(), shares.takeFilled(), "what came before the refresh does not count");
    shares.received(0);
    assertEquals(Set.of(0), shares.takeFilled());
  }
}
