package dev.ordo.store;

import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.KeyFamily;
import dev.ordo.store.internal.OrderedBytes;
import dev.ordo.store.internal.StateBlockKeySchema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A partition's state log: every live item's life-cycle state, by blocks of
 * {@value StateBlockKeySchema#OFFSETS} offsets of the items topic, in the changelogged state store.
 * What an item was enqueued with (payload, headers, names) is not here: it is on the items topic, at
 * the item's offset, and the item table is rebuilt from the two ({@link PriorityStore#open}).
 *
 * <p>Why blocks: the item table's own changelog wrote every item two or three times (ready, leased,
 * a tombstone), most of the Kafka records an item cost (decisions D54). A block collects the changes
 * of its offsets between two commits and is written once at the commit, so items enqueued, leased or
 * acked together cost one record for all of them. A block without live items is deleted.
 *
 * <p>A block's value is a format byte ({@link #FORMAT}), a count and as many entries, each its slot
 * in the block (one byte), its length and its single-object encoding of {@link ItemStateEntry}: each
 * entry is encoded once, when its item changed, and a block written again copies its other entries'
 * bytes (a block re-encoded whole at every write cost several entry encodings per item); a block read
 * back decodes only the entries asked for. A change is a reference to the stored item,
 * encoded only when its block is written. Blocks read or written lately stay on the heap
 * ({@link #MAX_CLEAN_BLOCKS} of them at most, besides the changed ones); the others are read from the
 * store when an item of theirs changes, and a block past the last one the store holds is known to be
 * new without a read. Not thread-safe: it belongs to the stream thread of a {@link PriorityStore}.
 */
final class StateLog {
  /** Decoded blocks kept on the heap with no change to write, at most (about 10 KiB to 60 KiB each). */
  static final int MAX_CLEAN_BLOCKS = 256;
  /** The first byte of a block's value: 2, entries with their slot (1: without; never released). */
  static final byte FORMAT = 2;

  /** One block's live items: a slot per offset, holding a changed StoredItem or its entry's encoding (byte[]). */
  private static final class Block {
    final Object[] slots = new Object[StateBlockKeySchema.OFFSETS];
    int live;
    boolean dirty;
    /** The store holds a record of this block. */
    boolean stored;
  }

  /** The meta key of the cold watermark: every live item below it is kept whole in the state store. */
  static final Bytes COLD_BELOW_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'k'});

  private final KeyValueStore<Bytes, byte[]> store;
  /** Live items below this offset are cold: kept whole under {@link KeyFamily#COLD_ITEM}, not in blocks. */
  private long coldBelow;
  private boolean coldBelowChanged;
  /** Changes of cold items not written yet, by offset (null: gone). */
  private final java.util.TreeMap<Long, StoredItem> coldWrites = new java.util.TreeMap<>();
  private long coldWritten;
  /** Decoded blocks, least recently used first. */
  private final LinkedHashMap<Long, Block> blocks = new LinkedHashMap<>(16, 0.75f, true);
  private int dirtyBlocks;
  private long blocksWritten;
  /** No block past this one is in the store (nor on the heap): a new block needs no read. */
  private long lastKnownBlock;

  StateLog(KeyValueStore<Bytes, byte[]> store) {
    this.store = store;
    byte[] k = store.get(COLD_BELOW_KEY);
    this.coldBelow = k == null ? 0 : java.nio.ByteBuffer.wrap(k).getLong();
    byte[] from = {KeyFamily.STATE_BLOCK};
    try (KeyValueIterator<Bytes, byte[]> last = store.reverseRange(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)))) {
      this.lastKnownBlock = last.hasNext() ? StateBlockKeySchema.blockOf(last.next().key.get()) : -1;
    }
  }

  /** Every live item below this offset is cold. */
  long coldBelow() {
    return coldBelow;
  }

  /**
   * Makes the live item at {@code offset} (below {@code newColdBelow}, at or above the watermark) cold:
   * from its block to a whole copy of its own. Call in offset order, then {@link #raiseColdBelow}.
   */
  void moveToCold(long offset, StoredItem item) {
    put(offset, null);
    coldWrites.put(offset, item);
  }

  /** Raises the cold watermark: every live item below {@code offset} has been moved. */
  void raiseColdBelow(long offset) {
    if (offset > coldBelow) {
      coldBelow = offset;
      coldBelowChanged = true;
    }
  }

  /** Records the state of the item at {@code offset}: {@code after}, or none (null: gone). */
  void put(long offset, StoredItem after) {
    if (offset < coldBelow) {
      coldWrites.put(offset, after);
      return;
    }
    Block b = block(StateBlockKeySchema.block(offset), after != null);
    if (b == null) {
      return; // deleting from a block that holds nothing
    }
    int i = (int) (offset & (StateBlockKeySchema.OFFSETS - 1));
    Object before = b.slots[i];
    if (before == null && after == null) {
      return;
    }
    if (before == null) {
      b.live++;
    } else if (after == null) {
      b.live--;
    }
    b.slots[i] = after;
    if (!b.dirty) {
      b.dirty = true;
      dirtyBlocks++;
    }
  }

  /**
   * The state of the item at {@code offset} as changed so far (written or not): a {@link StoredItem}
   * when it is whole here (changed since the last write, or cold), its {@link ItemStateEntry}
   * otherwise, or null when the log has no live item there.
   */
  Object stateOf(long offset) {
    if (offset < coldBelow || coldWrites.containsKey(offset)) {
      if (coldWrites.containsKey(offset)) {
        return coldWrites.get(offset);
      }
      byte[] whole = store.get(Bytes.wrap(coldKey(offset)));
      return whole == null ? null : OrdoSerdes.STORED_ITEM.decode(whole);
    }
    Block b = block(StateBlockKeySchema.block(offset), false);
    Object slot = b == null ? null : b.slots[slotOf(offset)];
    return slot instanceof byte[] e ? OrdoSerdes.ITEM_STATE_ENTRY.decode(e) : slot;
  }

  /** True when changes wait for {@link #writes}. */
  boolean hasChanges() {
    return dirtyBlocks > 0 || !coldWrites.isEmpty() || coldBelowChanged;
  }

  /**
   * The changed blocks' records, in block order, to write in one batch; they are clean from now on.
   * A block left without live items is deleted (a null value) when the store holds it.
   */
  List<KeyValue<Bytes, byte[]>> writes() {
    if (!hasChanges()) {
      return List.of();
    }
    List<KeyValue<Bytes, byte[]>> cold = new ArrayList<>(coldWrites.size() + 1);
    for (Map.Entry<Long, StoredItem> e : coldWrites.entrySet()) {
      cold.add(KeyValue.pair(Bytes.wrap(coldKey(e.getKey())),
          e.getValue() == null ? null : OrdoSerdes.STORED_ITEM.encode(e.getValue())));
    }
    coldWritten += coldWrites.size();
    coldWrites.clear();
    List<Long> changed = new ArrayList<>(dirtyBlocks);
    for (Map.Entry<Long, Block> e : blocks.entrySet()) {
      if (e.getValue().dirty) {
        changed.add(e.getKey());
      }
    }
    changed.sort(null);
    // The cold copies first, before the blocks they leave: a changelog restored up to any point of
    // the batch (at-least-once) has a moved item in its block, or cold, or both (cold wins), never
    // neither; the watermark last.
    List<KeyValue<Bytes, byte[]>> out = new ArrayList<>(changed.size() + cold.size() + 1);
    out.addAll(cold);
    for (long n : changed) {
      Block b = blocks.get(n);
      b.dirty = false;
      Bytes key = Bytes.wrap(StateBlockKeySchema.key(n));
      if (b.live == 0) {
        if (b.stored) {
          out.add(KeyValue.pair(key, null));
        }
        blocks.remove(n);
        continue;
      }
      out.add(KeyValue.pair(key, encode(b, StateBlockKeySchema.first(n))));
      b.stored = true;
    }
    dirtyBlocks = 0;
    blocksWritten += changed.size();
    evictClean();
    if (coldBelowChanged) {
      out.add(KeyValue.pair(COLD_BELOW_KEY, java.nio.ByteBuffer.allocate(8).putLong(coldBelow).array()));
      coldBelowChanged = false;
    }
    return out;
  }

  /** The block's value: each changed item encoded into its slot, the others' bytes copied. */
  private static byte[] encode(Block b, long first) {
    int size = 1 + 4;
    for (int i = 0; i < b.slots.length; i++) {
      Object s = b.slots[i];
      if (s instanceof StoredItem item) {
        byte[] e = OrdoSerdes.ITEM_STATE_ENTRY.encode(StateEntries.entryOf(first + i, item));
        b.slots[i] = e; // the payload is not kept alive by the log
        size += 1 + 4 + e.length;
      } else if (s != null) {
        size += 1 + 4 + ((byte[]) s).length;
      }
    }
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(size).put(FORMAT).putInt(b.live);
    for (int i = 0; i < b.slots.length; i++) {
      if (b.slots[i] != null) {
        byte[] e = (byte[]) b.slots[i];
        out.put((byte) i).putInt(e.length).put(e);
      }
    }
    return out.array();
  }

  /** Fills {@code b}'s slots from a block's value. */
  private static void decodeInto(Block b, byte[] value) {
    java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(value);
    byte format = in.get();
    if (format != FORMAT) {
      throw new IllegalStateException("a state log block of format " + format + ", not " + FORMAT);
    }
    int n = in.getInt();
    for (int k = 0; k < n; k++) {
      int slot = in.get() & 0xff;
      byte[] e = new byte[in.getInt()];
      in.get(e);
      b.slots[slot] = e;
      b.live++;
    }
  }

  private static int slotOf(long offset) {
    return (int) (offset & (StateBlockKeySchema.OFFSETS - 1));
  }

  /** Cold items' writes since this log was made. */
  long coldWritten() {
    return coldWritten;
  }

  static byte[] coldKey(long offset) {
    java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(9);
    buf.put(KeyFamily.COLD_ITEM);
    OrderedBytes.putLong(buf, offset);
    return buf.array();
  }

  /** The cold items as the store holds them (call with no changes held); the iterator must be closed. */
  KeyValueIterator<Bytes, byte[]> coldItems() {
    if (hasChanges()) {
      throw new IllegalStateException("changes not written");
    }
    byte[] from = {KeyFamily.COLD_ITEM};
    return store.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)));
  }

  /** What {@link #forEachLive} hands each live item to: return false to stop. */
  interface LiveVisitor {
    /** @param state the item's {@link ItemStateEntry}, or the {@link StoredItem} changed since the last write */
    boolean visit(long offset, Object state);
  }

  /**
   * Hands each live warm item at or after {@code from} (as changed so far, written or not) to
   * {@code visitor} in offset order, until it returns false, the log ends, or {@code maxBlocks} blocks
   * in a row held none. The visitor may change the items it is handed (a move to the cold part).
   *
   * <p>One pass: the blocks on the heap are sorted once and merged with one range of the store's
   * (the cool-down looked its items up one by one, sorting the heap's blocks and seeking the store for
   * each: with a few hundred blocks on the heap that was most of a drain's stream thread).
   */
  void forEachLive(long from, int maxBlocks, LiveVisitor visitor) {
    long n = StateBlockKeySchema.block(Math.max(from, coldBelow));
    java.util.TreeSet<Long> cached = new java.util.TreeSet<>();
    for (Long b : blocks.keySet()) {
      if (b >= n) {
        cached.add(b);
      }
    }
    byte[] start = StateBlockKeySchema.key(n);
    byte[] end = OrderedBytes.prefixEnd(new byte[] {KeyFamily.STATE_BLOCK});
    int emptyInARow = 0;
    try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(start), Bytes.wrap(end))) {
      Long storedNext = it.hasNext() ? StateBlockKeySchema.blockOf(it.next().key.get()) : null;
      while (emptyInARow < maxBlocks && (storedNext != null || !cached.isEmpty())) {
        long b;
        if (storedNext != null && (cached.isEmpty() || storedNext <= cached.first())) {
          b = storedNext;
          if (!cached.isEmpty() && cached.first() == b) {
            cached.pollFirst();
          }
          storedNext = it.hasNext() ? StateBlockKeySchema.blockOf(it.next().key.get()) : null;
        } else {
          b = cached.pollFirst();
        }
        Block block = block(b, false);
        boolean any = false;
        long first = StateBlockKeySchema.first(b);
        for (int i = 0; block != null && i < block.slots.length; i++) {
          Object slot = block.slots[i];
          if (slot != null && first + i >= from) {
            any = true;
            if (!visitor.visit(first + i, slot instanceof byte[] e ? OrdoSerdes.ITEM_STATE_ENTRY.decode(e) : slot)) {
              return;
            }
          }
        }
        emptyInARow = any ? 0 : emptyInARow + 1;
      }
    }
  }

  /** Records of blocks written since this log was made. */
  long blocksWritten() {
    return blocksWritten;
  }

  /** Forgets the decoded blocks (none may have changes): the store is read anew, after a restore or a rebuild. */
  void forget() {
    if (dirtyBlocks > 0) {
      throw new IllegalStateException(dirtyBlocks + " blocks have changes not written");
    }
    blocks.clear();
  }

  /**
   * Every live item's entry, in offset order, as the store holds them (call with no changes held).
   * The iterator must be closed.
   */
  StateBlockFormat.EntryIterator entries() {
    if (dirtyBlocks > 0) {
      throw new IllegalStateException(dirtyBlocks + " blocks have changes not written");
    }
    byte[] from = {KeyFamily.STATE_BLOCK};
    return new StateBlockFormat.EntryIterator(store.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from))));
  }

  /** Block {@code n}, decoded from the store or new; null when it holds nothing and {@code create} is false. */
  private Block block(long n, boolean create) {
    Block b = blocks.get(n);
    if (b != null) {
      return b;
    }
    if (n > lastKnownBlock && !create) {
      return null;
    }
    byte[] value = n > lastKnownBlock ? null : store.get(Bytes.wrap(StateBlockKeySchema.key(n)));
    lastKnownBlock = Math.max(lastKnownBlock, n);
    if (value == null && !create) {
      return null;
    }
    b = new Block();
    if (value != null) {
      b.stored = true;
      decodeInto(b, value);
    }
    blocks.put(n, b);
    evictClean();
    return b;
  }

  /** Drops the least recently used clean blocks over {@link #MAX_CLEAN_BLOCKS}. */
  private void evictClean() {
    int clean = blocks.size() - dirtyBlocks;
    if (clean <= MAX_CLEAN_BLOCKS) {
      return;
    }
    for (Iterator<Block> it = blocks.values().iterator(); it.hasNext() && clean > MAX_CLEAN_BLOCKS; ) {
      if (!it.next().dirty) {
        it.remove();
        clean--;
      }
    }
  }
}
