package dev.ordo.store;

import java.util.Arrays;
import java.util.Objects;

/**
 * The change of an item's entries in one index view, computed from the view's keys of the item before
 * and after ({@code keysOf(offset, item)}: a small array, one slot per kind of key the view gives an
 * item, null where the item has none): a key only before is removed, a key only after is added, a key
 * in both is left alone. A view applies every removal before any addition (a group's head moves on a
 * removal and is compared on an addition). Slots of one view never hold keys of the same family, so
 * comparing slot by slot is the set difference.
 */
final class KeyDiff {
  private KeyDiff() {}

  /** True when slot {@code i}'s key is only in {@code before}: to remove. */
  static boolean removed(byte[][] before, byte[][] after, int i) {
    return before[i] != null && !Arrays.equals(before[i], after[i]);
  }

  /** True when slot {@code i}'s key is only in {@code after}: to add. */
  static boolean added(byte[][] before, byte[][] after, int i) {
    return after[i] != null && !Arrays.equals(before[i], after[i]);
  }

  /** {@link #removed} for keys that are values (records). */
  static boolean removed(Object[] before, Object[] after, int i) {
    return before[i] != null && !Objects.equals(before[i], after[i]);
  }

  /** {@link #added} for keys that are values (records). */
  static boolean added(Object[] before, Object[] after, int i) {
    return after[i] != null && !Objects.equals(before[i], after[i]);
  }

  /** True when both items are there and name the same namespace and topic (the same item, mostly: no string compared). */
  static boolean sameTopic(dev.ordo.schema.StoredItem a, dev.ordo.schema.StoredItem b) {
    return a.getItem() == b.getItem() || a.getItem().getNamespace().equals(b.getItem().getNamespace())
        && a.getItem().getTopic().equals(b.getItem().getTopic());
  }

  /** {@link #sameTopic} and the same group key. */
  static boolean sameGroup(dev.ordo.schema.StoredItem a, dev.ordo.schema.StoredItem b) {
    return a.getItem() == b.getItem()
        || sameTopic(a, b) && Objects.equals(a.getItem().getGroupKey(), b.getItem().getGroupKey());
  }
}
