package dev.ordo.store;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.KeyFamily;
import dev.ordo.store.internal.OrderedBytes;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The items and their states: the state log ({@link StateLog}, in the changelogged state store, with
 * the marks: generation, count of changes, high-water mark), the item table (what each item was
 * enqueued with; its writes held until a commit, {@link ItemWrites}) and the items decoded last
 * ({@link DecodedItems}). It opens (trusting the table, migrating a table of a version before the
 * state log, or rebuilding it, {@link ItemTableRebuild}), writes an item's change, moves old items to
 * the cold part of the log, and answers {@link #get}. docs/store.md, "Three stores".
 */
final class ItemTable {
  private static final Bytes GENERATION_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'i'});
  /** The item table's vouch that it matches the state log (as the index store has its own). */
  private static final Bytes VOUCH_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'v'});
  private static final Bytes CHANGES_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'c'});
  private static final Bytes HIGH_WATER_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'h'});
  private static final int GENERATION_BYTES = 16;
  /** Item writes held back at most, by count and by payload bytes; see {@link ItemWrites}. */
  private static final int MAX_HELD_ITEM_WRITES = 8_192;
  private static final long MAX_HELD_ITEM_PAYLOAD_BYTES = 4L << 20;

  /** The state store: the state log and the meta values. */
  private final KeyValueStore<Bytes, byte[]> state;
  private final StateLog log;
  /** Meta values of the state store held until the state log's blocks go out ({@link #flush}). */
  private final Map<Bytes, byte[]> heldMeta = new LinkedHashMap<>();
  /** {@link #hold} was called: state writes wait for {@link #flush}. */
  private boolean holding;
  private final KeyValueStore<Bytes, byte[]> items;
  private final ItemWrites itemWrites;
  /** The items written or read last, decoded, by offset (decisions D16). */
  private final DecodedItems decoded;
  /** The highest item offset taken in so far (see {@link #firstSighting}); -1: none. */
  private long highWater = -1;
  /** The count of changes (transitions), as read at open and kept up since. */
  private long changes;
  /** True when {@link #changes} moved since {@link #markChanges} last wrote it. */
  private boolean changesUnmarked;
  /** The generation this instance started, or null before {@link #startGeneration}. */
  private byte[] generation;
  private long migrated;
  private ItemTableRebuild.Result lastRebuild;
  /** The offset {@link #encodedItem} is the item of, when it is about to be taken in. */
  private long encodedOffset = -1;
  private byte[] encodedItem;

  ItemTable(KeyValueStore<Bytes, byte[]> state, KeyValueStore<Bytes, byte[]> items, long decodedBytes) {
    this.state = state;
    this.log = new StateLog(state);
    this.items = items;
    this.decoded = new DecodedItems(decodedBytes);
    this.itemWrites = new ItemWrites(items, MAX_HELD_ITEM_WRITES, MAX_HELD_ITEM_PAYLOAD_BYTES);
  }

  /**
   * Migrates the item table of a version before the state log, when the state store was never
   * written but the table holds items or {@code legacy} restores some: true when it did (the index
   * must be rebuilt).
   */
  boolean migrateIfLegacy(LegacyItemTable legacy) {
    if (state.get(GENERATION_KEY) != null || state.get(HIGH_WATER_KEY) != null) {
      return false;
    }
    if (isEmptyTable()) {
      legacy.restoreInto(items);
    }
    if (isEmptyTable()) {
      return false;
    }
    ItemTableRebuild.Migration m = ItemTableRebuild.migrateLegacy(items, log, HIGH_WATER_KEY);
    highWater = m.highWater();
    heldMeta.put(HIGH_WATER_KEY, ByteBuffer.allocate(8).putLong(highWater).array());
    changes = 0;
    changesUnmarked = true;
    migrated = m.items();
    return true;
  }

  /** What {@link #openTable} found: the vouch a trusted index holds (null: none can be), and whether the table is trusted. */
  record Marks(byte[] expected, boolean trusted) {}

  /**
   * Reads the marks and checks the table against them (removing its vouch: an open vouches for
   * nothing until an orderly close). An untrusted table is then {@link #rebuild}t.
   */
  Marks openTable() {
    byte[] hw = state.get(HIGH_WATER_KEY);
    highWater = hw == null ? -1 : ByteBuffer.wrap(hw).getLong();
    byte[] gen = state.get(GENERATION_KEY);
    byte[] c = state.get(CHANGES_KEY);
    changes = c == null ? 0 : ByteBuffer.wrap(c).getLong();
    byte[] expected = gen == null ? null : vouch(gen, changes);
    boolean trusted = true;
    if (state != items) {
      byte[] tableVouch = items.get(VOUCH_KEY);
      items.put(VOUCH_KEY, null);
      trusted = expected != null ? Arrays.equals(expected, tableVouch) : tableVouch == null && isEmptyTable();
    }
    return new Marks(expected, trusted);
  }

  /**
   * Empties the table and fills it from the state log and {@code source}, feeding its items to
   * {@code index} while it wants them ({@link ItemTableRebuild#rebuildTable}).
   */
  void rebuild(ItemSource source, IndexRebuilder.Feed index) {
    itemWrites.flush();
    decoded.clear();
    lastRebuild = ItemTableRebuild.rebuildTable(items, log, source, highWater, index);
  }

  private boolean isEmptyTable() {
    byte[] from = {KeyFamily.ITEM};
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)))) {
      return !it.hasNext();
    }
  }

  long migrated() {
    return migrated;
  }

  ItemTableRebuild.Result lastRebuild() {
    return lastRebuild;
  }

  /** Starts a new generation (a changelogged write): before the first change. */
  void startGeneration() {
    generation = new byte[GENERATION_BYTES];
    new SecureRandom().nextBytes(generation);
    state.put(GENERATION_KEY, generation);
  }

  /**
   * The vouch for the table as it is (its generation and count of changes), written into the table
   * too; null when there is nothing to vouch for or the table may lack changes (the next open rebuilds).
   */
  byte[] vouch() {
    if (generation == null || changesUnmarked || !itemWrites.isEmpty() || !heldMeta.isEmpty() || log.hasChanges()) {
      return null;
    }
    byte[] v = vouch(generation, changes);
    if (state != items) {
      items.put(VOUCH_KEY, v);
    }
    return v;
  }

  /** Writes an item's change: the table (when the item is new or replaced), the state log, the decoded items. */
  void write(long offset, StoredItem before, StoredItem after) {
    if (after == null) {
      itemWrites.delete(offset);
      decoded.remove(offset);
    } else {
      if (before == null || after.getItem() != before.getItem()) {
        // What it was enqueued with: written when taken in. A change of state keeps the same item
        // (Lifecycle), so a lease or a retry writes nothing here; the state is in the log.
        byte[] encoded = before == null && offset == encodedOffset ? encodedItem : null;
        itemWrites.put(offset, after.getItem(), encoded, before == null);
      }
      decoded.put(offset, after);
    }
    log.put(offset, after);
    if (!holding) {
      flush(); // without a commit to wait for, the state goes out with the item
    }
    changes++;
    changesUnmarked = true;
  }

  /** See {@link PriorityStore#takingIn}. */
  void takingIn(long offset, byte[] encoded) {
    encodedOffset = offset;
    encodedItem = encoded;
  }

  /** The item at {@code offset}, or null when there is none. */
  StoredItem get(long offset) {
    StoredItem known = decoded.get(offset);
    if (known != null) {
      return known;
    }
    Object s = log.stateOf(offset);
    if (s == null || s instanceof StoredItem) {
      return (StoredItem) s; // none, or whole (changed since the last commit, or cold)
    }
    Item item;
    if (itemWrites.holds(offset)) {
      item = itemWrites.heldItem(offset);
    } else {
      byte[] value = items.get(Bytes.wrap(ItemKeySchema.key(offset)));
      item = value == null ? null : OrdoSerdes.ITEM.decode(value);
    }
    if (item == null) {
      throw new IllegalStateException("offset " + offset + " is live in the state log but not in the item table");
    }
    StoredItem whole = StateEntries.itemOf((ItemStateEntry) s, item);
    decoded.put(offset, whole);
    return whole;
  }

  /** The item at {@code offset}, its state from the state log and {@code value} from the item table; null when gone. */
  private StoredItem join(long offset, byte[] value) {
    StoredItem known = decoded.get(offset);
    if (known != null) {
      return known;
    }
    Object s = log.stateOf(offset);
    if (s == null || s instanceof StoredItem) {
      return (StoredItem) s;
    }
    return StateEntries.itemOf((ItemStateEntry) s, OrdoSerdes.ITEM.decode(value));
  }

  /** What {@link #between} hands each item to: return false to stop. */
  interface Visitor {
    boolean visit(long offset, StoredItem item);
  }

  /**
   * The live items at offsets {@code from} (inclusive) to {@code to} (inclusive), in offset order, as
   * long as {@code visitor} wants more; the held writes go out first so the scan sees every change.
   *
   * @return true when the scan reached the end of the range
   */
  boolean between(long from, long to, Visitor visitor) {
    itemWrites.flush();
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(ItemKeySchema.key(from)),
        Bytes.wrap(ItemKeySchema.key(to)))) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        long offset = ItemKeySchema.offset(e.key.get());
        StoredItem item = join(offset, e.value);
        if (item != null && !visitor.visit(offset, item)) {
          return !it.hasNext();
        }
      }
      return true;
    }
  }

  /** See {@link PriorityStore#itemsBetween}. */
  List<Map.Entry<Long, StoredItem>> itemsBetween(long from, long to, int max) {
    List<Map.Entry<Long, StoredItem>> out = new ArrayList<>();
    if (from >= to || max <= 0) {
      return out;
    }
    between(from, to - 1, (offset, item) -> {
      out.add(Map.entry(offset, item));
      return out.size() < max;
    });
    return out;
  }

  /** What the index store keeps to vouch that it matches the table: the index's key layout, the generation, the change count. */
  static byte[] vouch(byte[] generation, long changes) {
    return ByteBuffer.allocate(1 + generation.length + 8).put(PriorityStore.INDEX_FORMAT).put(generation)
        .putLong(changes).array();
  }

  /** See {@link PriorityStore#coolDown}. */
  int coolDown(long now, long coldAfterMs, long spanRecords, int max) {
    int[] moved = {0};
    log.forEachLive(log.coldBelow(), 64, (offset, state) -> {
      long enqueuedAt = state instanceof StoredItem s ? s.getEnqueuedAt() : ((ItemStateEntry) state).getEnqueuedAt();
      if (moved[0] >= max || offset >= highWater - spanRecords && enqueuedAt >= now - coldAfterMs) {
        return false;
      }
      StoredItem item = get(offset);
      if (item == null) {
        throw new IllegalStateException("offset " + offset + " is live in the state log but not in the item table");
      }
      log.moveToCold(offset, item);
      log.raiseColdBelow(offset + 1);
      moved[0]++;
      return true;
    });
    if (moved[0] > 0) {
      changes++;
      changesUnmarked = true;
    }
    return moved[0];
  }

  long coldBelow() {
    return log.coldBelow();
  }

  long blocksWritten() {
    return log.blocksWritten();
  }

  /** See {@link PriorityStore#firstSighting}. */
  boolean firstSighting(long offset) {
    if (offset <= highWater) {
      return false;
    }
    highWater = offset;
    putMeta(HIGH_WATER_KEY, ByteBuffer.allocate(8).putLong(offset).array());
    return true;
  }

  long highWater() {
    return highWater;
  }

  /** See {@link PriorityStore#markChanges}. */
  void markChanges() {
    if (changesUnmarked) {
      putMeta(CHANGES_KEY, ByteBuffer.allocate(8).putLong(changes).array());
      changesUnmarked = false;
    }
  }

  /** A meta value of the state store: held until the next {@link #flush}, or written at once when not holding. */
  private void putMeta(Bytes key, byte[] value) {
    heldMeta.put(key, value);
    if (!holding) {
      flush();
    }
  }

  /** See {@link PriorityStore#holdItemWrites}. */
  void hold() {
    itemWrites.holdUntilFlush();
    holding = true;
  }

  /** See {@link PriorityStore#flushItemWrites}. */
  void flush() {
    itemWrites.flush();
    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(log.writes());
    for (Map.Entry<Bytes, byte[]> e : heldMeta.entrySet()) {
      batch.add(KeyValue.pair(e.getKey(), e.getValue()));
    }
    heldMeta.clear();
    if (!batch.isEmpty()) {
      state.putAll(batch);
    }
  }

  /** Applies the held writes of the item table only (before a scan of it). */
  void flushItems() {
    itemWrites.flush();
  }
}
