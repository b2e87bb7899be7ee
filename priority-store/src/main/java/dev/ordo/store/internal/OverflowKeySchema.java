package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/**
 * Overflow index: {@code [0x38][namespace][0x00][offset: 8]}, value empty. One per namespace, not
 * per topic: a namespace's admission rate and backlog limit are the namespace's, and its items
 * are admitted in the order they arrived on the partition (their offsets), whatever their topic.
 */
public final class OverflowKeySchema {
  private OverflowKeySchema() {}

  public static byte[] prefix(String namespace) {
    byte[] ns = NameKey.encodeNamespace(namespace);
    byte[] out = new byte[1 + ns.length];
    out[0] = KeyFamily.OVERFLOW;
    System.arraycopy(ns, 0, out, 1, ns.length);
    return out;
  }

  public static byte[] key(byte[] prefix, long offset) {
    ByteBuffer buf = ByteBuffer.allocate(prefix.length + 8);
    buf.put(prefix);
    OrderedBytes.putLong(buf, offset);
    return buf.array();
  }

  /** Upper bound (inclusive) of every key under {@code prefix}. */
  public static byte[] upperBound(byte[] prefix) {
    byte[] out = java.util.Arrays.copyOf(prefix, prefix.length + 8);
    java.util.Arrays.fill(out, prefix.length, out.length, (byte) 0xFF);
    return out;
  }

  public static long offset(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 8);
  }
}
