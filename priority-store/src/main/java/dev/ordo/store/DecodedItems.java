package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A least-recently-used map of decoded items by offset, bounded by an estimate of the heap they take:
 * {@link #OVERHEAD_BYTES} per item plus its payload and metadata. Not thread-safe: it belongs to a
 * {@link PriorityStore}.
 */
final class DecodedItems {
  /**
   * Heap of a decoded item besides its payload and metadata, with its map entry: measured at about
   * 320 bytes for a {@code StoredItem} (its {@code Item}, strings, buffers, enum and list) decoded from
   * the item table, plus about 60 for the entry and its boxed key.
   */
  static final int OVERHEAD_BYTES = 400;

  private final long maxBytes;
  private final LinkedHashMap<Long, StoredItem> items = new LinkedHashMap<>(1024, 0.75f, true);
  private long bytes;

  /** @param maxBytes the most heap the items may take, by {@link #estimate}; 0 keeps nothing */
  DecodedItems(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  StoredItem get(long offset) {
    return items.get(offset);
  }

  void put(long offset, StoredItem item) {
    long size = estimate(item);
    if (size > maxBytes) {
      remove(offset);
      return;
    }
    StoredItem old = items.put(offset, item);
    if (old != null) {
      bytes -= estimate(old);
    }
    bytes += size;
    Iterator<Map.Entry<Long, StoredItem>> eldest = items.entrySet().iterator();
    while (bytes > maxBytes && eldest.hasNext()) {
      bytes -= estimate(eldest.next().getValue());
      eldest.remove();
    }
  }

  /** Forgets every item (the table was rebuilt). */
  void clear() {
    items.clear();
    bytes = 0;
  }

  void remove(long offset) {
    StoredItem old = items.remove(offset);
    if (old != null) {
      bytes -= estimate(old);
    }
  }

  int size() {
    return items.size();
  }

  /** The estimated heap of the items held. */
  long bytes() {
    return bytes;
  }

  /** The heap an item is counted for: {@link #OVERHEAD_BYTES} plus its payload and metadata. */
  static long estimate(StoredItem item) {
    return OVERHEAD_BYTES + remaining(item.getItem().getPayload()) + remaining(item.getItem().getMetadata());
  }

  private static int remaining(ByteBuffer b) {
    return b == null ? 0 : b.remaining();
  }
}
