package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.KeyFamily;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cool-down walks the state log once: however many items it moves and however many blocks are on the
 * heap, it opens one range of the state store's blocks. It looked each item up on its own before (a sort
 * of the heap's blocks and a seek of the store per item moved), which took most of the stream thread of
 * a 10-million-item drain ({@code ordo bench --drain}, docs/lab/2026-11-30-parallel-collector.md).
 */
class CoolDownPassTest {
  private static final int ITEMS = 20_000;
  private final RocksKv state = RocksKv.open("state");
  private final RocksKv items = RocksKv.open("items");
  private final RocksKv index = RocksKv.open("index");

  @AfterEach
  void close() {
    state.close();
    items.close();
    index.close();
  }

  /** Counts the ranges opened over the state log's blocks. */
  private static final class CountingKv extends ForwardingKv {
    int blockRanges;

    CountingKv(RocksKv kv) {
      super(kv.kv);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
      if (from.get().length > 0 && from.get()[0] == KeyFamily.STATE_BLOCK) {
        blockRanges++;
      }
      return inner.range(from, to);
    }
  }

  @Test
  void aCoolDownReadsTheStateLogInOnePass() {
    CountingKv counted = new CountingKv(state);
    PriorityStore store = new PriorityStore(counted, items.kv, index.kv, PriorityStore.DEFAULT_DECODED_BYTES);
    store.holdItemWrites();
    store.open(ItemSource.NONE);
    store.startGeneration();
    for (long offset = 0; offset < ITEMS; offset++) {
      store.firstSighting(offset);
      store.transition(offset, null, Items.ready("ns", "t", 1, offset));
      if (offset % 2_000 == 1_999) {
        store.flushItemWrites(); // a commit: the blocks written, some of them left on the heap
      }
    }
    // Every item 1,000 offsets or more behind the newest (19,999) goes cold: 18,999 of them, 5,000 per call at most.
    counted.blockRanges = 0;
    int moved = store.coolDown(0, Long.MAX_VALUE / 4, 1_000, 5_000);
    assertEquals(5_000, moved);
    assertEquals(1, counted.blockRanges, "ranges of the state log's blocks opened for 5,000 items moved");
    assertEquals(5_000, store.coldBelow());
    store.flushItemWrites();
    int rest = 0;
    for (int m; (m = store.coolDown(0, Long.MAX_VALUE / 4, 1_000, 5_000)) > 0; ) {
      rest += m;
      store.flushItemWrites();
    }
    assertEquals(18_999 - 5_000, rest, "the items behind the span moved, the newest 1,001 not");
    assertEquals(18_999, store.coldBelow());
    for (long offset = 0; offset < ITEMS; offset++) {
      StoredItem item = store.get(offset);
      assertNotNull(item, "offset " + offset);
      assertTrue(item.getReadyAt() == offset, "offset " + offset + ": " + item);
    }
  }
}
