package dev.ordo.store.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The order-preserving primitives of every key layout.
 *
 * <p>Ordering argument: RocksDB compares keys as unsigned bytes, lexicographically. A big-endian
 * two's-complement number compares correctly as unsigned bytes except for its sign bit, which
 * makes negatives sort after positives. Flipping the sign bit ({@code x ^ MIN_VALUE}) maps
 * {@code MIN_VALUE..MAX_VALUE} monotonically onto {@code 0x00..00..0xFF..FF}, so unsigned byte
 * order of the encoding equals signed numeric order. Fixed width means no prefix of one number is
 * a prefix of another, so the next field never takes part in the comparison of this one.
 */
public final class OrderedBytes {
  private OrderedBytes() {}

  public static void putInt(ByteBuffer buf, int value) {
    buf.putInt(value ^ Integer.MIN_VALUE);
  }

  public static int getInt(ByteBuffer buf) {
    return buf.getInt() ^ Integer.MIN_VALUE;
  }

  public static void putLong(ByteBuffer buf, long value) {
    buf.putLong(value ^ Long.MIN_VALUE);
  }

  public static long getLong(ByteBuffer buf) {
    return buf.getLong() ^ Long.MIN_VALUE;
  }

  private static final VarHandle BIG_ENDIAN_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /**
   * The int written by {@link #putInt} at {@code at} in {@code bytes}. Reading keys is on the hot
   * path (every entry of a topic's head, every timer), and a {@code ByteBuffer.wrap} per field was
   * 15% of the bytes the bench process allocated (JFR), not removed by escape analysis.
   */
  public static int getInt(byte[] bytes, int at) {
    return (int) BIG_ENDIAN_INT.get(bytes, at) ^ Integer.MIN_VALUE;
  }

  /** The long written by {@link #putLong} at {@code at} in {@code bytes}. */
  public static long getLong(byte[] bytes, int at) {
    return (long) BIG_ENDIAN_LONG.get(bytes, at) ^ Long.MIN_VALUE;
  }

  /** The smallest key greater than every key that starts with {@code prefix}, or null when none exists. */
  public static byte[] prefixEnd(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xFF) {
        end[i]++;
        return java.util.Arrays.copyOf(end, i + 1);
      }
    }
    return null;
  }

  /** The smallest key greater than {@code key}: the key followed by one 0x00 byte. */
  public static byte[] successor(byte[] key) {
    return java.util.Arrays.copyOf(key, key.length + 1);
  }

  /** Unsigned lexicographic comparison, as RocksDB's default comparator. */
  public static int compare(byte[] a, byte[] b) {
    return java.util.Arrays.compareUnsigned(a, b);
  }
}
