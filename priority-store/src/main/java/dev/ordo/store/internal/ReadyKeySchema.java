package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/**
 * Ready index: {@code [0x20][namespace][0x00][topic][0x00][priority: 4][lane: 1][slot: 8][readyAt: 8][offset: 8]},
 * numbers big-endian with the sign bit flipped, lane 0 fresh and 1 backlog (sidelined), value empty.
 *
 * <p>Within one topic's prefix the suffix has a fixed width of 29 bytes, so unsigned byte order
 * is (priority, lane, slot, readyAt, offset) order: lowest priority first, within it the fresh lane
 * before the backlog lane, then the fair-queueing slot (groups served in turn), then oldest ready
 * time, then enqueue order. A range scan on the topic prefix yields the dequeue order, at
 * O(log n + k).
 */
public final class ReadyKeySchema {
  public static final int SUFFIX_SIZE = 4 + 1 + 8 + 8 + 8;
  public static final byte FRESH = 0;
  public static final byte BACKLOG = 1;

  private ReadyKeySchema() {}

  public static byte[] prefix(String namespace, String topic) {
    byte[] name = NameKey.encode(namespace, topic);
    byte[] out = new byte[1 + name.length];
    out[0] = KeyFamily.READY;
    System.arraycopy(name, 0, out, 1, name.length);
    return out;
  }

  /** A key of the fresh lane, slot 0. */
  public static byte[] key(byte[] prefix, int priority, long readyAt, long offset) {
    return key(prefix, priority, false, 0, readyAt, offset);
  }

  /** A key at slot 0. */
  public static byte[] key(byte[] prefix, int priority, boolean sidelined, long readyAt, long offset) {
    return key(prefix, priority, sidelined, 0, readyAt, offset);
  }

  public static byte[] key(byte[] prefix, int priority, boolean sidelined, long slot, long readyAt, long offset) {
    ByteBuffer buf = ByteBuffer.allocate(prefix.length + SUFFIX_SIZE);
    buf.put(prefix);
    OrderedBytes.putInt(buf, priority);
    putOrder(buf, sidelined, slot, readyAt, offset);
    return buf.array();
  }

  /**
   * The order within a priority, {@code [lane: 1][slot: 8][readyAt: 8][offset: 8]}: the ready key's
   * suffix after the priority, and the whole suffix of a group queue's key ({@link GroupQueueKeySchema}).
   */
  static void putOrder(ByteBuffer buf, boolean sidelined, long slot, long readyAt, long offset) {
    buf.put(sidelined ? BACKLOG : FRESH);
    OrderedBytes.putLong(buf, slot);
    OrderedBytes.putLong(buf, readyAt);
    OrderedBytes.putLong(buf, offset);
  }

  /** Upper bound (inclusive) of every key under {@code prefix}. */
  public static byte[] upperBound(byte[] prefix) {
    byte[] out = java.util.Arrays.copyOf(prefix, prefix.length + SUFFIX_SIZE);
    java.util.Arrays.fill(out, prefix.length, out.length, (byte) 0xFF);
    return out;
  }

  public static int priority(byte[] key) {
    return OrderedBytes.getInt(key, key.length - SUFFIX_SIZE);
  }


  /** True for a key of the backlog lane. */
  public static boolean sidelined(byte[] key) {
    return key[key.length - 25] == BACKLOG;
  }

  public static long slot(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 24);
  }

  /** The first key of a priority in a topic's range (for its first ready entry). */
  public static byte[] priorityStart(byte[] prefix, int priority) {
    ByteBuffer buf = ByteBuffer.allocate(prefix.length + 4);
    buf.put(prefix);
    OrderedBytes.putInt(buf, priority);
    return buf.array();
  }

  /** The last possible key of a priority in a topic's range. */
  public static byte[] priorityEnd(byte[] prefix, int priority) {
    byte[] out = java.util.Arrays.copyOf(priorityStart(prefix, priority), prefix.length + SUFFIX_SIZE);
    java.util.Arrays.fill(out, prefix.length + 4, out.length, (byte) 0xFF);
    return out;
  }

  public static long readyAt(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 16);
  }

  public static long offset(byte[] key) {
    return OrderedBytes.getLong(key, key.length - 8);
  }
}
