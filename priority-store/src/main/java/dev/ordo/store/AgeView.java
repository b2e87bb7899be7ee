package dev.ordo.store;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.AgeKeySchema;
import dev.ordo.store.internal.HeadCache;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The age index ({@code [0x28]}, {@link AgeKeySchema}): a READY item's key in its topic's lane by
 * (readyAt, offset), whatever its priority or group, so each lane's head is its longest-ready item.
 * The first keys of each range are held on the heap ({@link HeadCache}).
 */
final class AgeView {
  private static final byte[][] NONE = new byte[1][];
  private final IndexStore index;
  private HeadCache heads = new HeadCache(PriorityStore.HEAD_CAPACITY);

  AgeView(IndexStore index) {
    this.index = index;
  }

  /** The age key of an item: {@code [key]} when it is READY, {@code [null]} otherwise. */
  static byte[][] keysOf(long offset, StoredItem item) {
    if (item == null || item.getState() != ItemState.READY) {
      return NONE;
    }
    byte[] prefix = AgeKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic(), item.getSidelined());
    return new byte[][] {AgeKeySchema.key(prefix, item.getReadyAt(), offset)};
  }

  /** True when both items have the same age key (or none), without making it. */
  static boolean sameKeys(StoredItem a, StoredItem b) {
    boolean inA = a != null && a.getState() == ItemState.READY;
    boolean inB = b != null && b.getState() == ItemState.READY;
    return !inA && !inB || inA && inB && a.getReadyAt() == b.getReadyAt() && a.getSidelined() == b.getSidelined()
        && KeyDiff.sameTopic(a, b);
  }

  void change(long offset, StoredItem before, StoredItem after) {
    if (sameKeys(before, after)) {
      return;
    }
    byte[][] b = keysOf(offset, before);
    byte[][] a = keysOf(offset, after);
    if (KeyDiff.removed(b, a, 0)) {
      index.delete(b[0]);
      heads.removed(prefixOf(b[0]), b[0]);
    }
    if (KeyDiff.added(b, a, 0)) {
      index.put(a[0]);
      heads.inserted(prefixOf(a[0]), a[0]);
    }
  }

  private static byte[] prefixOf(byte[] key) {
    return Arrays.copyOf(key, key.length - AgeKeySchema.SUFFIX_SIZE);
  }

  /** Ready time of the topic's oldest ready item (of either lane), or null when none is ready. */
  Long oldestReadyAt(String namespace, String topic) {
    Long fresh = oldestReadyAt(namespace, topic, false);
    Long backlog = oldestReadyAt(namespace, topic, true);
    if (fresh == null || backlog == null) {
      return fresh == null ? backlog : fresh; // (no conditional expression: it would unbox a null)
    }
    return Math.min(fresh, backlog);
  }

  private Long oldestReadyAt(String namespace, String topic, boolean sidelined) {
    byte[] prefix = AgeKeySchema.prefix(namespace, topic, sidelined);
    List<byte[]> keys = heads.first(prefix, 1, index.loader(AgeKeySchema.upperBound(prefix)));
    return keys.isEmpty() ? null : AgeKeySchema.readyAt(keys.get(0));
  }

  /** See {@link PriorityStore#readyBefore}. */
  List<Long> readyBefore(String namespace, String topic, long readyBefore, int max) {
    byte[] prefix = AgeKeySchema.prefix(namespace, topic, false);
    HeadCache.Loader loader = index.loader(AgeKeySchema.upperBound(prefix));
    List<byte[]> first = heads.first(prefix, 1, loader);
    if (first.isEmpty() || AgeKeySchema.readyAt(first.get(0)) >= readyBefore) {
      return List.of(); // the common case, at every dispatch of a namespace that sidelines: one look
    }
    List<byte[]> keys = heads.first(prefix, max, loader);
    List<Long> out = new ArrayList<>();
    for (byte[] key : keys) {
      if (AgeKeySchema.readyAt(key) >= readyBefore) {
        break;
      }
      out.add(AgeKeySchema.offset(key));
    }
    return out;
  }

  /** Forgets the heads held (a rebuild starts or ends). */
  void reset() {
    heads = new HeadCache(PriorityStore.HEAD_CAPACITY);
  }
}
