package dev.ordo.store;

import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.StoredItem;
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

  /** Where the rebuilt items go, in offset order. */
  @FunctionalInterface
  interface Sink {
    void accept(long offset, StoredItem item);
  }

  private ItemTableRebuild() {}

  static Result run(StateLog log, ItemSource source, long highWater, Sink sink, LongConsumer lost) {
    long[] counts = new long[3];
    long first;
    try (StateLog.EntryIterator it = log.entries()) {
      if (!it.hasNext()) {
        return new Result(0, 0, 0);
      }
      first = it.next().getOffset();
    }
    try (StateLog.EntryIterator it = log.entries()) {
      ItemStateEntry[] next = {it.hasNext() ? it.next() : null};
      source.read(first, highWater, offset -> {
        while (next[0] != null && next[0].getOffset() < offset) {
          lost(next[0], counts, lost); // passed over: the source had no record there
          next[0] = it.hasNext() ? it.next() : null;
        }
        return next[0] != null && next[0].getOffset() == offset;
      }, (offset, item) -> {
        ItemStateEntry e = next[0];
        if (e == null || e.getOffset() != offset) {
          throw new IllegalStateException("the item source handed over offset " + offset + ", which was not asked for");
        }
        counts[0]++;
        counts[1]++;
        sink.accept(offset, StateEntries.itemOf(e, item));
        next[0] = it.hasNext() ? it.next() : null;
      });
      while (next[0] != null) {
        lost(next[0], counts, lost); // past the end of what the source had
        next[0] = it.hasNext() ? it.next() : null;
      }
    }
    return new Result(counts[0], counts[1], counts[2]);
  }

  private static void lost(ItemStateEntry e, long[] counts, LongConsumer lost) {
    counts[0]++;
    counts[2]++;
    lost.accept(e.getOffset());
  }
}
