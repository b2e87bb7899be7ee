package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/**
 * Age index: {@code [0x28][namespace][0x00][topic][0x00][lane: 1][readyAt: 8][offset: 8]}, value
 * empty, lane 0 fresh and 1 backlog as in {@link ReadyKeySchema}. The lane ends the prefix: each
 * lane is its own range, whose head is the lane's oldest ready item whatever its priority. The fresh
 * lane's head is what sidelining moves (the items ready longest); the older of the two heads is
 * the topic's oldest ready item, the age that Amazon's backlog advice says to watch. Same ordering
 * argument as {@link ReadyKeySchema}.
 */
public final class AgeKeySchema {
  public static final int SUFFIX_SIZE = 8 + 8;

  private AgeKeySchema() {}

  /** The fresh lane's prefix. */
  public static byte[] prefix(String namespace, String topic) {
    return prefix(namespace, topic, false);
  }

  public static byte[] prefix(String namespace, String topic, boolean sidelined) {
    byte[] name = NameKey.encode(namespace, topic);
    byte[] out = new byte[2 + name.length];
    out[0] = KeyFamily.AGE;
    System.arraycopy(name, 0, out, 1, name.length);
    out[out.length - 1] = sidelined ? ReadyKeySchema.BACKLOG : ReadyKeySchema.FRESH;
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

  public static long offset(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 8);
  }

  public static long readyAt(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 16);
  }
}
