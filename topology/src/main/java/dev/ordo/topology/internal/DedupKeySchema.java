package dev.ordo.topology.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The key layout of a partition's deduplication window (store {@value DedupWindow#STORE}, decisions
 * D57). Three families, told apart by their first byte:
 *
 * <pre>
 *   0x00 'n'                                  → the number of IDs held (8 bytes)
 *   0x01 [ns][topic][group][id]               → the first item's offset (8) and window end (8)
 *   0x02 [window end: 8 bytes][ns][topic][group][id] → nothing (the expiry index)
 * </pre>
 *
 * Each name is written as a 2-byte big-endian length and its UTF-8 bytes, so the four parts are
 * prefix-free: two different tuples never make the same key (an empty group key is length 0).
 *
 * <p>Ordering argument for the expiry family: the window end is a big-endian long with its sign bit
 * flipped, so for any two ends {@code a < b} the unsigned byte order of the keys is {@code a}'s
 * first (flipping the sign maps Long.MIN_VALUE..MAX_VALUE onto 0..2^64-1 in order); a forward scan
 * of the family therefore meets the IDs in the order their windows end, and can stop at the first
 * end still in the future.
 */
final class DedupKeySchema {
  static final byte COUNT = 0x00;
  static final byte ENTRY = 0x01;
  static final byte EXPIRY = 0x02;
  static final int TIME_SIZE = 8;
  static final int VALUE_SIZE = 16;

  private DedupKeySchema() {}

  /** The key holding the number of IDs. */
  static byte[] countKey() {
    return new byte[] {COUNT, 'n'};
  }

  /** The entry key of an ID: {@code 0x01} and the tuple. */
  static byte[] entryKey(String namespace, String topic, String group, String id) {
    byte[] tuple = tuple(namespace, topic, group, id);
    byte[] key = new byte[1 + tuple.length];
    key[0] = ENTRY;
    System.arraycopy(tuple, 0, key, 1, tuple.length);
    return key;
  }

  /** The expiry key of the entry {@code entryKey} whose window ends at {@code end}. */
  static byte[] expiryKey(long end, byte[] entryKey) {
    ByteBuffer b = ByteBuffer.allocate(1 + TIME_SIZE + entryKey.length - 1);
    b.put(EXPIRY).putLong(end ^ Long.MIN_VALUE).put(entryKey, 1, entryKey.length - 1);
    return b.array();
  }

  /** The first key of the expiry family. */
  static byte[] expiryStart() {
    return new byte[] {EXPIRY};
  }

  /** A key past every key of the expiry family. */
  static byte[] expiryEnd() {
    return new byte[] {EXPIRY + 1};
  }

  /** The window end an expiry key holds. */
  static long expiryEndOf(byte[] expiryKey) {
    return ByteBuffer.wrap(expiryKey, 1, TIME_SIZE).getLong() ^ Long.MIN_VALUE;
  }

  /** The entry key an expiry key points at. */
  static byte[] entryKeyOf(byte[] expiryKey) {
    byte[] key = new byte[expiryKey.length - TIME_SIZE];
    key[0] = ENTRY;
    System.arraycopy(expiryKey, 1 + TIME_SIZE, key, 1, key.length - 1);
    return key;
  }

  /** An entry's value: the first item's offset and the end of its window. */
  static byte[] value(long offset, long end) {
    return ByteBuffer.allocate(VALUE_SIZE).putLong(offset).putLong(end).array();
  }

  static long offsetOf(byte[] value) {
    return ByteBuffer.wrap(value).getLong(0);
  }

  static long endOf(byte[] value) {
    return ByteBuffer.wrap(value).getLong(TIME_SIZE);
  }

  private static byte[] tuple(String namespace, String topic, String group, String id) {
    byte[][] parts = {utf8(namespace), utf8(topic), utf8(group == null ? "" : group), utf8(id)};
    int size = 0;
    for (byte[] p : parts) {
      size += 2 + p.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    for (byte[] p : parts) {
      if (p.length > 0xffff) {
        throw new IllegalArgumentException("a name of " + p.length + " bytes does not fit a deduplication key");
      }
      b.putShort((short) p.length).put(p);
    }
    return b.array();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
