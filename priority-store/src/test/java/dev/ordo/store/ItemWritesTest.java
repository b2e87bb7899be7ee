package dev.ordo.store;

import static dev.ordo.store.Items.ready;
import static dev.ordo.store.Items.stored;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.KeyFamily;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ItemWrites} on a real Kafka Streams RocksDB store: held writes are read back from the heap
 * and reach the store only at a flush, in one batch with the meta values last; an item taken in and
 * deleted between two flushes never reaches it; the bounds flush; without holding, every write is
 * applied at once.
 */
class ItemWritesTest {
  private static final Bytes MARK = Bytes.wrap(new byte[] {KeyFamily.META, 'c'});
  private RocksKv rocks;
  private LossyKv recording;
  private List<List<KeyValue<Bytes, byte[]>>> batches;

  @BeforeEach
  void open() {
    rocks = RocksKv.open("item-writes");
    recording = new LossyKv(rocks.kv);
    batches = recording.batches;
  }

  @AfterEach
  void close() {
    rocks.close();
  }

  private ItemWrites holding(int maxHeld, long maxBytes) {
    ItemWrites writes = new ItemWrites(recording, maxHeld, maxBytes);
    writes.holdUntilFlush();
    return writes;
  }

  @Test
  void heldWritesAreReadFromTheHeapAndReachTheStoreInOneBatchMetaLast() {
    ItemWrites writes = holding(100, 1 << 20);
    writes.put(1, ready("ns", "t", 0, 1).getItem(), true);
    writes.putMeta(MARK, new byte[] {7});
    writes.put(2, ready("ns", "t", 0, 2).getItem(), true);
    assertTrue(writes.holds(1));
    assertEquals(ready("ns", "t", 0, 1).getItem(), writes.heldItem(1));
    assertNull(rocks.kv.get(key(1)), "nothing reaches the store before the flush");
    assertTrue(batches.isEmpty());

    writes.flush();
    assertEquals(1, batches.size(), "one batch");
    List<KeyValue<Bytes, byte[]>> batch = batches.get(0);
    assertEquals(List.of(key(1), key(2), MARK), batch.stream().map(kv -> kv.key).toList(),
        "the items in the order written, the meta value after them");
    assertEquals(ready("ns", "t", 0, 2).getItem(), OrdoSerdes.ITEM.decode(rocks.kv.get(key(2))));
    assertFalse(writes.holds(1));
    assertTrue(writes.isEmpty());
  }

  @Test
  void anItemTakenInAndDeletedBetweenTwoFlushesNeverReachesTheStore() {
    ItemWrites writes = holding(100, 1 << 20);
    writes.put(5, ready("ns", "t", 0, 1).getItem(), true);
    writes.put(5, stored("ns", "t", 0, ItemState.LEASED, 1, 30_000L, null, new byte[16]).getItem(), false);
    writes.delete(5);
    assertFalse(writes.holds(5));
    writes.flush();
    assertTrue(batches.isEmpty(), "nothing to write: " + batches);
    assertEquals(1, writes.cancelled());
  }

  @Test
  void anItemOfTheStoreDeletedKeepsItsTombstone() {
    rocks.kv.put(key(9), OrdoSerdes.ITEM.encode(ready("ns", "t", 0, 1).getItem()));
    ItemWrites writes = holding(100, 1 << 20);
    writes.put(9, stored("ns", "t", 0, ItemState.LEASED, 1, 30_000L, null, new byte[16]).getItem(), false);
    writes.delete(9);
    assertTrue(writes.holds(9));
    assertNull(writes.heldItem(9), "held as deleted");
    assertNotNull(rocks.kv.get(key(9)), "still in the store until the flush");
    writes.flush();
    assertNull(rocks.kv.get(key(9)));
    assertEquals(0, writes.cancelled());
  }

  @Test
  void theBoundsFlush() {
    ItemWrites byCount = holding(2, 1 << 20);
    byCount.put(1, ready("ns", "t", 0, 1).getItem(), true);
    byCount.put(2, ready("ns", "t", 0, 2).getItem(), true);
    assertTrue(batches.isEmpty());
    byCount.put(3, ready("ns", "t", 0, 3).getItem(), true);
    assertEquals(1, batches.size(), "the third write went over a bound of 2");
    assertEquals(3, batches.get(0).size());

    ItemWrites byBytes = holding(100, 40); // Items.ready has 16-byte payloads
    byBytes.put(11, ready("ns", "t", 0, 1).getItem(), true);
    byBytes.put(12, ready("ns", "t", 0, 2).getItem(), true);
    assertEquals(1, batches.size());
    byBytes.put(13, ready("ns", "t", 0, 3).getItem(), true);
    assertEquals(2, batches.size(), "48 payload bytes went over a bound of 40");
  }

  @Test
  void withoutHoldingEveryWriteIsAppliedAtOnce() {
    ItemWrites writes = new ItemWrites(recording, 100, 1 << 20);
    StoredItem item = ready("ns", "t", 0, 1);
    writes.put(1, item.getItem(), true);
    assertEquals(item.getItem(), OrdoSerdes.ITEM.decode(rocks.kv.get(key(1))));
    writes.putMeta(MARK, new byte[] {1});
    assertEquals(1, rocks.kv.get(MARK)[0]);
    writes.delete(1);
    assertNull(rocks.kv.get(key(1)));
    assertEquals(3, batches.size());
  }

  @Test
  void aStoreThatHoldsItemWritesAnswersFromThemAndAClosedWithWritesHeldVouchesForNothing() {
    try (RocksKv index = RocksKv.open("item-writes-index")) {
      PriorityStore store = new PriorityStore(recording, index.kv);
      store.openIndex();
      store.holdItemWrites();
      store.startGeneration();
      store.transition(3, null, ready("ns", "t", 0, 1));
      store.markChanges();
      assertNull(rocks.kv.get(key(3)), "held");
      assertEquals(ready("ns", "t", 0, 1), store.get(3), "read back from the heap");
      assertNull(new PriorityStore(rocks.kv, index.kv).get(3), "not in the item table yet");
      store.closeIndex(); // with the item still held: the item table may lack it

      PriorityStore reopened = new PriorityStore(recording, index.kv);
      assertFalse(reopened.openIndex(), "rebuilt, not trusted");

      store.flushItemWrites();
      assertEquals(ready("ns", "t", 0, 1).getItem(), OrdoSerdes.ITEM.decode(rocks.kv.get(key(3))));
    }
  }

  @Test
  void theItemTableKeepsWhatAnItemCameInWithOnceAndItsStateComesFromTheStateLog() {
    try (RocksKv state = RocksKv.open("item-writes-state"); RocksKv index = RocksKv.open("item-writes-index2")) {
      PriorityStore store = new PriorityStore(state.kv, recording, index.kv, 0); // no decoded items kept: every read joins
      store.openIndex();
      store.holdItemWrites();
      store.startGeneration();
      StoredItem first = ready("ns", "t", 0, 1);
      byte[] record = OrdoSerdes.ITEM.encode(first.getItem());
      store.takingIn(3, record);
      store.transition(3, null, first);
      store.transition(4, null, ready("ns", "t", 0, 2)); // no encoding known: the table encodes it
      store.markChanges();
      store.flushItemWrites();
      assertEquals(1, batches.size(), "the two items in one batch");
      assertTrue(batches.get(0).stream().anyMatch(kv -> kv.key.equals(key(3)) && kv.value == record),
          "the record's bytes themselves went to the table");

      StoredItem before = store.get(3);
      StoredItem leased = Items.leased(before, 60_000);
      leased.setItem(before.getItem()); // as Lifecycle does: a change of state keeps the item itself
      store.transition(3, before, leased);
      store.markChanges();
      store.flushItemWrites();
      assertEquals(1, batches.size(), "a lease writes nothing to the item table");
      assertEquals(leased, store.get(3), "joined: the item from the table, the state from the log");
      assertEquals(ready("ns", "t", 0, 2), store.get(4));

      store.transition(3, store.get(3), null);
      store.flushItemWrites();
      assertNull(store.get(3));
      assertNull(rocks.kv.get(key(3)), "deleted from the table");
    }
  }

  private static Bytes key(long offset) {
    return Bytes.wrap(ItemKeySchema.key(offset));
  }
}
