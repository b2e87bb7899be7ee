package dev.ordo.topology.internal;

import java.nio.ByteBuffer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One partition's deduplication window (decisions D57): which deduplication IDs it took in, with the
 * first item's offset, until their window ends. Kept in the task's own changelogged store
 * {@value #STORE}, apart from the item table, so it is written by the stream thread in the same
 * exactly-once transaction as the intake that it guards, and restored with the task on any instance
 * after a restart or a failover (a duplicate is refused across a kill).
 *
 * <p>Bounded: IDs whose window ended are forgotten in steps ({@link #expire}, at most
 * {@code max} a call, from a cursor, so a scan never walks back over what it deleted), and at most
 * {@code maxEntries} are held: at the cap, the IDs whose window ends first are forgotten early.
 * Lookups ignore an ID whose window ended but which is not yet forgotten, so how late the steps run
 * changes only the space, never an answer. The layout is {@link DedupKeySchema}'s.
 */
public final class DedupWindow {
  /** The partition's store of deduplication IDs. */
  public static final String STORE = "ordo-dedup";
  /** IDs forgotten at most per {@link #expire} call. */
  static final int EXPIRE_STEP = 5_000;

  /** The first item taken in with an ID, and when its window ends (epoch ms, exclusive). */
  public record First(long offset, long windowEnd) {}

  private final KeyValueStore<Bytes, byte[]> store;
  private final long maxEntries;
  private long count;
  /** Every expiry key before this one was deleted (a scan starts here); null: from the family's start. */
  private byte[] expiredUpTo;
  /** The last {@link #expire} stopped at its step, not at a window still open. */
  private boolean behind;

  public DedupWindow(KeyValueStore<Bytes, byte[]> store, long maxEntries) {
    this.store = store;
    this.maxEntries = maxEntries;
    byte[] n = store.get(Bytes.wrap(DedupKeySchema.countKey()));
    this.count = n == null ? 0 : ByteBuffer.wrap(n).getLong();
  }

  /** How many IDs are held. */
  public long size() {
    return count;
  }

  /** True when IDs whose window ended wait to be forgotten beyond the last step. */
  boolean behind() {
    return behind;
  }

  /** The first item taken in with this ID whose window is still open at {@code now}, or null. */
  First first(String namespace, String topic, String group, String id, long now) {
    byte[] value = store.get(Bytes.wrap(DedupKeySchema.entryKey(namespace, topic, group, id)));
    if (value == null) {
      return null;
    }
    long end = DedupKeySchema.endOf(value);
    return now < end ? new First(DedupKeySchema.offsetOf(value), end) : null;
  }

  /**
   * Remembers the item at {@code offset}, taken in at {@code now} with this ID, for {@code windowMs}
   * (replacing an entry whose window ended). Returns how many IDs were forgotten early to stay
   * within the cap.
   */
  int remember(String namespace, String topic, String group, String id, long offset, long now, long windowMs) {
    byte[] entry = DedupKeySchema.entryKey(namespace, topic, group, id);
    Bytes entryKey = Bytes.wrap(entry);
    byte[] old = store.get(entryKey);
    int evicted = 0;
    if (old != null) {
      store.delete(Bytes.wrap(DedupKeySchema.expiryKey(DedupKeySchema.endOf(old), entry)));
    } else {
      evicted = evictFor(1);
      count++;
    }
    long end = now + windowMs;
    Bytes expiry = Bytes.wrap(DedupKeySchema.expiryKey(end, entry));
    if (expiredUpTo != null && expiry.compareTo(Bytes.wrap(expiredUpTo)) < 0) {
      expiredUpTo = null; // a window shorter than one already ended (or the clock stepped back): scan from the start
    }
    store.put(entryKey, DedupKeySchema.value(offset, end));
    store.put(expiry, new byte[0]);
    writeCount();
    return evicted;
  }

  /** Forgets IDs whose window ended by {@code now}, at most {@code max}; returns how many. */
  int expire(long now, int max) {
    int n = forget(now, max);
    behind = n == max;
    return n;
  }

  /** Makes room for {@code room} more IDs under the cap: forgets those whose windows end first. */
  private int evictFor(int room) {
    long over = count + room - maxEntries;
    return over > 0 ? forget(Long.MAX_VALUE, (int) Math.min(over, Integer.MAX_VALUE)) : 0;
  }

  /** Forgets up to {@code max} IDs whose window ends at or before {@code upTo}, earliest first. */
  private int forget(long upTo, int max) {
    if (count == 0 || max <= 0) {
      return 0;
    }
    int n = 0;
    byte[] from = expiredUpTo != null ? expiredUpTo : DedupKeySchema.expiryStart();
    try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(from), Bytes.wrap(DedupKeySchema.expiryEnd()))) {
      while (it.hasNext() && n < max) {
        KeyValue<Bytes, byte[]> e = it.next();
        byte[] key = e.key.get();
        if (DedupKeySchema.expiryEndOf(key) > upTo) {
          break;
        }
        store.delete(e.key);
        store.delete(Bytes.wrap(DedupKeySchema.entryKeyOf(key)));
        if (upTo != Long.MAX_VALUE) {
          expiredUpTo = key; // only windows that ended: an entry remembered later ends after it
        }
        n++;
      }
    }
    if (n > 0) {
      count = Math.max(0, count - n);
      writeCount();
    }
    return n;
  }

  private void writeCount() {
    store.put(Bytes.wrap(DedupKeySchema.countKey()), ByteBuffer.allocate(8).putLong(count).array());
  }
}
