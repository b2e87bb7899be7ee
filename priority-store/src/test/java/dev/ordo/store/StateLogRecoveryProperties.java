package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * The item table rebuilt from the state log and the items topic (decisions D54) against a model:
 * random enqueues, state changes (metadata too), deletes and commits, with crashes at any point
 * (the state store keeps what the last commit wrote; the item table and the index are kept as they
 * were, or lost as on another instance), crashes in the middle of a rebuild, and orderly restarts
 * (which must rebuild nothing). After each reopening the store holds exactly the model's items as of
 * the last commit, each item equal to the model's, with the index and counts to match.
 */
class StateLogRecoveryProperties {
  private final List<RocksKv> opened = new ArrayList<>();

  sealed interface Op permits Enqueue, Change, Delete, Commit, Crash, Restart, Cool {}

  /** Moves old items to the cold part: by span ({@code byAge} false) or by age. */
  record Cool(boolean byAge, int limit, int max) implements Op {}

  record Enqueue(int gap, ItemState state, int topic, int payloadBytes) implements Op {}

  record Change(int pick, ItemState state, boolean newMetadata) implements Op {}

  record Delete(int pick) implements Op {}

  record Commit() implements Op {}

  /** {@code loseLocal}: the item table and the index are gone (another instance); {@code failRebuild}: the first rebuild dies midway. */
  record Crash(boolean loseLocal, boolean failRebuild) implements Op {}

  record Restart() implements Op {}

  @Provide
  Arbitrary<List<Op>> sequences() {
    Arbitrary<ItemState> states = Arbitraries.of(ItemState.class);
    Arbitrary<Op> enqueue = Combinators.combine(Arbitraries.integers().between(1, 3), states,
        Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 40)).as(Enqueue::new);
    Arbitrary<Op> change = Combinators.combine(Arbitraries.integers().between(0, 1_000), states,
        Arbitraries.of(true, false)).as(Change::new);
    Arbitrary<Op> delete = Arbitraries.integers().between(0, 1_000).map(Delete::new);
    Arbitrary<Op> crash = Combinators.combine(Arbitraries.of(true, false), Arbitraries.of(true, false)).as(Crash::new);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(12, enqueue), net.jqwik.api.Tuple.of(8, change), net.jqwik.api.Tuple.of(6, delete),
        net.jqwik.api.Tuple.of(3, Arbitraries.just(new Commit())), net.jqwik.api.Tuple.of(1, crash),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(new Restart())),
        net.jqwik.api.Tuple.of(2, Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, 60),
            Arbitraries.integers().between(1, 20)).as(Cool::new)));
    return op.list().ofMinSize(1).ofMaxSize(400);
  }

  @AfterProperty
  void closeStores() {
    opened.forEach(RocksKv::close);
    opened.clear();
  }

  private RocksKv kv(String name) {
    RocksKv k = RocksKv.open(name);
    opened.add(k);
    return k;
  }

  /** The items topic: the records appended, by offset (gaps are offsets without an item: transaction markers). */
  private final TreeMap<Long, byte[]> topic = new TreeMap<>();

  /** An item source over {@link #topic}; dies after {@code failAfter} items handed over (-1: never). */
  private ItemSource source(int failAfter) {
    return (from, to, wanted, sink) -> {
      int handed = 0;
      for (Map.Entry<Long, byte[]> e : topic.subMap(from, true, to, true).entrySet()) {
        if (wanted.test(e.getKey())) {
          if (handed++ == failAfter) {
            throw new IllegalStateException("the rebuild's reader died");
          }
          sink.accept(e.getKey(), e.getValue());
        }
      }
    };
  }

  @Property(seed = "53", tries = 120)
  void theRebuiltTableIsTheLastCommitsState(@ForAll("sequences") List<Op> ops) {
    topic.clear();
    RocksKv state = kv("state");
    RocksKv items = kv("items");
    RocksKv index = kv("index");
    PriorityStore store = open(state, items, index, ItemSource.NONE);
    TreeMap<Long, StoredItem> model = new TreeMap<>();
    TreeMap<Long, StoredItem> committed = new TreeMap<>();
    long next = 0;
    long coldCommitted = 0;
    for (Op op : ops) {
      if (op instanceof Enqueue e) {
          next += e.gap() - 1;
          long offset = next++;
          StoredItem s = Items.stored("ns", "t" + e.topic(), offset % 3 == 0 ? 1 : 0, e.state(), offset,
              offset + 30_000, offset % 4 == 0 ? offset + 100 : null, payload(offset, e.payloadBytes()));
          topic.put(offset, OrdoSerdes.ITEM.encode(s.getItem()));
          assertTrue(store.firstSighting(offset));
          store.transition(offset, null, s);
          model.put(offset, s);
      } else if (op instanceof Change c) {
          if (model.isEmpty()) {
            continue;
          }
          long offset = pick(model, c.pick());
          StoredItem before = model.get(offset);
          Item item = before.getItem();
          if (c.newMetadata()) {
            item = Item.newBuilder(item).setMetadata(ByteBuffer.wrap(("m" + offset + "-" + before.getAttempts())
                .getBytes(StandardCharsets.UTF_8))).build();
          }
          StoredItem after = StoredItem.newBuilder(before).setItem(item).setState(c.state())
              .setAttempts(before.getAttempts() + 1).setReadyAt(before.getReadyAt() + 7)
              .setLeaseId(c.state() == ItemState.LEASED ? "l" + offset : null)
              .setLeaseExpiresAt(c.state() == ItemState.LEASED ? (Long) (offset + 60_000) : null)
              .setLeasedAt(c.state() == ItemState.LEASED ? (Long) offset : null)
              .build();
          store.transition(offset, before, after);
          model.put(offset, after);
      } else if (op instanceof Delete d) {
          if (model.isEmpty()) {
            continue;
          }
          long offset = pick(model, d.pick());
          store.transition(offset, model.remove(offset), null);
      } else if (op instanceof Cool c) {
          long before = store.coldBelow();
          if (c.byAge()) {
            store.coolDown(next, c.limit(), Long.MAX_VALUE / 4, c.max());
          } else {
            store.coolDown(Long.MIN_VALUE / 4, Long.MAX_VALUE / 4, c.limit(), c.max());
          }
          assertTrue(store.coldBelow() >= before, "the cold watermark never goes down");
      } else if (op instanceof Commit) {
          store.markChanges();
          store.flushItemWrites();
          committed = new TreeMap<>(model);
          coldCommitted = store.coldBelow();
          // The items topic's retention may now delete every record below the committed watermark.
          topic.headMap(coldCommitted).clear();
      } else if (op instanceof Crash c) {
          // The stream thread dies: nothing more is written; the state store holds the last commit.
          if (c.loseLocal()) {
            items = kv("items");
            index = kv("index");
          }
          int warm = committed.tailMap(coldCommitted).size();
          if (c.failRebuild() && warm > 0) {
            final RocksKv i = items;
            final RocksKv x = index;
            final ItemSource dying = source(warm / 2);
            assertThrows(IllegalStateException.class, () -> open(state, i, x, dying));
          }
          store = open(state, items, index, source(-1));
          model = new TreeMap<>(committed);
          check(store, model, next);
          assertEquals(coldCommitted, store.coldBelow(), "the committed cold watermark");
          assertEquals(0, store.lastItemTableRebuild() == null ? 0 : store.lastItemTableRebuild().lost(),
              "no item lost, though the records below the cold watermark are gone");
      } else if (op instanceof Restart) {
          store.markChanges();
          store.flushItemWrites();
          store.closeIndex();
          committed = new TreeMap<>(model);
          coldCommitted = store.coldBelow();
          topic.headMap(coldCommitted).clear();
          store = open(state, items, index, ItemSource.NONE); // an orderly restart reads nothing back
          assertNull(store.lastItemTableRebuild(), "an orderly restart rebuilt the item table");
          check(store, model, next);
      }
    }
  }

  private static PriorityStore open(RocksKv state, RocksKv items, RocksKv index, ItemSource source) {
    PriorityStore store = new PriorityStore(state.kv, items.kv, index.kv, PriorityStore.DEFAULT_DECODED_BYTES);
    store.holdItemWrites();
    if (!store.open(source)) {
      while (store.rebuilding()) {
        store.rebuildStep(1_000);
      }
    }
    store.startGeneration();
    return store;
  }

  private static void check(PriorityStore store, TreeMap<Long, StoredItem> model, long next) {
    for (long offset = 0; offset < next; offset++) {
      StoredItem expected = model.get(offset);
      StoredItem actual = store.get(offset);
      if (expected == null) {
        assertNull(actual, "offset " + offset + " is not live but the store has it");
      } else {
        assertNotNull(actual, "offset " + offset + " is live but the store lost it");
        assertArrayEquals(OrdoSerdes.STORED_ITEM.encode(expected), OrdoSerdes.STORED_ITEM.encode(actual),
            "offset " + offset + ": " + actual + " instead of " + expected);
      }
    }
    long[] byState = new long[5];
    model.values().forEach(s -> byState[stateIndex(s.getState())]++);
    long[] counted = new long[5];
    for (TopicCounts t : store.allTopics()) {
      counted[0] += t.ready();
      counted[1] += t.delayed();
      counted[2] += t.leased();
      counted[3] += t.parked();
      counted[4] += t.overflow();
    }
    assertArrayEquals(byState, counted, "the counts by state");
    long readyInIndex = 0;
    for (TopicCounts t : store.allTopics()) {
      readyInIndex += store.peek(t.namespace(), t.topic(), 10_000).size();
    }
    assertEquals(byState[0], readyInIndex, "READY items in the ready index");
    assertFalse(store.rebuilding());
  }

  private static int stateIndex(ItemState s) {
    return switch (s) {
      case READY -> 0;
      case DELAYED -> 1;
      case LEASED -> 2;
      case PARKED -> 3;
      case OVERFLOW -> 4;
    };
  }

  private static long pick(TreeMap<Long, StoredItem> model, int pick) {
    int i = pick % model.size();
    for (long offset : model.keySet()) {
      if (i-- == 0) {
        return offset;
      }
    }
    throw new AssertionError();
  }

  private static byte[] payload(long offset, int extra) {
    byte[] p = new byte[8 + extra];
    ByteBuffer.wrap(p).putLong(offset);
    return p;
  }
}
