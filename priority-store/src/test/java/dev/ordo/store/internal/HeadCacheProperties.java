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
 * empty ({@link HeadCache#empty}), or emptied and given one key ({@link HeadCache#only}). Every read
 * must give the set's first keys, and the combined calls of a group's queue ({@link
 * HeadCache#firstThenInserted}, {@link HeadCache#removedFrom}) the set's first and next.
 */
class HeadCacheProperties {
  private static final byte[] PREFIX = {0x20, 'a', 0};

  @Property(seed = "42", tries = 300)
  void readsGiveTheStoresFirstKeys(@ForAll("ops") List<int[]> ops) {
    check(ops, new HeadCache(4));
  }

  /** The same with reads of the store one key at a time at least, so that the frontier is often near. */
  @Property(seed = "43", tries = 300)
  void readsGiveTheStoresFirstKeysLoadedOneAtATime(@ForAll("ops") List<int[]> ops) {
    check(ops, new HeadCache(4, 1));
  }

  private static void check(List<int[]> ops, HeadCache heads) {
    TreeSet<byte[]> store = new TreeSet<>(OrderedBytes::compare);
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
        case 5 -> {
          // a group's new item: the first before it, then it joins (written to the store after)
          if (!store.contains(key)) {
            assertEquals(keys(store, 1), hex(nullable(heads.firstThenInserted(PREFIX, key, loader))),
                "first before an insert");
            store.add(key);
          }
        }
        case 6 -> {
          // a group's item leaves, often its first: whether it was, and the next (deleted from the store after)
          if (op[1] % 2 == 0 && !store.isEmpty()) {
            key = store.first();
          }
          if (store.contains(key)) {
            boolean first = java.util.Arrays.equals(store.first(), key);
            byte[] next = store.higher(key);
            HeadCache.Removal r = heads.removedFrom(PREFIX, key, loader);
            assertEquals(first, r.wasFirst(), "was first");
            assertEquals(first ? hex(nullable(next)) : List.of(), hex(nullable(r.next())), "next after a removal");
            store.remove(key);
          }
        }
        case 7 -> {
          // the prefix emptied, then one key: the caller knows it is the only one
          for (byte[] k : new ArrayList<>(store)) {
            store.remove(k);
            heads.removed(PREFIX, k);
          }
          heads.only(PREFIX, key);
          store.add(key);
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
            net.jqwik.api.Tuple.of(10, Arbitraries.just(4)),
            net.jqwik.api.Tuple.of(8, Arbitraries.integers().between(5, 6)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(7))).flatMap(kind ->
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

  private static List<byte[]> nullable(byte[] key) {
    return key == null ? List.of() : List.of(key);
  }

  private static List<String> hex(List<byte[]> keys) {
    return keys.stream().map(k -> java.util.HexFormat.of().formatHex(k)).toList();
  }
}
