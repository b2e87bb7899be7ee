package dev.ordo.store.internal;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

/**
 * Value generators for the key layout properties, biased toward the values that break layouts:
 * extremes, negatives, ties, multi-byte names and names that are prefixes of each other.
 */
final class Generators {
  private Generators() {}

  /**
   * Valid namespace and topic names ({@code dev.ordo.api.Names}): no '/', no control characters,
   * well-formed UTF-16. Half come from a small pool so that equal names and prefix pairs ("a",
   * "ab", "ab𝄞") meet often; the rest mix 1-, 2-, 3- and 4-byte UTF-8 code points.
   */
  static Arbitrary<String> names() {
    Arbitrary<String> pool = Arbitraries.of(
        "a", "ab", "abc", "b", "a b", "A", "é", "éa", "日本", "日本語", "𝄞", "ab𝄞", "\uFFFD", "\uE000", "\u00A0",
        "x.y-z_1", "\uFFFF");
    Arbitrary<Integer> codePoint = Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.integers().between(0x20, 0x7E)),
            Tuple.of(2, Arbitraries.integers().between(0xA0, 0x7FF)),
            Tuple.of(2, Arbitraries.integers().between(0x800, 0xFFFF)),
            Tuple.of(1, Arbitraries.integers().between(0x10000, Character.MAX_CODE_POINT)))
        .filter(Generators::allowedInName);
    Arbitrary<String> generated = codePoint.list().ofMinSize(1).ofMaxSize(12)
        .map(cps -> new String(cps.stream().mapToInt(Integer::intValue).toArray(), 0, cps.size()));
    return Arbitraries.frequencyOf(Tuple.of(1, pool), Tuple.of(1, generated));
  }

  static boolean allowedInName(int cp) {
    return cp != '/' && !Character.isISOControl(cp) && !(cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE);
  }

  /** The whole int32 range, with MIN, MAX, -1, 0, 1 and small values (ties) often. */
  static Arbitrary<Integer> priorities() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.of(Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, Integer.MAX_VALUE - 1, Integer.MAX_VALUE)),
        Tuple.of(1, Arbitraries.integers().between(-3, 3)),
        Tuple.of(2, Arbitraries.integers()));
  }

  /** The whole int64 range (times before 1970 and offsets alike), with extremes and ties often. */
  static Arbitrary<Long> longs() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE,
            (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE + 1, 1_700_000_000_000L)),
        Tuple.of(1, Arbitraries.longs().between(-3, 3)),
        Tuple.of(2, Arbitraries.longs()));
  }

  /** Short byte strings over an alphabet rich in 0x00, 0x7F, 0x80 and 0xFF, where carries and signs bite. */
  static Arbitrary<byte[]> bytes() {
    Arbitrary<Byte> b = Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of((byte) 0x00, (byte) 0x01, (byte) 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF)),
        Tuple.of(1, Arbitraries.bytes()));
    return b.array(byte[].class).ofMaxSize(6);
  }

  /** Code-point order, the order UTF-8 bytes have (String.compareTo is UTF-16 order, which differs). */
  static int compareCodePoints(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    return java.util.Arrays.compare(x, y);
  }
}
