package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A least-recently-used map of decoded items by offset, bounded by count and by the sum of their
 * payload sizes. Not thread-safe: it belongs to a {@link PriorityStore}.
 */
final class DecodedItems {
  private final int maxItems;
  private final long maxPayloadBytes;
  private final LinkedHashMap<Long, StoredItem> items = new LinkedHashMap<>(1024, 0.75f, true);
  private long payloadBytes;

  DecodedItems(int maxItems, long maxPayloadBytes) {
    this.maxItems = maxItems;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  StoredItem get(long offset) {
    return items.get(offset);
  }

  void put(long offset, StoredItem item) {
    StoredItem old = items.put(offset, item);
    if (old != null) {
      payloadBytes -= size(old);
    }
    payloadBytes += size(item);
    Iterator<Map.Entry<Long, StoredItem>> eldest = items.entrySet().iterator();
    while ((items.size() > maxItems || payloadBytes > maxPayloadBytes) && eldest.hasNext()) {
      payloadBytes -= size(eldest.next().getValue());
      eldest.remove();
    }
  }

  void remove(long offset) {
    StoredItem old = items.remove(offset);
    if (old != null) {
      payloadBytes -= size(old);
    }
  }

  int size() {
    return items.size();
  }

  long payloadBytes() {
    return payloadBytes;
  }

  private static long size(StoredItem item) {
    return item.getItem().getPayload() == null ? 0 : item.getItem().getPayload().remaining();
  }
}
