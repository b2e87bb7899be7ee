package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.FairShares;
import dev.ordo.store.internal.KeyFamily;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The index store's views, together: each derived from the items ({@link ReadyView}, {@link OrderView},
 * {@link AgeView}, {@link TimerView}, {@link OverflowView}, {@link TopicCountsView} and the fair shares),
 * handed every change of an item ({@link #change}), opened from what an orderly close left (the vouch,
 * and what lives on the heap), closed, and rebuilt in steps ({@link IndexRebuilder}).
 */
final class Indexes {
  private static final Bytes VOUCH_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'x'});

  final IndexStore store;
  final FairShares fair = new FairShares();
  final ReadyView ready;
  final OrderView order;
  final AgeView age;
  final TimerView timers;
  final OverflowView overflow;
  final TopicCountsView counts = new TopicCountsView();
  final IndexRebuilder rebuilder;
  private final ItemTable items;

  Indexes(KeyValueStore<Bytes, byte[]> kv, ItemTable table) {
    this.store = new IndexStore(kv);
    this.items = table;
    this.ready = new ReadyView(store, fair);
    this.order = new OrderView(store, ready, table::get);
    this.age = new AgeView(store);
    this.timers = new TimerView(store);
    this.overflow = new OverflowView(store);
    this.rebuilder = new IndexRebuilder(store, table, (offset, item) -> apply(offset, null, item), () -> {
      ready.reset();
      order.reset();
      age.reset();
    });
  }

  /**
   * Hands an item's change to every view. The ready view first, while the fair shares still count
   * {@code before} (a group's queue is known empty from them); the order view after it (it moves its
   * groups' heads' ready keys, which the ready view leaves alone); the fair shares and counts last.
   * During a rebuild, only for the items already indexed (the steps index the others as the table
   * holds them then).
   */
  void change(long offset, StoredItem before, StoredItem after) {
    if (rebuilder.indexed(offset)) {
      apply(offset, before, after);
    }
  }

  /** {@link #change}, whether or not a rebuild has reached the item (the rebuild's own path). */
  private void apply(long offset, StoredItem before, StoredItem after) {
    ready.change(offset, before, after);
    age.change(offset, before, after);
    overflow.change(offset, before, after);
    timers.change(offset, before, after);
    order.change(offset, before, after);
    fair.change(before, after);
    counts.change(before, after);
  }

  /** Reads and removes the index store's vouch: from now on it vouches for nothing until {@link #close}. */
  byte[] takeVouch() {
    KeyValueStore<Bytes, byte[]> kv = store.store();
    byte[] vouch = kv.get(VOUCH_KEY);
    kv.put(VOUCH_KEY, null);
    return vouch;
  }

  /**
   * Opens the index: trusted when {@code vouch} is what the item table expects (then what lives on the
   * heap is read back), else rebuilt in steps ({@code expected} null: never trusted).
   *
   * @return true when the index can be used at once
   */
  boolean open(byte[] expected, byte[] vouch) {
    if (expected == null || !Arrays.equals(expected, vouch)) {
      startRebuild();
      return false;
    }
    fair.clear();
    try (KeyValueIterator<Bytes, byte[]> it = store.prefixScan(new byte[] {KeyFamily.GROUPS})) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        fair.load(e.key.get(), e.value);
      }
    }
    counts.load(store);
    timers.load();
    return true;
  }

  /** Writes what lives on the heap (counts, fair shares, LEASE timers) to the index store, then {@code vouch}. */
  void close(byte[] vouch) {
    counts.save(store);
    store.deletePrefix(new byte[] {KeyFamily.GROUPS});
    KeyValueStore<Bytes, byte[]> kv = store.store();
    fair.forEach((k, e) -> kv.put(Bytes.wrap(FairShares.key(k)), FairShares.value(e)));
    timers.save();
    kv.put(VOUCH_KEY, vouch);
  }

  /** Reads the ready index and the items for {@link HeadPeek}. */
  HeadPeek.Reader peekReader() {
    return new HeadPeek.Reader() {
      @Override
      public List<byte[]> indexRange(byte[] from, byte[] to, int max) {
        return store.keys(from, to, max);
      }

      @Override
      public StoredItem item(long offset) {
        return items.get(offset);
      }
    };
  }

  /**
   * Rebuilds the index along with the item table ({@link IndexRebuilder#rebuildFed}): emptied now, then
   * fed by {@code fill} while {@code more} says so, the rest in steps. True when the index is whole.
   */
  boolean rebuildFed(java.util.function.BooleanSupplier more, java.util.function.Consumer<IndexRebuilder.Feed> fill) {
    forgetHeap();
    return rebuilder.rebuildFed(more, fill);
  }

  private void startRebuild() {
    rebuilder.start();
    forgetHeap();
  }

  /** Forgets what the views hold on the heap, for a rebuild. */
  private void forgetHeap() {
    ready.reset();
    order.reset();
    age.reset();
    timers.reset();
    overflow.reset();
    counts.reset();
    fair.clear();
  }
}
