package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import org.junit.jupiter.api.Test;

/** {@link DecodedItems} keeps the most recently used items within its count and payload bounds. */
class DecodedItemsTest {

  @Test
  void theLeastRecentlyUsedGoFirstWhenTheCountIsReached() {
    DecodedItems d = new DecodedItems(2, 1 << 20);
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
  void payloadBytesAreBoundedAndAccountedThroughReplacementsAndRemovals() {
    DecodedItems d = new DecodedItems(100, 250);
    d.put(1, item(100));
    d.put(2, item(100));
    assertEquals(200, d.payloadBytes());
    StoredItem bigger = item(120);
    d.put(2, bigger); // replaces: 100 + 120
    assertEquals(220, d.payloadBytes());
    assertSame(bigger, d.get(2));
    d.put(3, item(100)); // 320 > 250: the eldest (1) goes
    assertNull(d.get(1));
    assertEquals(220, d.payloadBytes());
    d.remove(2);
    d.remove(42); // unknown: nothing changes
    assertEquals(100, d.payloadBytes());
    assertEquals(1, d.size());
  }

  private static StoredItem item(int payloadBytes) {
    return Items.stored("ns", "t", 0, ItemState.READY, 1_000, null, null, new byte[payloadBytes]);
  }
}
