package dev.ordo.store;

import dev.ordo.schema.ItemStateEntry;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.StateBlockKeySchema;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * Reading a state log block's value ({@link StateLog}, docs/store.md "Three stores"): format byte
 * {@link StateLog#FORMAT}, a count, then each live item's slot in the block, length and
 * {@code ItemStateEntry}. For the readers that see only the stored value: interactive queries
 * ({@link StoreReader}), the item table's rebuild, the changelog's tools.
 */
final class StateBlockFormat {
  private StateBlockFormat() {}

  /** The entry of {@code offset} in its block's value, or null when the block has none for it. */
  static ItemStateEntry entryAt(byte[] value, long offset) {
    ByteBuffer in = ByteBuffer.wrap(value);
    if (in.get() != StateLog.FORMAT) {
      throw new IllegalStateException("a state log block of format " + value[0] + ", not " + StateLog.FORMAT);
    }
    int n = in.getInt();
    int wanted = (int) (offset & (StateBlockKeySchema.OFFSETS - 1));
    for (int k = 0; k < n; k++) {
      int slot = in.get() & 0xff;
      int length = in.getInt();
      if (slot == wanted) {
        byte[] e = new byte[length];
        in.get(e);
        return OrdoSerdes.ITEM_STATE_ENTRY.decode(e);
      }
      in.position(in.position() + length);
    }
    return null;
  }

  /** The entries of a block's value, in offset order. */
  static List<ItemStateEntry> entriesOf(byte[] value) {
    ByteBuffer in = ByteBuffer.wrap(value);
    in.get();
    int n = in.getInt();
    List<ItemStateEntry> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      in.get(); // the slot
      byte[] e = new byte[in.getInt()];
      in.get(e);
      out.add(OrdoSerdes.ITEM_STATE_ENTRY.decode(e));
    }
    return out;
  }

  /** The live items' entries, block by block from the store. */
  static final class EntryIterator implements Iterator<ItemStateEntry>, AutoCloseable {
    private final KeyValueIterator<Bytes, byte[]> blocks;
    private Iterator<ItemStateEntry> current = java.util.Collections.emptyIterator();

    EntryIterator(KeyValueIterator<Bytes, byte[]> blocks) {
      this.blocks = blocks;
    }

    @Override
    public boolean hasNext() {
      while (!current.hasNext() && blocks.hasNext()) {
        current = entriesOf(blocks.next().value).iterator();
      }
      return current.hasNext();
    }

    @Override
    public ItemStateEntry next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      return current.next();
    }

    @Override
    public void close() {
      blocks.close();
    }
  }

}
