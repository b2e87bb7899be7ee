package dev.ordo.store.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Writes to the index store held back on the heap and applied in one RocksDB write batch
 * ({@link KeyValueStore#putAll}) when something is about to read the store, or when many have
 * gathered.
 *
 * <p>Why: an item's ready and age entries are put when it becomes ready and deleted when it is
 * leased, four RocksDB writes, each a JNI call and a pass through RocksDB's write path (and a
 * delete through Kafka Streams also reads the key first, to return its old value). An entry put
 * and deleted again before the next batch never reaches RocksDB at all: no write and no tombstone
 * for later scans to step over. The rest share one batch.
 *
 * <p>Index entries are put only where the store lacks them ({@link #putNew}) and deleted only where
 * it has them, which is what lets a delete cancel a held put. The index store is read only by the
 * stream thread that owns it (interactive queries read the item table), so holding writes back is
 * invisible as long as every read of the store comes after {@link #flush}.
 */
public final class IndexWrites {
  /** A held write: the value to put (null: delete), and whether the store holds the key now. */
  private record Write(byte[] value, boolean inStore) {}

  private final KeyValueStore<Bytes, byte[]> store;
  private final int maxHeld;
  private final Map<Bytes, Write> held = new LinkedHashMap<>();
  private long cancelled;
  private long written;

  /** @param maxHeld writes held at most; one more applies them all */
  public IndexWrites(KeyValueStore<Bytes, byte[]> store, int maxHeld) {
    if (maxHeld < 1) {
      throw new IllegalArgumentException("maxHeld must be positive, got " + maxHeld);
    }
    this.store = store;
    this.maxHeld = maxHeld;
  }

  /** Puts a key that the store does not hold (as last written through this buffer). */
  public void putNew(byte[] key, byte[] value) {
    Bytes k = Bytes.wrap(key);
    Write before = held.get(k);
    // Absent from the store unless a held delete says it is there still.
    held.put(k, new Write(value, before != null && before.inStore));
    maybeFlush();
  }

  /** Deletes a key that the store holds (as last written through this buffer). */
  public void delete(byte[] key) {
    Bytes k = Bytes.wrap(key);
    Write before = held.get(k);
    if (before != null && before.value != null && !before.inStore) {
      held.remove(k); // put and deleted between two batches: RocksDB never sees it
      cancelled++;
      return;
    }
    held.put(k, new Write(null, true));
    maybeFlush();
  }

  private void maybeFlush() {
    if (held.size() > maxHeld) {
      flush();
    }
  }

  /** Applies every held write to the store, in one batch. */
  public void flush() {
    if (held.isEmpty()) {
      return;
    }
    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(held.size());
    for (Map.Entry<Bytes, Write> e : held.entrySet()) {
      batch.add(KeyValue.pair(e.getKey(), e.getValue().value));
    }
    held.clear();
    store.putAll(batch);
    written += batch.size();
  }

  /** Writes held now. */
  public int held() {
    return held.size();
  }

  /** Writes that never reached the store because a later one undid them, since this buffer was made. */
  public long cancelled() {
    return cancelled;
  }

  /** Writes applied to the store, since this buffer was made. */
  public long written() {
    return written;
  }
}
