package dev.ordo.store.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link HeadCache} against a sorted set standing for the store: random inserts, removals and reads
 * of one prefix with a small capacity, so loads past the frontier, dropping past the capacity and
 * reads bigger than the capacity all occur, and now and then the prefix is emptied and declared
 * empty ({@link HeadCache#empty}). Every read must give the set's first keys.
 */
class HeadCacheProperties {
  private static final byte[] PREFIX = {0x20, 'a', 0};

  @Property(seed = "42", tries = 300)
  void readsGiveTheStoresFirstKeys(@ForAll("ops") List<int[]> ops) {
    TreeSet<byte[]> store = new TreeSet<>(OrderedBytes::compare);
    HeadCache heads = new HeadCache(4);
    HeadCache.Loader loader = (from, max) -> {
      List<byte[]> out = new ArrayList<>();
      for (byte[] k : store.tailSet(from, true)) {
        if (out.size() == max) {
          break;
        }
        out.add(k);
      }
      return out;
    };
    for (int[] op : ops) {
      byte[] key = key(op[1]);
      switch (op[0]) {
        case 0 -> {
          if (store.add(key)) {
            heads.inserted(PREFIX, key);
          }
        }
        case 1 -> {
          if (store.remove(key)) {
            heads.removed(PREFIX, key);
          }
        }
        case 2 -> {
          // a pop: read the head, remove it
          List<byte[]> head = heads.first(PREFIX, 1, loader);
          assertEquals(keys(store, 1), hex(head));
          if (!head.isEmpty()) {
            store.remove(head.get(0));
            heads.removed(PREFIX, head.get(0));
          }
        }
        case 3 -> {
          // the caller knows the prefix is empty (the store's fair shares count nothing ready): drain, then say so
          for (byte[] k : new ArrayList<>(store)) {
            store.remove(k);
            heads.removed(PREFIX, k);
          }
          heads.empty(PREFIX);
        }
        default -> assertEquals(keys(store, op[1] % 12), hex(heads.first(PREFIX, op[1] % 12, loader)),
            "read of " + (op[1] % 12));
      }
    }
  }

  @Provide
  Arbitrary<List<int[]>> ops() {
    Arbitrary<int[]> op = Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(10, Arbitraries.integers().between(0, 2)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(3)),
            net.jqwik.api.Tuple.of(10, Arbitraries.just(4))).flatMap(kind ->
        Arbitraries.integers().between(0, 40).map(v -> new int[] {kind, v}));
    return op.list().ofMinSize(1).ofMaxSize(200);
  }

  private static byte[] key(int v) {
    return new byte[] {0x20, 'a', 0, 0, (byte) v};
  }

  private static List<String> keys(TreeSet<byte[]> store, int n) {
    List<byte[]> out = new ArrayList<>();
    for (byte[] k : store) {
      if (out.size() == n) {
        break;
      }
      out.add(k);
    }
    return hex(out);
  }

  private static List<String> hex(List<byte[]> keys) {
    return keys.stream().map(k -> java.util.HexFormat.of().formatHex(k)).toList();
  }
}
