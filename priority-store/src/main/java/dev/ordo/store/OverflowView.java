package dev.ordo.store;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.OrderedBytes;
import dev.ordo.store.internal.OverflowKeySchema;
import dev.ordo.store.internal.ScanCursors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The overflow index ({@code [0x38]}, {@link OverflowKeySchema}): an OVERFLOW item's key under its
 * namespace, by offset, read in arrival order from a cursor ({@link ScanCursors}).
 */
final class OverflowView {
  private static final byte[][] NONE = new byte[1][];
  private final IndexStore index;
  private ScanCursors cursors = new ScanCursors();

  OverflowView(IndexStore index) {
    this.index = index;
  }

  /** The overflow key of an item: {@code [key]} when it is OVERFLOW, {@code [null]} otherwise. */
  static byte[][] keysOf(long offset, StoredItem item) {
    if (item == null || item.getState() != ItemState.OVERFLOW) {
      return NONE;
    }
    return new byte[][] {OverflowKeySchema.key(OverflowKeySchema.prefix(item.getItem().getNamespace()), offset)};
  }

  /** True when both items have the same overflow key (none, mostly), without making it. */
  static boolean sameKeys(StoredItem a, StoredItem b) {
    boolean inA = a != null && a.getState() == ItemState.OVERFLOW;
    boolean inB = b != null && b.getState() == ItemState.OVERFLOW;
    return !inA && !inB
        || inA && inB && (a.getItem() == b.getItem() || a.getItem().getNamespace().equals(b.getItem().getNamespace()));
  }

  void change(long offset, StoredItem before, StoredItem after) {
    if (sameKeys(before, after)) {
      return;
    }
    byte[][] b = keysOf(offset, before);
    byte[][] a = keysOf(offset, after);
    if (KeyDiff.removed(b, a, 0)) {
      index.delete(b[0]);
      cursors.removed(prefixOf(b[0]), b[0]);
    }
    if (KeyDiff.added(b, a, 0)) {
      index.put(a[0]);
      cursors.inserted(prefixOf(a[0]), a[0]);
    }
  }

  private static byte[] prefixOf(byte[] key) {
    return Arrays.copyOf(key, key.length - 8);
  }

  /** The offsets of up to {@code max} OVERFLOW items of a namespace, in arrival (offset) order. */
  List<Long> head(String namespace, int max) {
    List<Long> out = new ArrayList<>();
    if (max <= 0) {
      return out;
    }
    byte[] prefix = OverflowKeySchema.prefix(namespace);
    byte[] upper = OverflowKeySchema.upperBound(prefix);
    byte[] start = cursors.start(prefix);
    if (OrderedBytes.compare(start, upper) > 0) {
      return out;
    }
    for (byte[] key : index.keys(start, upper, max)) {
      if (out.isEmpty()) {
        cursors.found(prefix, key);
      }
      out.add(OverflowKeySchema.offset(key));
    }
    if (out.isEmpty()) {
      cursors.emptyUpTo(prefix, upper);
    }
    return out;
  }

  /** Forgets the cursors (a rebuild starts). */
  void reset() {
    cursors = new ScanCursors();
  }
}
