package dev.ordo.topology.internal;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * Makes the record cache of the queue's store drop a key that was written and deleted between two
 * flushes instead of writing its tombstone.
 *
 * <p>Most keys of an item live briefly: its ready and age entries from enqueue to lease, its lease
 * timer from lease to ack, the item itself from enqueue to ack. Kafka Streams' cache coalesces the
 * writes to a key between two commits, but a plain cached store still flushes the last one, a
 * delete, to RocksDB and to the changelog, although the key never reached either. With a flush
 * listener set, the cache looks the key up in RocksDB first and skips it when it is absent there
 * (CachingKeyValueStore#putAndMaybeForward), which is what KTables rely on. The listener itself has
 * nothing to do: the queue's outputs are forwarded by the processor, not by the cache.
 *
 * <p>{@link CachedStateStore} is in Kafka Streams' internals package; if a future version drops the
 * hook, {@link #skipUnwrittenTombstones} returns false and the store keeps working, only with more
 * writes (the server logs it).
 */
final class CacheFlush {
  private CacheFlush() {}

  /** True when the store's cache now skips tombstones of keys it never flushed. */
  @SuppressWarnings("unchecked")
  static boolean skipUnwrittenTombstones(KeyValueStore<Bytes, byte[]> store) {
    if (store instanceof CachedStateStore<?, ?> cached) {
      return ((CachedStateStore<Bytes, byte[]>) cached).setFlushListener(record -> { }, false);
    }
    return false;
  }
}
