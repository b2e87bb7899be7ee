package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/**
 * The state log's blocks: {@code [0x60][block: 8, sign-flipped big-endian]} → a format byte, a count and length-prefixed {@code ItemStateEntry} encodings (StateLog)
 * (Avro). Block {@code b} holds the offsets {@code [b << BITS, (b + 1) << BITS)} of the items topic.
 */
public final class StateBlockKeySchema {
  public static final int SIZE = 1 + 8;
  /** A block spans 2^BITS offsets. */
  public static final int BITS = 8;
  public static final int OFFSETS = 1 << BITS;

  private StateBlockKeySchema() {}

  public static long block(long offset) {
    return offset >> BITS;
  }

  /** The first offset of {@code block}. */
  public static long first(long block) {
    return block << BITS;
  }

  public static byte[] key(long block) {
    ByteBuffer buf = ByteBuffer.allocate(SIZE);
    buf.put(KeyFamily.STATE_BLOCK);
    OrderedBytes.putLong(buf, block);
    return buf.array();
  }

  public static long blockOf(byte[] key) {
    return OrderedBytes.getLong(key, 1);
  }
}
