package dev.ordo.store.internal;

/**
 * Hash codes for the store's in-memory maps whose keys are built from names and small numbers.
 *
 * <p>Why: Java's polynomial hashes ({@code String.hashCode}, a record's, {@code Arrays.hashCode})
 * are linear in their parts, and keys made of a topic, a priority and a group key such as
 * {@code t1/3/g42} collide by design: {@code t1/3/g42} and {@code t2/2/g32} hash the same whenever
 * the parts' differences cancel. With 1,000 group keys over 4 topics and 10 priorities, 10,000 fair-
 * share keys had 2,490 distinct hashes, up to 10 keys each, and {@code HashMap} turned those bins into
 * trees that it must search both ways (the keys are not {@code Comparable}): ordo bench's group-key
 * run spent a visible part of the stream thread there. Mixing after each part breaks the linearity.
 */
public final class Hashing {
  private Hashing() {}

  /** MurmurHash3's 32-bit finalizer: every input bit affects every output bit. */
  public static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  /** A hash of parts, mixed after each so that differences in two parts do not cancel. */
  public static int combine(int h, int part) {
    return mix(h * 0x9E3779B9 + part);
  }

  /** FNV-1a over the bytes, finalized by {@link #mix}. */
  public static int bytes(byte[] b) {
    int h = 0x811C9DC5;
    for (byte x : b) {
      h = (h ^ (x & 0xFF)) * 0x01000193;
    }
    return mix(h);
  }
}
