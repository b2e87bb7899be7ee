package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import org.junit.jupiter.api.Test;

/** {@link DecodedItems} keeps the most recently used items within its estimate of their heap. */
class DecodedItemsTest {
  private static final int O = DecodedItems.OVERHEAD_BYTES;

  @Test
  void theLeastRecentlyUsedGoFirstWhenTheBudgetIsReached() {
    DecodedItems d = new DecodedItems(2 * (O + 10));
    d.put(1, item(10));
    d.put(2, item(10));
    assertNotNull(d.get(1)); // 1 is now the most recently used
    d.put(3, item(10));
    assertNull(d.get(2), "the least recently used went");
    assertNotNull(d.get(1));
    assertNotNull(d.get(3));
    assertEquals(2, d.size());
  }

  @Test
  void bytesAreAccountedThroughReplacementsAndRemovals() {
    DecodedItems d = new DecodedItems(3 * O + 250);
    d.put(1, item(100));
    d.put(2, item(100));
    assertEquals(2 * O + 200, d.bytes());
    StoredItem bigger = item(120);
    d.put(2, bigger); // replaces: 100 + 120
    assertEquals(2 * O + 220, d.bytes());
    assertSame(bigger, d.get(2));
    d.put(3, item(100)); // 3 * O + 320 > budget: the eldest (1) goes
    assertNull(d.get(1));
    assertEquals(2 * O + 220, d.bytes());
    d.remove(2);
    d.remove(42); // unknown: nothing changes
    assertEquals(O + 100, d.bytes());
    assertEquals(1, d.size());
  }

  @Test
  void metadataCountsAndAnItemLargerThanTheBudgetIsNotKept() {
    DecodedItems d = new DecodedItems(O + 100);
    StoredItem withMetadata = item(50);
    withMetadata.getItem().setMetadata(java.nio.ByteBuffer.wrap(new byte[30]));
    assertEquals(O + 80, DecodedItems.estimate(withMetadata));
    d.put(1, withMetadata);
    assertSame(withMetadata, d.get(1));
    d.put(1, item(101)); // too large for the budget: not kept, and the old value goes with it
    assertNull(d.get(1));
    assertEquals(0, d.bytes());
    assertEquals(0, d.size());
    DecodedItems none = new DecodedItems(0);
    none.put(1, item(0));
    assertNull(none.get(1));
  }

  private static StoredItem item(int payloadBytes) {
    return Items.stored("ns", "t", 0, ItemState.READY, 1_000, null, null, new byte[payloadBytes]);
  }
}
