package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/**
 * Age index: {@code [0x28][namespace][0x00][topic][0x00][readyAt: 8][offset: 8]}, value empty.
 * Its head is the topic's oldest ready item, whatever its priority: the age that Amazon's
 * backlog advice says to watch. Same ordering argument as {@link ReadyKeySchema}.
 */
public final class AgeKeySchema {
  public static final int SUFFIX_SIZE = 8 + 8;

  private AgeKeySchema() {}

  public static byte[] prefix(String namespace, String topic) {
    byte[] name = NameKey.encode(namespace, topic);
    byte[] out = new byte[1 + name.length];
    out[0] = KeyFamily.AGE;
    System.arraycopy(name, 0, out, 1, name.length);
    return out;
  }

  public static byte[] key(byte[] prefix, long readyAt, long offset) {
    ByteBuffer buf = ByteBuffer.allocate(prefix.length + SUFFIX_SIZE);
    buf.put(prefix);
    OrderedBytes.putLong(buf, readyAt);
    OrderedBytes.putLong(buf, offset);
    return buf.array();
  }

  public static byte[] upperBound(byte[] prefix) {
    byte[] out = java.util.Arrays.copyOf(prefix, prefix.length + SUFFIX_SIZE);
    java.util.Arrays.fill(out, prefix.length, out.length, (byte) 0xFF);
    return out;
  }

  public static long readyAt(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 16);
  }
}
