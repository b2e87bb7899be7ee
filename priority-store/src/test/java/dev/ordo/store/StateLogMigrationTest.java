package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.KeyFamily;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A partition whose item table a version before the state log kept (changelogged, items and marks in
 * one store) is migrated once: kept locally or restored from the old changelog, its items go into the
 * state log at the next commit, and from then on the state log alone rebuilds them.
 */
class StateLogMigrationTest {
  private final List<RocksKv> stores = new ArrayList<>();

  @AfterEach
  void close() {
    stores.forEach(RocksKv::close);
  }

  private RocksKv kv(String name) {
    RocksKv k = RocksKv.open(name);
    stores.add(k);
    return k;
  }

  /**
   * An item table as the old version left it, written as that version wrote it (whole stored items by
   * offset, and its high-water mark): items 0..4, item 2 acked, item 3 leased.
   */
  private static void writeLegacy(RocksKv table) {
    for (long o = 0; o < 5; o++) {
      StoredItem item = o == 3 ? Items.leased(Items.ready("ns", "t", 0, o), 60_000) : Items.ready("ns", "t", 0, o);
      if (o != 2) {
        table.kv.put(Bytes.wrap(ItemKeySchema.key(o)), OrdoSerdes.STORED_ITEM.encode(item));
      }
    }
    table.kv.put(Bytes.wrap(new byte[] {KeyFamily.META, 'h'}), ByteBuffer.allocate(8).putLong(4).array());
  }

  @Test
  void aLocalLegacyTableIsCopiedIntoTheStateLogAndSurvivesTheLossOfTheLocalStores() {
    RocksKv table = kv("legacy");
    writeLegacy(table); // the old layout: the table held the marks
    RocksKv state = kv("state");
    PriorityStore store = new PriorityStore(state.kv, table.kv, kv("index").kv, PriorityStore.DEFAULT_DECODED_BYTES);
    store.holdItemWrites();
    assertFalse(store.open(ItemSource.NONE), "the index is rebuilt after a migration");
    assertEquals(4, store.migratedItems());
    while (store.rebuilding()) {
      store.rebuildStep(100);
    }
    store.startGeneration();
    assertFalse(store.firstSighting(4), "the old high-water mark still tells replays apart");
    assertTrue(store.firstSighting(5));
    store.markChanges();
    store.flushItemWrites();
    assertEquals(ItemState.LEASED, store.get(3).getState());

    // Another instance: nothing local; the state log and the items' records rebuild the table.
    PriorityStore moved = new PriorityStore(state.kv, kv("items2").kv, kv("index2").kv, PriorityStore.DEFAULT_DECODED_BYTES);
    assertTrue(moved.open((from, to, wanted, sink) -> {
      for (long o = from; o <= to; o++) {
        if (wanted.test(o)) {
          sink.accept(o, OrdoSerdes.ITEM.encode(Items.ready("ns", "t", 0, o).getItem()));
        }
      }
    }), "the index is rebuilt along with the item table");
    assertEquals(4, moved.lastItemTableRebuild().items());
    assertEquals(0, moved.lastItemTableRebuild().lost());
    assertNull(moved.get(2), "acked before the upgrade");
    assertEquals(ItemState.LEASED, moved.get(3).getState());
    assertEquals(ItemState.READY, moved.get(4).getState());
  }

  @Test
  void aLegacyTableKeptOnlyInItsChangelogIsRestoredThenMigrated() {
    RocksKv legacy = kv("legacy");
    writeLegacy(legacy);
    List<KeyValue<Bytes, byte[]>> changelog = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = legacy.kv.all()) {
      it.forEachRemaining(changelog::add);
    }
    PriorityStore store = new PriorityStore(kv("state").kv, kv("items").kv, kv("index").kv,
        PriorityStore.DEFAULT_DECODED_BYTES);
    assertFalse(store.open(ItemSource.NONE, table -> table.putAll(changelog)));
    assertEquals(4, store.migratedItems());
    assertEquals(OrdoSerdes.STORED_ITEM.encode(Items.ready("ns", "t", 0, 4)).length,
        OrdoSerdes.STORED_ITEM.encode(store.get(4)).length);
    StoredItem leased = store.get(3);
    assertEquals(ItemState.LEASED, leased.getState());
  }

  @Test
  void aNewPartitionMigratesNothing() {
    PriorityStore store = new PriorityStore(kv("state").kv, kv("items").kv, kv("index").kv,
        PriorityStore.DEFAULT_DECODED_BYTES);
    boolean[] asked = {false};
    store.open(ItemSource.NONE, table -> asked[0] = true);
    assertTrue(asked[0], "an old changelog is looked for");
    assertEquals(0, store.migratedItems());
    assertNull(store.lastItemTableRebuild(), "an empty table, trusted: nothing rebuilt");
  }
}
