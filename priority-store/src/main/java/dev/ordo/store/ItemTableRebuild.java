package dev.ordo.store;

import dev.ordo.schema.ItemStateEntry;
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
   * Where the rebuilt items go, in offset order: what each was enqueued with, encoded as the item
   * table keeps it (its state stays in the log).
   */
  @FunctionalInterface
  interface Sink {
    void accept(long offset, byte[] item);
  }

  private ItemTableRebuild() {}

  /**
   * @param skip entries of offsets to leave out (items kept whole as cold items, loaded apart)
   */
  static Result run(StateLog log, ItemSource source, long highWater, java.util.function.LongPredicate skip, Sink sink,
      LongConsumer lost) {
    long[] counts = new long[3];
    long first;
    try (StateLog.EntryIterator it = log.entries()) {
      ItemStateEntry e = next(it, skip);
      if (e == null) {
        return new Result(0, 0, 0);
      }
      first = e.getOffset();
    }
    try (StateLog.EntryIterator it = log.entries()) {
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
        sink.accept(offset, item);
        next[0] = next(it, skip);
      });
      while (next[0] != null) {
        lost(next[0], counts, lost); // past the end of what the source had
        next[0] = next(it, skip);
      }
    }
    return new Result(counts[0], counts[1], counts[2]);
  }

  private static ItemStateEntry next(StateLog.EntryIterator it, java.util.function.LongPredicate skip) {
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
}
