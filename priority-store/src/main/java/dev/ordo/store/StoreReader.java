package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.ItemKeySchema;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Read-only access to a partition's queue store ({@link PriorityStore#STORE_NAME}) from outside its
 * stream thread, for Kafka Streams interactive queries: the item table's key of an offset and the
 * decoding of its value, so callers need not know the key layout. Writes stay with
 * {@link PriorityStore} on the stream thread.
 */
public final class StoreReader {
  private StoreReader() {}

  /** The item table's key of the item appended at {@code offset} of its partition (a KeyQuery's key). */
  public static Bytes itemKey(long offset) {
    return Bytes.wrap(ItemKeySchema.key(offset));
  }

  /** Decodes an item table value, as a KeyQuery on the store returns it. */
  public static StoredItem decodeItem(byte[] value) {
    return OrdoSerdes.STORED_ITEM.decode(value);
  }

  /** The item at {@code offset} in a read-only view of one partition's store, or null when there is none. */
  public static StoredItem item(ReadOnlyKeyValueStore<Bytes, byte[]> store, long offset) {
    byte[] value = store.get(itemKey(offset));
    return value == null ? null : decodeItem(value);
  }
}
