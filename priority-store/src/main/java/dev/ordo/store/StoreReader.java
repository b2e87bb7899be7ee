package dev.ordo.store;

import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.StateBlockKeySchema;
import org.apache.kafka.common.utils.Bytes;

/**
 * Read-only access to a partition's stores from outside its stream thread, for Kafka Streams
 * interactive queries: an item is what the item table ({@link PriorityStore#STORE_NAME}) holds of it
 * joined with its state in the state log ({@link PriorityStore#STATE_STORE_NAME}: its block's entry,
 * or its whole copy when it is cold), as of the partition's last commit. Callers need not know the
 * key layouts. Writes stay with {@link PriorityStore} on the stream thread.
 */
public final class StoreReader {
  private StoreReader() {}

  /** A key's value in one of a partition's stores (an interactive query), or null when there is none. */
  @FunctionalInterface
  public interface Lookup {
    byte[] get(String store, Bytes key);
  }

  /** The item table's key of the item appended at {@code offset} of its partition (a KeyQuery's key). */
  public static Bytes itemKey(long offset) {
    return Bytes.wrap(ItemKeySchema.key(offset));
  }

  /**
   * The item at {@code offset} as of the partition's last commit, or null when there is none (gone, or
   * taken in since the last commit).
   */
  public static StoredItem item(Lookup lookup, long offset) {
    byte[] cold = lookup.get(PriorityStore.STATE_STORE_NAME, Bytes.wrap(StateLog.coldKey(offset)));
    if (cold != null) {
      return OrdoSerdes.STORED_ITEM.decode(cold);
    }
    byte[] item = lookup.get(PriorityStore.STORE_NAME, itemKey(offset));
    if (item == null) {
      return null;
    }
    byte[] block = lookup.get(PriorityStore.STATE_STORE_NAME,
        Bytes.wrap(StateBlockKeySchema.key(StateBlockKeySchema.block(offset))));
    ItemStateEntry entry = block == null ? null : StateBlockFormat.entryAt(block, offset);
    return entry == null ? null : StateEntries.itemOf(entry, OrdoSerdes.ITEM.decode(item));
  }
}
