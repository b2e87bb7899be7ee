package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.KeyFamily;
import dev.ordo.store.internal.OrderedBytes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The index rebuild: first every entry of the old index is deleted, family by family
 * ({@link KeyFamily#INDEX_FAMILIES}), then the items are indexed in offset order (the views' keys of
 * each item from nothing, the same path as a transition from nothing). From a trusted item table it
 * runs in bounded steps, each from where the last stopped; meanwhile a transition keeps the index up
 * for the items already indexed ({@link #indexed}) and leaves the others to the steps to come, which
 * read the item table as it is then. When the item table is rebuilt itself, that rebuild feeds its items
 * to the index as it writes them, in the same pass, for as long as the caller allows; the steps index
 * the rest ({@link #rebuildFed}, decisions D67).
 */
final class IndexRebuilder {
  /** Indexes one item from nothing. */
  interface Indexer {
    void index(long offset, StoredItem item);
  }

  private final IndexStore index;
  private final ItemTable table;
  private final Indexer indexer;
  /** Run when the last item is indexed (the head caches filled meanwhile are dropped). */
  private final Runnable done;
  private boolean rebuilding;
  /** Which index family the delete phase is in (past the last: the indexing phase), and from which key. */
  private int family;
  private byte[] key;
  /** During the indexing phase: the items below this offset are indexed. */
  private long from;

  IndexRebuilder(IndexStore index, ItemTable table, Indexer indexer, Runnable done) {
    this.index = index;
    this.table = table;
    this.indexer = indexer;
    this.done = done;
  }

  /** Starts a rebuild (the caller forgets what the views hold on the heap). */
  void start() {
    rebuilding = true;
    family = 0;
    key = new byte[] {KeyFamily.INDEX_FAMILIES[0]};
    from = Long.MIN_VALUE;
  }

  boolean rebuilding() {
    return rebuilding;
  }

  /**
   * What a rebuild fed by the caller takes ({@link #rebuildFed}): the items in offset order, as long as
   * {@link #wantsMore} says so.
   */
  interface Feed extends Indexer {
    /** True while the caller may go on handing items over; once false, false from then on. */
    boolean wantsMore();
  }

  /**
   * A rebuild fed by the caller instead of read back from the item table (the item table is being rebuilt
   * itself, decisions D67): empties the index at once, then hands {@code fill} a feed for the items of
   * the table, in offset order. The feed wants items while {@code more} says so; the items it did not
   * get are left to the steps ({@link #step}), from the first of them. True when the index is whole.
   */
  boolean rebuildFed(java.util.function.BooleanSupplier more, java.util.function.Consumer<Feed> fill) {
    start();
    delete(Integer.MAX_VALUE);
    boolean[] stopped = {false};
    fill.accept(new Feed() {
      @Override
      public boolean wantsMore() {
        stopped[0] = stopped[0] || !more.getAsBoolean();
        return !stopped[0];
      }

      @Override
      public void index(long offset, StoredItem item) {
        indexer.index(offset, item);
        from = offset + 1; // the steps, if any, go on after it
      }
    });
    if (!stopped[0]) {
      rebuilding = false;
      done.run();
    }
    return !rebuilding;
  }

  /** True when a change of the item at {@code offset} must also change the index (always, but during a rebuild). */
  boolean indexed(long offset) {
    return !rebuilding || family >= KeyFamily.INDEX_FAMILIES.length && offset < from;
  }

  /** See {@link PriorityStore#rebuildStep}. */
  long step(int max) {
    if (!rebuilding) {
      return 0;
    }
    int budget = delete(max);
    if (budget == 0) {
      return 0;
    }
    long[] n = {0};
    int limit = budget;
    boolean end = table.between(from, Long.MAX_VALUE, (offset, item) -> {
      indexer.index(offset, item);
      from = offset + 1;
      return ++n[0] < limit;
    });
    if (end) {
      rebuilding = false;
      done.run();
    }
    return n[0];
  }

  /** The delete phase, from where it stopped, {@code max} entries at most; returns what is left of {@code max} (0: not done). */
  private int delete(int max) {
    KeyValueStore<Bytes, byte[]> kv = index.store();
    int budget = max;
    while (budget > 0 && family < KeyFamily.INDEX_FAMILIES.length) {
      byte fam = KeyFamily.INDEX_FAMILIES[family];
      byte[] last = null;
      int deleted = 0;
      try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(key), Bytes.wrap(OrderedBytes.prefixEnd(new byte[] {fam})))) {
        while (deleted < budget && it.hasNext()) {
          last = it.next().key.get();
          kv.put(Bytes.wrap(last), null); // put(null), unlike delete, does not read the old value first
          deleted++;
        }
      }
      budget -= deleted;
      if (budget > 0) {
        family++; // the family is empty now
        if (family < KeyFamily.INDEX_FAMILIES.length) {
          key = new byte[] {KeyFamily.INDEX_FAMILIES[family]};
        }
      } else {
        key = OrderedBytes.successor(last);
      }
    }
    return budget;
  }
}
