package dev.ordo.store.internal;

import java.util.Arrays;

/**
 * A sorted set of keys (by {@link OrderedBytes#compare}) in one circular array: the keys a
 * {@link HeadCache} holds of a prefix.
 *
 * <p>Why not a {@code TreeSet}: a queue's keys are mostly added at the end and taken from the
 * front (a group's slots only grow, a topic's ready times too), which a circular array does in
 * O(1) with no allocation, where a red-black tree allocates a node per key and walks from its root
 * for the first key, a cache miss per level among thousands of groups' trees (the stream thread's
 * profile with 1,000 group keys: the group heads' {@code TreeMap} walks and rebalancing;
 * docs/store.md, "Group queues' heads: one look-up per change, in a circular array"). A key added or
 * removed elsewhere is found by binary search and the shorter side of the array moves by one: at
 * most half of the held keys, a few thousand references.
 */
final class SortedKeys {
  private byte[][] keys = new byte[2][];
  /** The array index of the first key; the array's length is a power of two. */
  private int head;
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The {@code i}-th smallest key, {@code 0 <= i < size()}. */
  byte[] get(int i) {
    return keys[(head + i) & (keys.length - 1)];
  }

  /** Adds a key not held; false (nothing changed) when an equal key is held. */
  boolean add(byte[] key) {
    if (size == 0 || OrderedBytes.compare(key, get(size - 1)) > 0) {
      grow();
      keys[(head + size) & (keys.length - 1)] = key;
      size++;
      return true;
    }
    int at = search(key);
    if (at >= 0) {
      return false;
    }
    insertAt(-at - 1, key);
    return true;
  }

  /** Removes an equal key; false when none is held. */
  boolean remove(byte[] key) {
    if (size == 0) {
      return false;
    }
    if (Arrays.equals(key, get(0))) {
      keys[head] = null;
      head = (head + 1) & (keys.length - 1);
      size--;
      return true;
    }
    int at = search(key);
    if (at < 0) {
      return false;
    }
    removeAt(at);
    return true;
  }

  /** Removes and returns the largest key; {@code size() > 0}. */
  byte[] pollLast() {
    int i = (head + size - 1) & (keys.length - 1);
    byte[] last = keys[i];
    keys[i] = null;
    size--;
    return last;
  }

  void clear() {
    Arrays.fill(keys, null);
    head = 0;
    size = 0;
  }

  /** The key's position when held, else {@code -(insertion point) - 1}. */
  private int search(byte[] key) {
    int lo = 0;
    int hi = size - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = OrderedBytes.compare(get(mid), key);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  private void insertAt(int pos, byte[] key) {
    grow();
    int mask = keys.length - 1;
    if (pos < size / 2) { // the front moves one place down
      head = (head - 1) & mask;
      for (int i = 0; i < pos; i++) {
        keys[(head + i) & mask] = keys[(head + i + 1) & mask];
      }
    } else { // the back moves one place up
      for (int i = size; i > pos; i--) {
        keys[(head + i) & mask] = keys[(head + i - 1) & mask];
      }
    }
    keys[(head + pos) & mask] = key;
    size++;
  }

  private void removeAt(int pos) {
    int mask = keys.length - 1;
    if (pos < size / 2) { // the front moves one place up
      for (int i = pos; i > 0; i--) {
        keys[(head + i) & mask] = keys[(head + i - 1) & mask];
      }
      keys[head] = null;
      head = (head + 1) & mask;
    } else { // the back moves one place down
      for (int i = pos; i < size - 1; i++) {
        keys[(head + i) & mask] = keys[(head + i + 1) & mask];
      }
      keys[(head + size - 1) & mask] = null;
    }
    size--;
  }

  private void grow() {
    if (size < keys.length) {
      return;
    }
    byte[][] bigger = new byte[keys.length * 2][];
    for (int i = 0; i < size; i++) {
      bigger[i] = get(i);
    }
    keys = bigger;
    head = 0;
  }
}
