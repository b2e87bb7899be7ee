package dev.ordo.store;

import dev.ordo.store.internal.HeadCache;
import dev.ordo.store.internal.IndexWrites;
import dev.ordo.store.internal.OrderedBytes;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The index store as the views see it: index entries (empty values) put and deleted through the held
 * writes ({@link IndexWrites}, applied in one batch before anything reads the store), and the reads,
 * each of which applies the held writes first. The views share it; none holds the store itself.
 */
final class IndexStore {
  static final byte[] EMPTY = new byte[0];
  /** Index writes held back at most before they are applied in one batch; see {@link IndexWrites}. */
  private static final int MAX_HELD_INDEX_WRITES = 8_192;

  private final KeyValueStore<Bytes, byte[]> kv;
  private final IndexWrites writes;

  IndexStore(KeyValueStore<Bytes, byte[]> kv) {
    this.kv = kv;
    this.writes = new IndexWrites(kv, MAX_HELD_INDEX_WRITES);
  }

  /** Puts an entry the store does not hold. */
  void put(byte[] key) {
    writes.putNew(key, EMPTY);
  }

  /** Deletes an entry the store holds. */
  void delete(byte[] key) {
    writes.delete(key);
  }

  /** Applies the held writes now. */
  void flush() {
    writes.flush();
  }

  /** The store, its held writes applied: for the reads and writes of opening, closing and rebuilding. */
  KeyValueStore<Bytes, byte[]> store() {
    writes.flush();
    return kv;
  }

  /** Reads live keys from a point up to {@code upper} (inclusive): the store scans behind the head caches. */
  HeadCache.Loader loader(byte[] upper) {
    return (from, max) -> keys(from, upper, max);
  }

  /** Up to {@code max} live keys from {@code from} to {@code upper}, both inclusive, in order. */
  List<byte[]> keys(byte[] from, byte[] upper, int max) {
    List<byte[]> keys = new ArrayList<>(Math.min(max, 1024));
    if (OrderedBytes.compare(from, upper) > 0) {
      return keys;
    }
    writes.flush();
    try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(from), Bytes.wrap(upper))) {
      while (keys.size() < max && it.hasNext()) {
        keys.add(it.next().key.get());
      }
    }
    return keys;
  }

  /** The entries whose keys start with {@code prefix}, after the held writes. */
  KeyValueIterator<Bytes, byte[]> prefixScan(byte[] prefix) {
    writes.flush();
    return kv.prefixScan(Bytes.wrap(prefix), BYTES);
  }

  /** One pass over the keys with this prefix, deleting as it goes (a RocksDB iterator reads a snapshot). */
  void deletePrefix(byte[] prefix) {
    try (KeyValueIterator<Bytes, byte[]> it = prefixScan(prefix)) {
      while (it.hasNext()) {
        kv.put(it.next().key, null); // put(null), unlike delete, does not read the old value first
      }
    }
  }

  /** Identity serializer for prefix scans over byte keys. */
  private static final Serializer<Bytes> BYTES = (topic, data) -> data == null ? null : data.get();
}
