package dev.ordo.store.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * An ordered group's live items: {@code [0x2C][namespace][0x00][topic][0x00][group length: 4][group
 * UTF-8][offset: 8]}, value empty, for every live item (any state) of an ordered group (docs/queue.md,
 * "Ordered groups"; decisions D60).
 *
 * <p>The group's first key is its <em>head</em>, the oldest item taken in that is still live: only
 * the head is leased, and only while it is READY; the ready index holds the head's ready key then
 * and no other item of the group. The group is length-prefixed, so the encoding is prefix-free for
 * any group key; the offset has a fixed width, so within one group's prefix byte order is offset order
 * (enqueue order on the partition), whatever the items' priorities.
 */
public final class OrderKeySchema {
  public static final int SUFFIX_SIZE = 8;

  private OrderKeySchema() {}

  public static byte[] prefix(String namespace, String topic, String group) {
    byte[] names = NameKey.encode(namespace, topic);
    byte[] g = group.getBytes(StandardCharsets.UTF_8);
    ByteBuffer buf = ByteBuffer.allocate(1 + names.length + 4 + g.length);
    buf.put(KeyFamily.ORDER).put(names);
    buf.putInt(g.length).put(g);
    return buf.array();
  }

  public static byte[] key(byte[] prefix, long offset) {
    ByteBuffer buf = ByteBuffer.allocate(prefix.length + SUFFIX_SIZE);
    buf.put(prefix);
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
}
