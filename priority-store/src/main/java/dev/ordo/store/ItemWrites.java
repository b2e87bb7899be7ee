package dev.ordo.store;

import dev.ordo.schema.Item;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Writes to the item table held on the heap, as decoded items, and applied in one batch
 * ({@link KeyValueStore#putAll}: one RocksDB write batch). The item table holds what an item was
 * enqueued with ({@link Item}), written once when it is taken in and deleted when it is gone; its
 * state is in the state log ({@link StateLog}).
 *
 * <p>Why: Kafka Streams' record cache did this job with a sorted map of byte keys per store, and in
 * {@code ordo bench} its puts, gets and flush were about 40% of the stream thread's time, most of it
 * comparing keys. Here a write is a hash-map put by offset, an item is encoded to Avro only when it
 * is written out (an item enqueued and acked between two flushes never is), and an item put and
 * deleted between two flushes never reaches RocksDB.
 *
 * <p>Meta values are written after the items of the same batch. Not thread-safe: it belongs to the
 * stream thread of a {@link PriorityStore}.
 */
final class ItemWrites {
  /**
   * A held write: the item to put (null: delete), its encoding when known already (else null), and
   * whether the store may hold the key now.
   */
  private record Held(Item item, byte[] encoded, boolean inStore) {}

  private final KeyValueStore<Bytes, byte[]> store;
  private final int maxHeld;
  private final long maxHeldPayloadBytes;
  private final Map<Long, Held> held = new LinkedHashMap<>();
  private final Map<Bytes, byte[]> meta = new LinkedHashMap<>();
  private long heldPayloadBytes;
  /** False: every write is applied at once (tests, tools); true: held until {@link #flush}. */
  private boolean holding;
  private long cancelled;

  /**
   * @param maxHeld item writes held at most; one more applies them all
   * @param maxHeldPayloadBytes payload bytes of held puts at most (counted as written, not as kept)
   */
  ItemWrites(KeyValueStore<Bytes, byte[]> store, int maxHeld, long maxHeldPayloadBytes) {
    if (maxHeld < 1 || maxHeldPayloadBytes < 1) {
      throw new IllegalArgumentException("bounds must be positive, got " + maxHeld + " and " + maxHeldPayloadBytes);
    }
    this.store = store;
    this.maxHeld = maxHeld;
    this.maxHeldPayloadBytes = maxHeldPayloadBytes;
  }

  /** From now on, holds writes until {@link #flush} or a bound is reached, instead of applying each at once. */
  void holdUntilFlush() {
    holding = true;
  }

  /**
   * Puts an item.
   *
   * @param isNew true when the store cannot hold the offset yet (an item taken in just now)
   */
  void put(long offset, Item item, boolean isNew) {
    put(offset, item, null, isNew);
  }

  /**
   * Puts an item whose single-object encoding is known already ({@code encoded}, null when not): the
   * bytes its record on the items topic came in, written as they are.
   */
  void put(long offset, Item item, byte[] encoded, boolean isNew) {
    Held before = held.get(offset);
    boolean inStore = before != null ? before.inStore : !isNew;
    held.put(offset, new Held(item, encoded, inStore));
    heldPayloadBytes += item.getPayload() == null ? 0 : item.getPayload().remaining();
    maybeFlush();
  }

  /** Deletes an item. */
  void delete(long offset) {
    Held before = held.get(offset);
    if (before != null && !before.inStore) {
      held.remove(offset); // taken in and gone between two batches: the store never sees it
      cancelled++;
      return;
    }
    held.put(offset, new Held(null, null, true));
    maybeFlush();
  }

  /** True when a write of {@code offset} is held; {@link #heldItem} says which. */
  boolean holds(long offset) {
    return held.containsKey(offset);
  }

  /** The held item of {@code offset}: null when the held write deletes it (or none is held). */
  Item heldItem(long offset) {
    Held h = held.get(offset);
    return h == null ? null : h.item;
  }

  /** Puts a meta value, written after the items of the batch it goes out with. */
  void putMeta(Bytes key, byte[] value) {
    meta.put(key, value);
    maybeFlush();
  }

  boolean isEmpty() {
    return held.isEmpty() && meta.isEmpty();
  }

  private void maybeFlush() {
    if (!holding || held.size() > maxHeld || heldPayloadBytes > maxHeldPayloadBytes) {
      flush();
    }
  }

  /** Applies every held write to the store, items first, then the meta values, in one batch. */
  void flush() {
    if (isEmpty()) {
      return;
    }
    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(held.size() + meta.size());
    for (Map.Entry<Long, Held> e : held.entrySet()) {
      Held h = e.getValue();
      batch.add(KeyValue.pair(Bytes.wrap(ItemKeySchema.key(e.getKey())),
          h.item == null ? null : h.encoded != null ? h.encoded : OrdoSerdes.ITEM.encode(h.item)));
    }
    for (Map.Entry<Bytes, byte[]> e : meta.entrySet()) {
      batch.add(KeyValue.pair(e.getKey(), e.getValue()));
    }
    held.clear();
    meta.clear();
    heldPayloadBytes = 0;
    store.putAll(batch);
  }

  /** Item writes that never reached the store because a delete undid a put, since this buffer was made. */
  long cancelled() {
    return cancelled;
  }
}
