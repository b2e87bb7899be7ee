package dev.ordo.store;

import static dev.ordo.store.Items.ready;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StoreReader}: what an interactive query reads of an item, the item table joined with the
 * state log as of the last commit, the whole copy of a cold item, nothing for an item not committed.
 */
class StoreReaderTest {
  private final RocksKv state = RocksKv.open("reader-state");
  private final RocksKv items = RocksKv.open("reader-items");
  private final RocksKv index = RocksKv.open("reader-index");

  @AfterEach
  void close() {
    state.close();
    items.close();
    index.close();
  }

  private StoredItem read(long offset) {
    Map<String, KeyValueStore<Bytes, byte[]>> stores = Map.of(PriorityStore.STATE_STORE_NAME, state.kv,
        PriorityStore.STORE_NAME, items.kv);
    return StoreReader.item((store, key) -> stores.get(store).get(key), offset);
  }

  @Test
  void anItemIsReadAsOfTheLastCommitWithItsStateAndACopyWhenCold() {
    PriorityStore store = new PriorityStore(state.kv, items.kv, index.kv, PriorityStore.DEFAULT_DECODED_BYTES);
    store.holdItemWrites();
    store.open(ItemSource.NONE);
    store.startGeneration();
    for (long o = 0; o < 3; o++) {
      store.firstSighting(o);
      store.transition(o, null, ready("ns", "t", 0, o));
    }
    assertNull(read(1), "taken in, not committed yet");
    store.markChanges();
    store.flushItemWrites();
    assertEquals(ready("ns", "t", 0, 1), read(1));

    StoredItem before = store.get(1);
    StoredItem leased = Items.leased(before, 60_000);
    leased.setItem(before.getItem());
    store.transition(1, before, leased);
    store.transition(2, store.get(2), null);
    store.markChanges();
    store.flushItemWrites();
    assertEquals(ItemState.LEASED, read(1).getState(), "the state from the log's block");
    assertEquals(leased, read(1));
    assertNull(read(2), "acked");

    assertEquals(1, store.coolDown(Long.MAX_VALUE / 2, 0, Long.MAX_VALUE / 4, 1), "item 0 made cold");
    store.markChanges();
    store.flushItemWrites();
    assertEquals(ready("ns", "t", 0, 0), read(0), "the cold copy");
    assertNull(read(7), "never there");
  }
}
