package dev.ordo.store;

import java.util.function.LongPredicate;

/**
 * The items topic of a store's partition, read back: where the item table is rebuilt from, with the
 * state log ({@link PriorityStore#open}). The queue's processor reads it with a Kafka consumer.
 */
public interface ItemSource {
  /**
   * Reads the records at offsets {@code from} to {@code to} (both included), in offset order, and
   * hands the item of each offset {@code wanted} accepts to {@code sink}: its single-object encoding
   * as the item table keeps it, with the record's Kafka headers merged as the queue merges them when
   * it takes the item in (the record's value itself when it has none and no registry framing). {@code wanted} is asked
   * about offsets in increasing order. A record that is not there (transaction markers, aborted or
   * deleted records) is skipped.
   */
  void read(long from, long to, LongPredicate wanted, ItemSink sink);

  /** Where the items read go: each item's single-object encoding ({@code OrdoSerdes.ITEM}). */
  @FunctionalInterface
  interface ItemSink {
    void accept(long offset, byte[] item);
  }

  /** No source: for a store whose item table needs no rebuild from the items topic (one store for all). */
  ItemSource NONE = (from, to, wanted, sink) -> {
    throw new IllegalStateException("no source of the items topic to rebuild the item table from");
  };
}
