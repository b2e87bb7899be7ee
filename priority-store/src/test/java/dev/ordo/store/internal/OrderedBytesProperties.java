package dev.ordo.store.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The order-preserving primitives: sign-flipped big-endian numbers, prefixEnd and successor. */
class OrderedBytesProperties {

  @Property(seed = "42")
  void intBytesSortAsSignedInts(@ForAll("priorities") int a, @ForAll("priorities") int b) {
    assertEquals(Integer.signum(Integer.compare(a, b)), Integer.signum(OrderedBytes.compare(encodeInt(a), encodeInt(b))));
  }

  @Property(seed = "42")
  void intRoundTrips(@ForAll("priorities") int a) {
    assertEquals(a, OrderedBytes.getInt(ByteBuffer.wrap(encodeInt(a))));
  }

  @Property(seed = "42")
  void longBytesSortAsSignedLongs(@ForAll("longs") long a, @ForAll("longs") long b) {
    assertEquals(Integer.signum(Long.compare(a, b)), Integer.signum(OrderedBytes.compare(encodeLong(a), encodeLong(b))));
  }

  @Property(seed = "42")
  void longRoundTrips(@ForAll("longs") long a) {
    assertEquals(a, OrderedBytes.getLong(ByteBuffer.wrap(encodeLong(a))));
  }

  @Example
  void extremesMapToAllZerosAndAllOnes() {
    assertArrayEquals(new byte[] {0, 0, 0, 0}, encodeInt(Integer.MIN_VALUE));
    assertArrayEquals(new byte[] {-1, -1, -1, -1}, encodeInt(Integer.MAX_VALUE));
    assertArrayEquals(new byte[] {0x7F, -1, -1, -1, -1, -1, -1, -1}, encodeLong(-1));
    assertArrayEquals(new byte[] {(byte) 0x80, 0, 0, 0, 0, 0, 0, 0}, encodeLong(0));
  }

  @Property(seed = "42")
  void compareIsUnsignedLexicographic(@ForAll("bytes") byte[] a, @ForAll("bytes") byte[] b) {
    int expected = 0;
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n && expected == 0; i++) {
      expected = Integer.compare(a[i] & 0xFF, b[i] & 0xFF);
    }
    if (expected == 0) {
      expected = Integer.compare(a.length, b.length);
    }
    assertEquals(expected, Integer.signum(OrderedBytes.compare(a, b)));
  }

  /** prefixEnd bounds exactly the keys that start with the prefix: [prefix, prefixEnd). */
  @Property(seed = "42", tries = 3000)
  void prefixEndBoundsExactlyTheKeysWithThePrefix(@ForAll("bytes") byte[] prefix, @ForAll("bytes") byte[] other) {
    byte[] end = OrderedBytes.prefixEnd(prefix);
    boolean allOnes = true;
    for (byte x : prefix) {
      allOnes &= x == (byte) 0xFF;
    }
    if (allOnes) {
      // No bound exists: every key at or above an all-0xFF prefix starts with it.
      assertNull(end);
      assertEquals(startsWith(other, prefix), OrderedBytes.compare(other, prefix) >= 0, hex(other) + " vs " + hex(prefix));
      return;
    }
    boolean inRange = OrderedBytes.compare(prefix, other) <= 0 && OrderedBytes.compare(other, end) < 0;
    assertEquals(startsWith(other, prefix), inRange, "other=" + hex(other) + " prefix=" + hex(prefix) + " end=" + hex(end));
    assertFalse(startsWith(end, prefix));
  }

  @Property(seed = "42")
  void keysExtendingThePrefixSortBelowPrefixEnd(@ForAll("bytes") byte[] prefix, @ForAll("bytes") byte[] suffix) {
    byte[] end = OrderedBytes.prefixEnd(prefix);
    if (end != null) {
      assertTrue(OrderedBytes.compare(concat(prefix, suffix), end) < 0);
    }
  }

  /** successor(k) is the least key greater than k: nothing fits between them. */
  @Property(seed = "42", tries = 3000)
  void successorIsTheLeastGreaterKey(@ForAll("bytes") byte[] key, @ForAll("bytes") byte[] other) {
    byte[] next = OrderedBytes.successor(key);
    assertTrue(OrderedBytes.compare(key, next) < 0);
    if (OrderedBytes.compare(other, key) > 0) {
      assertTrue(OrderedBytes.compare(other, next) >= 0, "other=" + hex(other) + " key=" + hex(key));
    }
  }

  @Provide
  Arbitrary<Integer> priorities() {
    return Generators.priorities();
  }

  @Provide
  Arbitrary<Long> longs() {
    return Generators.longs();
  }

  @Provide
  Arbitrary<byte[]> bytes() {
    return Generators.bytes();
  }

  private static byte[] encodeInt(int v) {
    ByteBuffer buf = ByteBuffer.allocate(4);
    OrderedBytes.putInt(buf, v);
    return buf.array();
  }

  private static byte[] encodeLong(long v) {
    ByteBuffer buf = ByteBuffer.allocate(8);
    OrderedBytes.putLong(buf, v);
    return buf.array();
  }

  static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x & 0xFF));
    }
    return s.toString();
  }
}
