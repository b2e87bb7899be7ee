package dev.ordo.store;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.HeadCache;
import dev.ordo.store.internal.OrderKeySchema;
import dev.ordo.store.internal.OrderedBytes;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Ordered groups' order index ({@code [0x2C]}, {@link OrderKeySchema}, decisions D60): every live item
 * of an ordered (namespace, topic, group), in any state, has an order key, by offset; the ready index
 * holds the ready key of the group's first (its head) when that is READY, and no other item's (derived
 * here, put through {@link ReadyView}). The groups' first keys are held on the heap ({@link HeadCache}:
 * 64 per group, read 32 at a time).
 */
final class OrderView {
  private static final byte[][] NONE = new byte[1][];
  private final IndexStore index;
  private final ReadyView ready;
  /** The items as the store holds them (the other items of a group, read when one becomes its head). */
  private final LongFunction<StoredItem> items;
  private HeadCache orderHeads = ReadyView.newGroupHeads();

  OrderView(IndexStore index, ReadyView ready, LongFunction<StoredItem> items) {
    this.index = index;
    this.ready = ready;
    this.items = items;
  }

  /** True for an item of an ordered group (decisions D60): the order index decides its ready key. */
  static boolean ordered(StoredItem item) {
    return item != null && item.getOrdered() && item.getItem().getGroupKey() != null;
  }

  /** The order key of an item: {@code [key]} for an ordered group's item, whatever its state; {@code [null]} otherwise. */
  static byte[][] keysOf(long offset, StoredItem item) {
    if (!ordered(item)) {
      return NONE;
    }
    return new byte[][] {OrderKeySchema.key(prefixOf(item), offset)};
  }

  private static byte[] prefixOf(StoredItem item) {
    return OrderKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic(), item.getItem().getGroupKey());
  }

  /**
   * Keeps the order key and the group head's ready key: an item joining puts its order key and, when
   * it is the group's new first, its ready key (and removes the old first's); an item leaving removes
   * its order key and, when it was the first, brings the next one's ready key in; a change of the
   * head's state or ready key moves its ready key. Called after {@link ReadyView#change}.
   */
  void change(long offset, StoredItem before, StoredItem after) {
    boolean wasOrdered = ordered(before);
    boolean isOrdered = ordered(after);
    if (!wasOrdered && !isOrdered) {
      return; // the common case: no order key before or after
    }
    if (wasOrdered && isOrdered && KeyDiff.sameGroup(before, after)) {
      headChanged(offset, before, after); // the same order key
      return;
    }
    byte[][] b = keysOf(offset, before);
    byte[][] a = keysOf(offset, after);
    if (KeyDiff.removed(b, a, 0)) {
      leave(offset, before, b[0]);
    }
    if (KeyDiff.added(b, a, 0)) {
      join(offset, after, a[0]);
    }
  }

  /** The item keeps its order key: when it is its group's head, its ready key follows its state. */
  private void headChanged(long offset, StoredItem before, StoredItem after) {
    byte[] op = prefixOf(after);
    List<byte[]> first = orderHeads.first(op, 1, index.loader(OrderKeySchema.upperBound(op)));
    if (first.isEmpty() || OrderKeySchema.offset(first.get(0)) != offset) {
      return; // not the head: no ready key before or after
    }
    boolean readyBefore = before.getState() == ItemState.READY;
    boolean readyAfter = after.getState() == ItemState.READY;
    if (readyBefore && readyAfter && ReadyView.sameReadyKey(after, before)) {
      return;
    }
    if (readyBefore) {
      ready.remove(ReadyView.readyKeyOf(offset, before));
    }
    if (readyAfter) {
      ready.put(ReadyView.readyKeyOf(offset, after));
    }
  }

  /** Leaves the group: the next one may be its new head. */
  private void leave(long offset, StoredItem before, byte[] ok) {
    byte[] op = Arrays.copyOf(ok, ok.length - OrderKeySchema.SUFFIX_SIZE);
    HeadCache.Removal removal = orderHeads.removedFrom(op, ok, index.loader(OrderKeySchema.upperBound(op)));
    index.delete(ok);
    if (removal.wasFirst()) {
      if (before.getState() == ItemState.READY) {
        ready.remove(ReadyView.readyKeyOf(offset, before));
      }
      if (removal.next() != null) {
        headReady(OrderKeySchema.offset(removal.next()), true);
      }
    }
  }

  /** Joins the group: its head when nothing older is there. */
  private void join(long offset, StoredItem after, byte[] ok) {
    byte[] op = Arrays.copyOf(ok, ok.length - OrderKeySchema.SUFFIX_SIZE);
    byte[] first = orderHeads.firstThenInserted(op, ok, index.loader(OrderKeySchema.upperBound(op)));
    index.put(ok);
    if (first == null || OrderedBytes.compare(ok, first) < 0) {
      if (first != null) {
        headReady(OrderKeySchema.offset(first), false); // an older one came back: no longer the head
      }
      if (after.getState() == ItemState.READY) {
        ready.put(ReadyView.readyKeyOf(offset, after));
      }
    }
  }

  /** Puts (or removes) the ready key of the ordered item at {@code offset}, when it is READY. */
  private void headReady(long offset, boolean put) {
    StoredItem head = items.apply(offset);
    if (head == null || head.getState() != ItemState.READY) {
      return;
    }
    if (put) {
      ready.put(ReadyView.readyKeyOf(offset, head));
    } else {
      ready.remove(ReadyView.readyKeyOf(offset, head));
    }
  }

  /** The offset of an ordered group's head (its oldest live item, whatever its state), or null when none. */
  Long head(String namespace, String topic, String group) {
    byte[] op = OrderKeySchema.prefix(namespace, topic, group);
    List<byte[]> first = orderHeads.first(op, 1, index.loader(OrderKeySchema.upperBound(op)));
    return first.isEmpty() ? null : OrderKeySchema.offset(first.get(0));
  }

  /** Forgets the heads held (a rebuild starts or ends). */
  void reset() {
    orderHeads = ReadyView.newGroupHeads();
  }
}
