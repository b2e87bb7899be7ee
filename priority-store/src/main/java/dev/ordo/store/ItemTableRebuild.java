package dev.ordo.store;

import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.KeyFamily;
import dev.ordo.store.internal.OrderedBytes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import java.util.function.LongConsumer;

/**
 * Rebuilds a partition's item table from its state log and its items topic: every live entry of the
 * log, in offset order, joined with the record at its offset (read from the first live offset to the
 * highest taken in). An entry whose record is gone (deleted by the items topic's retention) cannot be
 * rebuilt: it is counted, and handed to {@code lost} so the log forgets it.
 */
public final class ItemTableRebuild {
  /** What a rebuild found: live entries, items rebuilt, entries whose record was missing. */
  public record Result(long entries, long items, long lost) {}

  /**
   * Where the rebuilt items go, in offset order: the item's entry in the log and what it was enqueued
   * with, encoded as the item table keeps it (its state stays in the log).
   */
  @FunctionalInterface
  interface Sink {
    void accept(long offset, ItemStateEntry entry, byte[] item);
  }

  private ItemTableRebuild() {}

  /**
   * @param skip entries of offsets to leave out (items kept whole as cold items, loaded apart)
   */
  static Result run(StateLog log, ItemSource source, long highWater, java.util.function.LongPredicate skip, Sink sink,
      LongConsumer lost) {
    long[] counts = new long[3];
    long first;
    try (StateBlockFormat.EntryIterator it = log.entries()) {
      ItemStateEntry e = next(it, skip);
      if (e == null) {
        return new Result(0, 0, 0);
      }
      first = e.getOffset();
    }
    try (StateBlockFormat.EntryIterator it = log.entries()) {
      ItemStateEntry[] next = {next(it, skip)};
      source.read(first, highWater, offset -> {
        while (next[0] != null && next[0].getOffset() < offset) {
          lost(next[0], counts, lost); // passed over: the source had no record there
          next[0] = next(it, skip);
        }
        return next[0] != null && next[0].getOffset() == offset;
      }, (offset, item) -> {
        ItemStateEntry e = next[0];
        if (e == null || e.getOffset() != offset) {
          throw new IllegalStateException("the item source handed over offset " + offset + ", which was not asked for");
        }
        counts[0]++;
        counts[1]++;
        sink.accept(offset, e, item);
        next[0] = next(it, skip);
      });
      while (next[0] != null) {
        lost(next[0], counts, lost); // past the end of what the source had
        next[0] = next(it, skip);
      }
    }
    return new Result(counts[0], counts[1], counts[2]);
  }

  private static ItemStateEntry next(StateBlockFormat.EntryIterator it, java.util.function.LongPredicate skip) {
    while (it.hasNext()) {
      ItemStateEntry e = it.next();
      if (!skip.test(e.getOffset())) {
        return e;
      }
    }
    return null;
  }

  private static void lost(ItemStateEntry e, long[] counts, LongConsumer lost) {
    counts[0]++;
    counts[2]++;
    lost.accept(e.getOffset());
  }

  /** Items written to the item table per batch while it is rebuilt. */
  private static final int BATCH = 1_024;

  /**
   * Empties the item table and fills it from the state log's live entries and their records on the
   * items topic ({@link #run}), the cold items first, whole from the state store, handing each item
   * as the table holds it, with its state, to {@code index} once its batch is written (so an index
   * that reads other items of the table finds them), as long as the index wants more. Entries whose
   * record is gone are dropped from the log (at the next write of it). The caller applies or drops the
   * held writes of the table first.
   */
  static Result rebuildTable(KeyValueStore<Bytes, byte[]> items, StateLog log, ItemSource source, long highWater,
      IndexRebuilder.Feed index) {
    byte[] from = {KeyFamily.ITEM};
    List<KeyValue<Bytes, byte[]>> deletes = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)))) {
      while (it.hasNext()) {
        deletes.add(KeyValue.pair(it.next().key, null));
        if (deletes.size() >= BATCH) {
          items.putAll(deletes);
          deletes.clear();
        }
      }
    }
    items.putAll(deletes);
    TableWrites writes = new TableWrites(items, index);
    // The cold items first, whole from the state store; their entries, if a block still has one, are left out.
    long coldBelow = log.coldBelow();
    TreeMap<Long, StoredItem> coldAbove = new TreeMap<>();
    long cold = 0;
    try (KeyValueIterator<Bytes, byte[]> it = log.coldItems()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        long offset = OrderedBytes.getLong(e.key.get(), 1);
        StoredItem whole = OrdoSerdes.STORED_ITEM.decode(e.value);
        if (offset >= coldBelow) {
          coldAbove.put(offset, whole); // moved in a batch whose end the changelog lacks (at-least-once)
        }
        writes.add(offset, OrdoSerdes.ITEM.encode(whole.getItem()), whole, null);
        cold++;
      }
    }
    List<Long> lost = new ArrayList<>();
    Result warm = run(log, source, highWater, o -> o < coldBelow || coldAbove.containsKey(o),
        (offset, entry, item) -> writes.add(offset, item, null, entry),
        lost::add);
    writes.flush();
    for (long offset : lost) {
      log.put(offset, null);
    }
    // Cold copies above the watermark are the first live items past it, in offset order (they are
    // moved so): out of their blocks, and the watermark past them, as the lost batch would have left it.
    for (Map.Entry<Long, StoredItem> e : coldAbove.entrySet()) {
      log.moveToCold(e.getKey(), e.getValue());
    }
    if (!coldAbove.isEmpty()) {
      log.raiseColdBelow(coldAbove.lastKey() + 1);
    }
    return new Result(warm.entries() + cold, warm.items() + cold, warm.lost());
  }

  /**
   * The rebuilt items, written to the table a batch at a time, then indexed while the index wants them
   * (a warm item decoded and joined with its entry only then).
   */
  private static final class TableWrites {
    private final KeyValueStore<Bytes, byte[]> items;
    private final IndexRebuilder.Feed index;
    private final List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(BATCH);
    private final long[] offsets = new long[BATCH];
    private final StoredItem[] wholes = new StoredItem[BATCH];
    private final ItemStateEntry[] entries = new ItemStateEntry[BATCH];

    TableWrites(KeyValueStore<Bytes, byte[]> items, IndexRebuilder.Feed index) {
      this.items = items;
      this.index = index;
    }

    /** An item as the table keeps it, and either the whole item (cold) or its entry in the state log (warm). */
    void add(long offset, byte[] item, StoredItem whole, ItemStateEntry entry) {
      offsets[batch.size()] = offset;
      wholes[batch.size()] = whole;
      entries[batch.size()] = entry;
      batch.add(KeyValue.pair(Bytes.wrap(ItemKeySchema.key(offset)), item));
      if (batch.size() == BATCH) {
        flush();
      }
    }

    void flush() {
      items.putAll(batch);
      boolean indexing = !batch.isEmpty() && index.wantsMore();
      for (int k = 0; k < batch.size(); k++) {
        if (indexing) {
          StoredItem item = wholes[k] != null ? wholes[k]
              : StateEntries.itemOf(entries[k], OrdoSerdes.ITEM.decode(batch.get(k).value));
          index.index(offsets[k], item);
        }
        wholes[k] = null;
        entries[k] = null;
      }
      batch.clear();
    }
  }

  /** What {@link #migrateLegacy} copied: the highest offset among the items (-1: none, or the table's mark), how many. */
  record Migration(long highWater, long items) {}

  /**
   * Copies every item of an item table kept before the state log (whole stored items) into the state
   * log (written at the next commit), and leaves in the table what it holds now: the items alone.
   */
  static Migration migrateLegacy(KeyValueStore<Bytes, byte[]> items, StateLog log, Bytes highWaterKey) {
    byte[] hw = items.get(highWaterKey);
    long highWater = hw == null ? -1 : java.nio.ByteBuffer.wrap(hw).getLong();
    long n = 0;
    byte[] from = {KeyFamily.ITEM};
    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)))) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        long offset = ItemKeySchema.offset(e.key.get());
        StoredItem whole = OrdoSerdes.STORED_ITEM.decode(e.value);
        log.put(offset, whole);
        batch.add(KeyValue.pair(e.key, OrdoSerdes.ITEM.encode(whole.getItem())));
        highWater = Math.max(highWater, offset);
        n++;
      }
    }
    items.putAll(batch); // after the scan, which reads a snapshot anyway
    return new Migration(highWater, n);
  }
}
