package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/**
 * Per-topic counts: {@code [0x40][namespace][0x00][topic][0x00]} → five big-endian longs (ready,
 * delayed, leased, parked, overflow; a value of four written before OVERFLOW existed reads as no
 * overflow). Kept in the store, so they survive restarts and move with the task; deleted when all
 * reach zero. A prefix scan of {@code [0x40][namespace][0x00]} lists a
 * namespace's active topics.
 */
public final class CountsKeySchema {
  public static final int STATES = 5;
  public static final int VALUE_SIZE = STATES * 8;

  private CountsKeySchema() {}

  public static byte[] key(String namespace, String topic) {
    byte[] name = NameKey.encode(namespace, topic);
    byte[] out = new byte[1 + name.length];
    out[0] = KeyFamily.COUNTS;
    System.arraycopy(name, 0, out, 1, name.length);
    return out;
  }

  public static byte[] namespacePrefix(String namespace) {
    byte[] ns = NameKey.encodeNamespace(namespace);
    byte[] out = new byte[1 + ns.length];
    out[0] = KeyFamily.COUNTS;
    System.arraycopy(ns, 0, out, 1, ns.length);
    return out;
  }

  public static String[] names(byte[] key) {
    ByteBuffer buf = ByteBuffer.wrap(key);
    buf.get();
    return NameKey.decode(buf);
  }

  public static byte[] value(long[] counts) {
    ByteBuffer buf = ByteBuffer.allocate(VALUE_SIZE);
    for (int i = 0; i < STATES; i++) {
      buf.putLong(counts[i]);
    }
    return buf.array();
  }

  public static long[] counts(byte[] value) {
    ByteBuffer buf = ByteBuffer.wrap(value);
    long[] out = new long[STATES];
    for (int i = 0; i < STATES && buf.remaining() >= 8; i++) {
      out[i] = buf.getLong();
    }
    return out;
  }
}
