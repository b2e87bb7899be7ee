package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/** Item table: {@code [0x10][offset: 8, sign-flipped big-endian]} → StoredItem (Avro). */
public final class ItemKeySchema {
  public static final int SIZE = 1 + 8;

  private ItemKeySchema() {}

  public static byte[] key(long offset) {
    ByteBuffer buf = ByteBuffer.allocate(SIZE);
    buf.put(KeyFamily.ITEM);
    OrderedBytes.putLong(buf, offset);
    return buf.array();
  }

  public static long offset(byte[] key) {
    return OrderedBytes.getLong(key, 1);
  }
}
