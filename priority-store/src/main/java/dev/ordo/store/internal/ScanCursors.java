package dev.ordo.store.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;

/**
 * Where to start each prefix's next range scan so that scans skip the tombstones that pops leave
 * behind (RocksDB iterators crawl over deleted keys at the head of a range: rocksdb #5265; it
 * fenced LittleHorse's producers). Invariant per prefix: no live key under the prefix is smaller
 * than its cursor. Kept up by three events:
 * <ol>
 *   <li>a scan finds its first live key: that key becomes the cursor;</li>
 *   <li>a key is removed that equals the cursor: the cursor moves to its successor;</li>
 *   <li>a key is inserted below the cursor: the cursor moves down to it.</li>
 * </ol>
 * A prefix with no cursor starts at the prefix itself, so losing the map (a task moving, or the
 * size cap below) costs one slower scan, never a wrong answer. Nothing is rebuilt at task start.
 */
public final class ScanCursors {
  private static final int MAX_ENTRIES = 100_000;
  private final Map<Bytes, byte[]> cursors = new HashMap<>();

  public byte[] start(byte[] prefix) {
    byte[] c = cursors.get(Bytes.wrap(prefix));
    return c == null ? prefix : c;
  }

  public void found(byte[] prefix, byte[] firstLiveKey) {
    put(prefix, firstLiveKey);
  }

  /** The scan from the cursor to {@code scannedUpTo} (inclusive) found no live key. */
  public void emptyUpTo(byte[] prefix, byte[] scannedUpTo) {
    put(prefix, OrderedBytes.successor(scannedUpTo));
  }

  public void inserted(byte[] prefix, byte[] key) {
    Bytes p = Bytes.wrap(prefix);
    byte[] c = cursors.get(p);
    if (c != null && OrderedBytes.compare(key, c) < 0) {
      cursors.put(p, key);
    }
  }

  public void removed(byte[] prefix, byte[] key) {
    Bytes p = Bytes.wrap(prefix);
    byte[] c = cursors.get(p);
    if (c != null && Arrays.equals(c, key)) {
      cursors.put(p, OrderedBytes.successor(key));
    }
  }

  private void put(byte[] prefix, byte[] cursor) {
    if (cursors.size() >= MAX_ENTRIES) {
      cursors.clear();
    }
    cursors.put(Bytes.wrap(prefix), cursor);
  }
}
