package dev.ordo.store.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A group's ready items: {@code [0x24][namespace][0x00][topic][0x00][priority: 4][group length: 4][group
 * UTF-8][lane: 1][slot: 8][readyAt: 8][offset: 8]}, value empty.
 *
 * <p>Fair queueing keeps every READY item of a group key here, in the group's dequeue order (lane,
 * slot, ready time, offset: the ready order's fields after the priority), and only the group's first
 * item in the ready index ({@link ReadyKeySchema}): so the ready index holds one entry per group and
 * priority, and a dispatch that passes over a group at its concurrency limit steps over one entry,
 * not over the group's backlog. The group is length-prefixed, so the encoding is prefix-free for any
 * group key (two groups differ in their length or in a byte before the suffix); the suffix has a fixed
 * width of 25 bytes, so within one group's prefix byte order is that order.
 */
public final class GroupQueueKeySchema {
  public static final int SUFFIX_SIZE = 1 + 8 + 8 + 8;

  private GroupQueueKeySchema() {}

  public static byte[] prefix(String namespace, String topic, int priority, String group) {
    byte[] names = NameKey.encode(namespace, topic);
    byte[] g = group.getBytes(StandardCharsets.UTF_8);
    ByteBuffer buf = ByteBuffer.allocate(1 + names.length + 4 + 4 + g.length);
    buf.put(KeyFamily.GROUP_QUEUE).put(names);
    OrderedBytes.putInt(buf, priority);
    buf.putInt(g.length).put(g);
    return buf.array();
  }

  public static byte[] key(byte[] prefix, boolean sidelined, long slot, long readyAt, long offset) {
    ByteBuffer buf = ByteBuffer.allocate(prefix.length + SUFFIX_SIZE);
    buf.put(prefix);
    ReadyKeySchema.putOrder(buf, sidelined, slot, readyAt, offset);
    return buf.array();
  }

  public static byte[] upperBound(byte[] prefix) {
    byte[] out = java.util.Arrays.copyOf(prefix, prefix.length + SUFFIX_SIZE);
    java.util.Arrays.fill(out, prefix.length, out.length, (byte) 0xFF);
    return out;
  }

  public static boolean sidelined(byte[] key) {
    return key[key.length - SUFFIX_SIZE] == ReadyKeySchema.BACKLOG;
  }

  public static long slot(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 24);
  }

  public static long readyAt(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 16);
  }

  public static long offset(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 8);
  }
}
