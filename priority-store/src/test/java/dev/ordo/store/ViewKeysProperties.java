package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.AgeKeySchema;
import dev.ordo.store.internal.GroupQueueKeySchema;
import dev.ordo.store.internal.OrderKeySchema;
import dev.ordo.store.internal.OverflowKeySchema;
import dev.ordo.store.internal.ReadyKeySchema;
import dev.ordo.store.internal.TimerKeySchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.apache.kafka.common.utils.Bytes;

/**
 * The views' pure key functions (decisions D65): each {@code keysOf(offset, item)} gives the keys of
 * the layout table in docs/store.md ("Which entries an item has, by state"), each {@code sameKeys}
 * fast path is sound (it says "the same" only when {@code keysOf} agrees), and a random sequence of
 * transitions applied as key diffs (removals of keys only before, additions of keys only after, each
 * removal of a key the index holds and each addition of one it lacks, as {@code IndexWrites} requires)
 * leaves exactly the keys of the final items, indexed from nothing.
 */
class ViewKeysProperties {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // StoredItem.newBuilder(item) deep-copies through Avro
  }

  /** One view's pure functions, its keys as byte strings (timers encoded as the store keeps them). */
  private record View(String name, KeysOf keysOf, Same same) {}

  private interface KeysOf {
    byte[][] of(long offset, StoredItem item);
  }

  private interface Same {
    boolean test(StoredItem a, StoredItem b);
  }

  private static final List<View> VIEWS = List.of(
      new View("ready", ReadyView::keysOf, ReadyView::sameKeys),
      new View("age", AgeView::keysOf, AgeView::sameKeys),
      new View("overflow", OverflowView::keysOf, OverflowView::sameKeys),
      new View("order", OrderView::keysOf, ViewKeysProperties::sameOrderKeys),
      new View("timer", ViewKeysProperties::timerKeys, TimerView::sameKeys),
      new View("counts", ViewKeysProperties::countKeys, TopicCountsView::sameKeys));

  /** OrderView's fast path: neither ordered, or both of the same group (then its key is the same). */
  private static boolean sameOrderKeys(StoredItem a, StoredItem b) {
    boolean wasOrdered = OrderView.ordered(a);
    boolean isOrdered = OrderView.ordered(b);
    return !wasOrdered && !isOrdered || wasOrdered && isOrdered && KeyDiff.sameGroup(a, b);
  }

  private static byte[][] timerKeys(long offset, StoredItem item) {
    TimerEntry[] t = TimerView.keysOf(offset, item);
    byte[][] out = new byte[t.length][];
    for (int i = 0; i < t.length; i++) {
      out[i] = t[i] == null ? null : TimerKeySchema.key(t[i].kind().code, t[i].dueAt(), t[i].offset());
    }
    return out;
  }

  /** Where an item counts: its topic's counts key and its state (one count per item, not per offset). */
  private static byte[][] countKeys(long offset, StoredItem item) {
    if (item == null) {
      return new byte[1][];
    }
    byte[] key = dev.ordo.store.internal.CountsKeySchema.key(item.getItem().getNamespace(), item.getItem().getTopic());
    byte[] withState = Arrays.copyOf(key, key.length + 1);
    withState[key.length] = (byte) TopicCountsView.stateIndex(item.getState());
    return new byte[][] {withState};
  }

  @Property(seed = "65", tries = 2_000)
  void eachViewsKeysAreTheLayoutTables(@ForAll("items") StoredItem item, @ForAll("offsets") long offset) {
    String ns = item.getItem().getNamespace();
    String topic = item.getItem().getTopic();
    String group = item.getItem().getGroupKey();
    boolean ready = item.getState() == ItemState.READY;
    boolean ordered = item.getOrdered() && group != null;
    byte[][] r = ReadyView.keysOf(offset, item);
    boolean own = ready && !ordered && (group == null || item.getFlat());
    boolean queued = ready && !ordered && group != null && !item.getFlat();
    if (own) {
      byte[] expected = ReadyKeySchema.key(ReadyKeySchema.prefix(ns, topic), item.getItem().getPriority(),
          item.getSidelined(), item.getSlot(), item.getReadyAt(), offset);
      assertArrayEquals(expected, r[ReadyView.OWN]);
      assertEquals(offset, ReadyKeySchema.offset(r[ReadyView.OWN]));
    } else {
      assertNull(r[ReadyView.OWN]);
    }
    if (queued) {
      byte[] gk = r[ReadyView.QUEUED];
      byte[] gp = GroupQueueKeySchema.prefix(ns, topic, item.getItem().getPriority(), group);
      assertArrayEquals(gp, Arrays.copyOf(gk, gk.length - GroupQueueKeySchema.SUFFIX_SIZE));
      assertEquals(List.of(item.getSidelined(), item.getSlot(), item.getReadyAt(), offset), List.of(
          GroupQueueKeySchema.sidelined(gk), GroupQueueKeySchema.slot(gk), GroupQueueKeySchema.readyAt(gk),
          GroupQueueKeySchema.offset(gk)));
    } else {
      assertNull(r[ReadyView.QUEUED]);
    }
    byte[] ak = AgeView.keysOf(offset, item)[0];
    if (ready) {
      assertArrayEquals(AgeKeySchema.key(AgeKeySchema.prefix(ns, topic, item.getSidelined()), item.getReadyAt(), offset), ak);
    } else {
      assertNull(ak);
    }
    byte[] ok = OverflowView.keysOf(offset, item)[0];
    if (item.getState() == ItemState.OVERFLOW) {
      assertArrayEquals(OverflowKeySchema.key(OverflowKeySchema.prefix(ns), offset), ok);
    } else {
      assertNull(ok);
    }
    byte[] order = OrderView.keysOf(offset, item)[0];
    if (ordered) {
      assertArrayEquals(OrderKeySchema.key(OrderKeySchema.prefix(ns, topic, group), offset), order);
    } else {
      assertNull(order);
    }
    TimerEntry[] t = TimerView.keysOf(offset, item);
    TimerEntry state = switch (item.getState()) {
      case DELAYED -> new TimerEntry(TimerKind.DUE, item.getReadyAt(), offset);
      case LEASED -> new TimerEntry(TimerKind.LEASE, item.getLeaseExpiresAt(), offset);
      default -> null;
    };
    assertEquals(state, t[TimerView.STATE]);
    assertEquals(item.getExpiresAt() == null ? null : new TimerEntry(TimerKind.TTL, item.getExpiresAt(), offset),
        t[TimerView.TTL]);
  }

  @Property(seed = "66", tries = 3_000)
  void aFastPathSaysTheSameOnlyForTheSameKeys(@ForAll("pairs") StoredItem[] pair, @ForAll("offsets") long offset) {
    for (View v : VIEWS) {
      if (v.same().test(pair[0], pair[1])) {
        assertTrue(Arrays.deepEquals(v.keysOf().of(offset, pair[0]), v.keysOf().of(offset, pair[1])),
            v.name() + ": said the same of " + pair[0] + " and " + pair[1]);
      }
    }
  }

  @Property(seed = "67", tries = 500)
  void theDiffsOfASequenceLeaveTheKeysOfItsEnd(@ForAll("sequences") List<Tuple.Tuple2<Long, StoredItem>> steps) {
    Map<Long, StoredItem> items = new HashMap<>();
    Map<String, Set<Bytes>> index = new HashMap<>();
    Map<String, Map<Bytes, Integer>> counts = new HashMap<>();
    for (Tuple.Tuple2<Long, StoredItem> step : steps) {
      long offset = step.get1();
      StoredItem before = items.get(offset);
      StoredItem after = step.get2();
      for (View v : VIEWS) {
        apply(v, offset, before, after, index.computeIfAbsent(v.name(), k -> new HashSet<>()),
            counts.computeIfAbsent(v.name(), k -> new HashMap<>()));
      }
      if (after == null) {
        items.remove(offset);
      } else {
        items.put(offset, after);
      }
    }
    for (View v : VIEWS) {
      Map<Bytes, Integer> fromNothing = new HashMap<>();
      items.forEach((offset, item) -> {
        for (byte[] k : v.keysOf().of(offset, item)) {
          if (k != null) {
            fromNothing.merge(Bytes.wrap(k), 1, Integer::sum);
          }
        }
      });
      if (v.name().equals("counts")) {
        assertEquals(fromNothing, counts.getOrDefault(v.name(), Map.of()), v.name());
      } else {
        assertEquals(fromNothing.keySet(), index.getOrDefault(v.name(), Set.of()), v.name());
      }
    }
  }

  /**
   * What a view does with a change: nothing when its fast path says the keys are the same; else the
   * removals of the keys only before, then the additions of the keys only after. An index key is
   * removed only where held and added only where not; the counts are counted (many items per key).
   */
  private static void apply(View v, long offset, StoredItem before, StoredItem after, Set<Bytes> index,
      Map<Bytes, Integer> counts) {
    if (v.same().test(before, after)) {
      return;
    }
    byte[][] b = v.keysOf().of(offset, before);
    byte[][] a = v.keysOf().of(offset, after);
    boolean counted = v.name().equals("counts");
    for (int i = 0; i < b.length; i++) {
      if (KeyDiff.removed(b, a, i)) {
        if (counted) {
          counts.merge(Bytes.wrap(b[i]), -1, (x, y) -> x + y == 0 ? null : x + y);
        } else {
          assertTrue(index.remove(Bytes.wrap(b[i])), v.name() + ": removed a key the index lacks");
        }
      }
    }
    for (int i = 0; i < a.length; i++) {
      if (KeyDiff.added(b, a, i)) {
        if (counted) {
          counts.merge(Bytes.wrap(a[i]), 1, Integer::sum);
        } else {
          assertTrue(index.add(Bytes.wrap(a[i])), v.name() + ": added a key the index holds");
        }
      }
    }
  }

  @Provide
  Arbitrary<Long> offsets() {
    return Arbitraries.of(0L, 1L, 255L, Long.MAX_VALUE);
  }

  @Provide
  Arbitrary<StoredItem> items() {
    Arbitrary<String> names = Arbitraries.of("a", "ab", "b");
    Arbitrary<String> groups = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just((String) null)),
        Tuple.of(3, Arbitraries.of("g", "h")));
    Arbitrary<ItemState> states = Arbitraries.of(ItemState.class);
    Arbitrary<Long> times = Arbitraries.of(0L, 100L, 200L);
    Arbitrary<Long> ttls = Arbitraries.of(-1L, 500L, 600L);
    Arbitrary<Integer> priorities = Arbitraries.of(-1, 0, 1);
    Arbitrary<Boolean> flags = Arbitraries.of(false, true);
    return Combinators.combine(names, names, groups, states, times, ttls, priorities,
        Combinators.combine(flags, flags, flags, Arbitraries.of(0L, 1L, 2L), times).as(List::of))
        .as((ns, topic, group, state, readyAt, ttl, priority, more) -> {
          StoredItem s = Items.stored(ns, topic, priority, state, readyAt,
              state == ItemState.LEASED ? 30_000L + (Long) more.get(4) : null, ttl < 0 ? null : ttl, new byte[1]);
          s.getItem().setGroupKey(group);
          s.setSidelined((Boolean) more.get(0));
          s.setFlat((Boolean) more.get(1));
          s.setOrdered((Boolean) more.get(2));
          s.setSlot((Long) more.get(3));
          return s;
        });
  }

  /** Pairs close to each other (one field changed, or the same item), or far apart, or one of them none. */
  @Provide
  Arbitrary<StoredItem[]> pairs() {
    Arbitrary<StoredItem> maybe = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just((StoredItem) null)),
        Tuple.of(6, items()));
    return Combinators.combine(maybe, items(), Arbitraries.integers().between(0, 10)).as((a, b, field) -> {
      if (a == null || field == 10) {
        return new StoredItem[] {a, b};
      }
      StoredItem.Builder c = StoredItem.newBuilder(a);
      switch (field) {
        case 0 -> c.setState(b.getState()).setLeaseExpiresAt(b.getLeaseExpiresAt());
        case 1 -> c.setReadyAt(b.getReadyAt());
        case 2 -> c.setExpiresAt(b.getExpiresAt());
        case 3 -> c.setSidelined(b.getSidelined());
        case 4 -> c.setFlat(b.getFlat());
        case 5 -> c.setOrdered(b.getOrdered());
        case 6 -> c.setSlot(b.getSlot());
        case 7 -> c.setItem(b.getItem());
        case 8 -> c.getItemBuilder().setPriority(b.getItem().getPriority());
        default -> { }
      }
      return new StoredItem[] {a, c.build()};
    });
  }

  @Provide
  Arbitrary<List<Tuple.Tuple2<Long, StoredItem>>> sequences() {
    Arbitrary<StoredItem> maybe = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just((StoredItem) null)),
        Tuple.of(5, items()));
    return Combinators.combine(Arbitraries.longs().between(0, 5), maybe).as(Tuple::of).list().ofMaxSize(40)
        .map(ArrayList::new);
  }
}
