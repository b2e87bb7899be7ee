package dev.ordo.store;

import static dev.ordo.store.Items.leased;
import static dev.ordo.store.Items.ready;
import static dev.ordo.store.Items.stored;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task that takes a partition over without a trusted item table (a crash, or a move to an instance
 * whose local stores are old) rebuilds the item table from the state log and the items topic, and the
 * index along with it (decisions D67): the index is whole when the store opens, no steps follow, and
 * nothing the local index store held from before stays in it.
 */
class TakeoverRebuildTest {
  private static final String NS = "ns";
  private final List<RocksKv> stores = new ArrayList<>();
  /** The items topic: what was enqueued at each offset. */
  private final TreeMap<Long, StoredItem> topic = new TreeMap<>();
  private final RocksKv state = kv("state");

  @AfterEach
  void close() {
    stores.forEach(RocksKv::close);
  }

  @Test
  void theIndexIsWholeWhenTheStoreOpensAndHoldsNothingOfAnEarlierOwner() {
    RocksKv items = kv("items");
    RocksKv index = kv("index");
    PriorityStore first = opened(items, index, ItemSource.NONE);
    for (long o = 0; o < 300; o++) {
      enqueue(first, o, ready(NS, "t", (int) (o % 4), o));
    }
    enqueue(first, 300, stored(NS, "t", 0, ItemState.DELAYED, 77, null, null, new byte[0]));
    enqueue(first, 301, leased(ready(NS, "u", 1, 5), 9_000));
    commit(first);
    first.closeIndex(); // an orderly close: this instance's index holds items 0..299 as READY

    // Another instance (nothing local) takes over, acks 0..149, commits, and dies.
    PriorityStore second = opened(kv("items2"), kv("index2"), source());
    for (long o = 0; o < 150; o++) {
      second.transition(o, second.get(o), null);
    }
    enqueue(second, 302, ready(NS, "t", -9, 302));
    commit(second);

    // The first instance gets the partition back: its item table and index are from before the acks.
    PriorityStore back = new PriorityStore(state.kv, items.kv, index.kv, PriorityStore.DEFAULT_DECODED_BYTES);
    back.holdItemWrites();
    assertTrue(back.open(source()), "the index can be used at once");
    assertFalse(back.rebuilding(), "no index steps after an item table rebuild");
    assertEquals(0, back.rebuildStep(1_000));
    assertEquals(153, back.lastItemTableRebuild().items(), "150..299 and 300..302");
    List<Long> readyOffsets = back.readyHead(NS, "t", 1_000).stream().map(ReadyEntry::offset).sorted().toList();
    List<Long> expected = new ArrayList<>(LongStream.range(150, 300).boxed().toList());
    expected.add(302L);
    assertEquals(expected, readyOffsets, "the live READY items, and none the old index held");
    assertEquals(new ReadyEntry(-9, 302, 302), back.readyHead(NS, "t", 1).get(0));
    assertEquals(new TopicCounts(NS, "t", 151, 1, 0, 0, 0), back.counts(NS, "t"));
    assertEquals(new TopicCounts(NS, "u", 0, 0, 1, 0, 0), back.counts(NS, "u"));
    assertEquals(List.of(new TimerEntry(TimerKind.DUE, 77, 300)), back.dueTimers(TimerKind.DUE, 100, 10));
    assertEquals(List.of(new TimerEntry(TimerKind.LEASE, 9_000, 301)), back.dueTimers(TimerKind.LEASE, 10_000, 10));
  }

  @Test
  void whatTheOpenHadNoTimeToIndexIsIndexedInSteps() {
    PriorityStore first = opened(kv("items"), kv("index"), ItemSource.NONE);
    for (long o = 0; o < 2_500; o++) {
      enqueue(first, o, ready(NS, "t", (int) (o % 7), o));
    }
    commit(first);
    // Another instance takes over; its open may index the first batch of the rebuilt table only.
    PriorityStore moved = new PriorityStore(state.kv, kv("items2").kv, kv("index2").kv, PriorityStore.DEFAULT_DECODED_BYTES);
    moved.holdItemWrites();
    int[] asked = {0};
    assertFalse(moved.open(source(), LegacyItemTable.NONE, () -> asked[0]++ == 0), "the rest is left to the steps");
    assertTrue(moved.rebuilding());
    assertEquals(2_500, moved.lastItemTableRebuild().items());
    moved.startGeneration();
    moved.transition(3, moved.get(3), null); // below the steps' cursor: indexed already, removed now
    moved.transition(2_000, moved.get(2_000), null); // above it: the steps read the table as it is then
    long stepped = 0;
    while (moved.rebuilding()) {
      stepped += moved.rebuildStep(500);
    }
    assertEquals(2_500 - 1_024 - 1, stepped, "the items past the first batch, but the one acked meanwhile");
    assertEquals(new TopicCounts(NS, "t", 2_498, 0, 0, 0, 0), moved.counts(NS, "t"));
    List<Long> ready = moved.readyHead(NS, "t", 3_000).stream().map(ReadyEntry::offset).sorted().toList();
    assertEquals(LongStream.range(0, 2_500).filter(o -> o != 3 && o != 2_000).boxed().toList(), ready);
  }

  private PriorityStore opened(RocksKv items, RocksKv index, ItemSource source) {
    PriorityStore s = new PriorityStore(state.kv, items.kv, index.kv, PriorityStore.DEFAULT_DECODED_BYTES);
    s.holdItemWrites();
    s.open(source);
    s.startGeneration();
    return s;
  }

  private void enqueue(PriorityStore s, long offset, StoredItem item) {
    assertTrue(s.firstSighting(offset));
    topic.put(offset, item);
    s.transition(offset, null, item);
  }

  private static void commit(PriorityStore s) {
    s.markChanges();
    s.flushItemWrites();
  }

  /** The items topic as a source: each wanted offset's item as it was enqueued. */
  private ItemSource source() {
    return (from, to, wanted, sink) -> {
      for (var e : topic.subMap(from, true, to, true).entrySet()) {
        if (wanted.test(e.getKey())) {
          sink.accept(e.getKey(), OrdoSerdes.ITEM.encode(e.getValue().getItem()));
        }
      }
    };
  }

  private RocksKv kv(String name) {
    RocksKv k = RocksKv.open(name);
    stores.add(k);
    return k;
  }
}
