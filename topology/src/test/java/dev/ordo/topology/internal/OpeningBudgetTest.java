package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A stream thread's task opens in a row share one time for indexing the item tables they rebuild
 * (decisions D67): Kafka Streams opens them in one go, and their stall adds up against the transaction
 * timeout.
 */
class OpeningBudgetTest {
  private static final long T = 1_000_000;

  @Test
  void opensInARowShareTheTimeOfTheFirst() {
    OpeningBudget b = new OpeningBudget();
    assertEquals(T + OpeningBudget.INDEX_ALONG_MS, b.indexAlongUntil(T));
    b.ended(T + 1_800);
    assertEquals(T + OpeningBudget.INDEX_ALONG_MS, b.indexAlongUntil(T + 1_810), "the next task of the same go");
    b.ended(T + 4_000);
    assertEquals(T + OpeningBudget.INDEX_ALONG_MS, b.indexAlongUntil(T + 4_005), "past the time: no indexing along");
  }

  @Test
  void anOpenLongAfterTheLastStartsAGoOfItsOwn() {
    OpeningBudget b = new OpeningBudget();
    b.indexAlongUntil(T);
    b.ended(T + 500);
    long later = T + 500 + OpeningBudget.SAME_GO_MS;
    assertEquals(later + OpeningBudget.INDEX_ALONG_MS, b.indexAlongUntil(later));
  }
}
