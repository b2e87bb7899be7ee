package dev.ordo.store.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link SortedKeys} against a {@code TreeSet}: adds (mostly at the end, as a queue's keys come, and
 * anywhere), removals (mostly the first, and anywhere), removals of the last and clears, in runs long
 * enough that the circular array wraps and grows. After every step both hold the same keys in the
 * same order, and each call answers as the set's does.
 */
class SortedKeysProperties {
  @Property(seed = "7", tries = 400)
  void holdsWhatASortedSetHolds(@ForAll("ops") List<int[]> ops) {
    TreeSet<byte[]> expected = new TreeSet<>(OrderedBytes::compare);
    SortedKeys keys = new SortedKeys();
    int next = 1_000;
    for (int[] op : ops) {
      switch (op[0]) {
        case 0 -> { // at the end, as a queue's keys come
          byte[] k = key(next++);
          assertEquals(expected.add(k), keys.add(k));
        }
        case 1 -> { // anywhere, maybe held already
          byte[] k = key(op[1]);
          assertEquals(expected.add(k), keys.add(k));
        }
        case 2 -> { // the first, as a queue's head is taken
          if (!expected.isEmpty()) {
            byte[] k = expected.first().clone();
            assertEquals(expected.remove(k), keys.remove(k));
          }
        }
        case 3 -> { // anywhere, maybe not held
          byte[] k = key(op[1]);
          assertEquals(expected.remove(k), keys.remove(k));
        }
        case 4 -> {
          if (!expected.isEmpty()) {
            assertEquals(hex(expected.pollLast()), hex(keys.pollLast()));
          }
        }
        default -> {
          expected.clear();
          keys.clear();
        }
      }
      assertEquals(expected.size(), keys.size());
      List<String> held = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        held.add(hex(keys.get(i)));
      }
      assertEquals(expected.stream().map(SortedKeysProperties::hex).toList(), held);
    }
  }

  @Provide
  Arbitrary<List<int[]>> ops() {
    Arbitrary<int[]> op = Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(10, Arbitraries.just(0)),
            net.jqwik.api.Tuple.of(5, Arbitraries.just(1)),
            net.jqwik.api.Tuple.of(8, Arbitraries.just(2)),
            net.jqwik.api.Tuple.of(5, Arbitraries.just(3)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(4)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(5))).flatMap(kind ->
        Arbitraries.integers().between(0, 1_200).map(v -> new int[] {kind, v}));
    return op.list().ofMinSize(1).ofMaxSize(300);
  }

  /** Keys of different lengths with a shared prefix, as the store's are. */
  private static byte[] key(int v) {
    return v % 7 == 0 ? new byte[] {0x24, 'g', 0, (byte) (v >>> 8), (byte) v, 1}
        : new byte[] {0x24, 'g', 0, (byte) (v >>> 8), (byte) v};
  }

  private static String hex(byte[] k) {
    return HexFormat.of().formatHex(k);
  }
}
