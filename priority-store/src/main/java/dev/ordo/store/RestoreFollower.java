package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.KeyFamily;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps a task's index store up with its item table while Kafka Streams restores the table from its
 * changelog: on a standby all along, and on an active task catching up before it runs. The task's
 * processor then opens an index it can trust instead of rebuilding one from the whole table, which
 * at a failover was seconds on the survivor's stream thread (decisions D35).
 *
 * <p>It is a {@link PriorityStore} over the raw item table and the index store that never writes the
 * table: every restored record of an item goes through the same index code as a transition, with the
 * table's value before it as the old item. It may vouch for the index ({@link #vouch}) only if it saw
 * every record restored since it opened the index, which its owner guarantees by creating it before
 * the first batch a store instance restores and never after a batch it missed.
 *
 * <p>Not thread-safe: it belongs to the thread restoring the task (Kafka Streams' state updater), and
 * moves with the task to its stream thread, whose hand-over orders the two.
 */
public final class RestoreFollower {
  /** Decoded items kept: the follower reads each item once or twice, so only a small cache. */
  private static final long DECODED_BYTES = 256L << 10;
  private static final int REBUILD_STEP = 100_000;

  private final KeyValueStore<Bytes, byte[]> items;
  private final PriorityStore store;
  private final long rebuilt;
  private long followed;

  private RestoreFollower(KeyValueStore<Bytes, byte[]> items, PriorityStore store, long rebuilt) {
    this.items = items;
    this.store = store;
    this.rebuilt = rebuilt;
  }

  /**
   * Opens the index store for following the table, before the table's first restored batch is
   * written: an index the table's last orderly close vouched for is used as it is; any other is
   * rebuilt from the table at once, here (on the restoring thread, not a stream thread).
   *
   * @param items the item table as restoring writes it (no changelog, no cache)
   * @param index the index store
   */
  public static RestoreFollower open(KeyValueStore<Bytes, byte[]> items, KeyValueStore<Bytes, byte[]> index) {
    PriorityStore store = new PriorityStore(items, index, DECODED_BYTES);
    long rebuilt = 0;
    if (!store.openIndex()) {
      while (store.rebuilding()) {
        rebuilt += store.rebuildStep(REBUILD_STEP);
      }
    }
    return new RestoreFollower(items, store, rebuilt);
  }

  /**
   * Moves the index with a batch of the table's changelog records, in order; call it before the
   * batch is written to the table, which must still hold what the records replace.
   */
  public void beforeWrite(Collection<ConsumerRecord<byte[], byte[]>> records) {
    Map<Long, byte[]> batch = null; // values this batch gave a key already: the table does not hold them yet
    for (ConsumerRecord<byte[], byte[]> r : records) {
      byte[] key = r.key();
      if (key == null || key.length != ItemKeySchema.SIZE || key[0] != KeyFamily.ITEM) {
        continue; // the table's bookkeeping (generation, count of changes, high-water mark)
      }
      long offset = ItemKeySchema.offset(key);
      if (batch == null) {
        batch = new HashMap<>();
      }
      byte[] was = batch.containsKey(offset) ? batch.get(offset) : items.get(Bytes.wrap(key));
      batch.put(offset, r.value());
      if (was == null && r.value() == null) {
        continue;
      }
      store.restored(offset, decode(was), decode(r.value()));
      followed++;
    }
  }

  /**
   * Vouches that the index store matches the table as restored so far, for the processor's
   * {@code openIndex}; the follower is done after it.
   *
   * @return false when it could not (a table never written: the processor's open rebuilds, at no cost)
   */
  public boolean vouch() {
    return store.vouchForRestoredTable();
  }

  /** Item records followed so far. */
  public long followed() {
    return followed;
  }

  /** Items indexed when the follower opened (0: the index was trusted as it was). */
  public long rebuilt() {
    return rebuilt;
  }

  private static StoredItem decode(byte[] value) {
    return value == null ? null : OrdoSerdes.STORED_ITEM.decode(value);
  }
}
