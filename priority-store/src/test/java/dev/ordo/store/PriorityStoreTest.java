package dev.ordo.store;

import static dev.ordo.store.Items.leased;
import static dev.ordo.store.Items.ready;
import static dev.ordo.store.Items.stored;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store's behaviour on a real Kafka Streams RocksDB store. */
class PriorityStoreTest {
  private static final String NS = "ns";
  private RocksKv rocks;
  private PriorityStore store;

  @BeforeEach
  void open() {
    rocks = RocksKv.open("behaviour");
    store = new PriorityStore(rocks.kv);
    IndexRebuildTest.rebuilt(store);
    store.startGeneration();
  }

  @AfterEach
  void close() {
    if (rocks != null) {
      rocks.close();
    }
  }

  /** The ready index holds a group's first ready item only; the group's queue holds them all in order. */
  @Test
  void aGroupShowsItsFirstItemInTheReadyIndexAndAllInItsQueue() {
    put(1, grouped(ready(NS, "t", 0, 100), "g", 5));
    put(2, grouped(ready(NS, "t", 0, 100), "g", 3)); // a smaller slot: the group's new first
    put(3, grouped(ready(NS, "t", 0, 100), "h", 4));
    put(4, ready(NS, "t", 0, 100));
    assertEquals(List.of(new ReadyEntry(0, false, 0, 100, 4), new ReadyEntry(0, false, 3, 100, 2),
        new ReadyEntry(0, false, 4, 100, 3)), store.readyHead(NS, "t", 10));
    assertEquals(List.of(new ReadyEntry(0, false, 3, 100, 2), new ReadyEntry(0, false, 5, 100, 1)),
        store.groupHead(NS, "t", 0, "g", 10));
    store.transition(2, store.get(2), leased(store.get(2), 1_000));
    assertEquals(List.of(new ReadyEntry(0, false, 0, 100, 4), new ReadyEntry(0, false, 4, 100, 3),
        new ReadyEntry(0, false, 5, 100, 1)), store.readyHead(NS, "t", 10), "the next of g comes in");
    assertEquals(1, store.groupLeased(NS, "g"));
  }

  /**
   * An ordered group (decisions D60): its items in every state are in its order index by offset,
   * whatever their priorities; only the oldest, while READY, is in the ready index; a leased or delayed
   * head holds the group; its removal lets the next in; an item without a group key is not held.
   */
  @Test
  void anOrderedGroupShowsOnlyItsOldestItemWhenReady() {
    put(1, ordered(ready(NS, "t", 5, 100), "g", 0));
    put(2, ordered(ready(NS, "t", 0, 100), "g", 1)); // a better priority: still behind offset 1
    put(3, ordered(ready(NS, "t", 0, 100), "h", 0));
    put(4, ordered(ready(NS, "t", 0, 100), null, 0)); // no group key: a group of its own
    assertEquals(List.of(new ReadyEntry(0, false, 0, 100, 3), new ReadyEntry(0, false, 0, 100, 4),
        new ReadyEntry(5, false, 0, 100, 1)), store.readyHead(NS, "t", 10));
    assertEquals(1L, store.orderedHead(NS, "t", "g"));
    assertEquals(4, store.counts(NS, "t").ready(), "every ready item counts as ready");

    store.transition(1, store.get(1), leased(store.get(1), 1_000));
    assertEquals(List.of(3L, 4L), offsets(store.readyHead(NS, "t", 10)), "a leased head holds its group");
    assertEquals(1L, store.orderedHead(NS, "t", "g"));

    StoredItem delayed = StoredItem.newBuilder(store.get(1)).setState(ItemState.DELAYED).setReadyAt(500)
        .setLeaseExpiresAt(null).build();
    store.transition(1, store.get(1), delayed);
    assertEquals(List.of(3L, 4L), offsets(store.readyHead(NS, "t", 10)), "a delayed head holds its group");
    store.transition(1, delayed, StoredItem.newBuilder(delayed).setState(ItemState.READY).build());
    assertEquals(List.of(3L, 4L, 1L), offsets(store.readyHead(NS, "t", 10)), "due again: the head is back");

    store.transition(1, store.get(1), null);
    assertEquals(List.of(3L, 4L, 2L), offsets(store.readyHead(NS, "t", 10)), "gone: the next one goes (slot 1)");
    assertEquals(2L, store.orderedHead(NS, "t", "g"));
    store.transition(2, store.get(2), null);
    assertNull(store.orderedHead(NS, "t", "g"));

    put(9, ordered(ready(NS, "t", 0, 100), "h", 0));
    store.markChanges();
    store.closeIndex();
    store = new PriorityStore(rocks.kv);
    IndexRebuildTest.rebuilt(store);
    assertEquals(List.of(3L, 4L), offsets(store.readyHead(NS, "t", 10)), "the same after a reopening");
    assertEquals(3L, store.orderedHead(NS, "t", "h"));
    store.startGeneration();
    remove(3);
    store.markChanges();
    store = new PriorityStore(rocks.kv); // no orderly close: the index is rebuilt, in offset order
    IndexRebuildTest.rebuilt(store);
    assertEquals(List.of(4L, 9L), offsets(store.readyHead(NS, "t", 10)), "h's next after a rebuild");
  }

  private static StoredItem ordered(StoredItem s, String group, long slot) {
    s.getItem().setGroupKey(group);
    s.setSlot(slot);
    s.setFlat(true);
    s.setOrdered(true);
    return s;
  }

  private static List<Long> offsets(List<ReadyEntry> entries) {
    return entries.stream().map(ReadyEntry::offset).toList();
  }

  private static StoredItem grouped(StoredItem s, String group, long slot) {
    s.getItem().setGroupKey(group);
    s.setSlot(slot);
    return s;
  }

  @Test
  void readyItemsComeOutLowestPriorityFirstThenOldestThenInEnqueueOrder() {
    put(1, ready(NS, "t", 0, 100));
    put(2, ready(NS, "t", Integer.MAX_VALUE, 1));
    put(3, ready(NS, "t", -5, 200));
    put(4, ready(NS, "t", Integer.MIN_VALUE, 300));
    put(5, ready(NS, "t", 0, 50));
    put(6, ready(NS, "t", 0, 100));
    put(7, ready(NS, "t", -1, -10));

    assertEquals(List.of(
            new ReadyEntry(Integer.MIN_VALUE, 300, 4),
            new ReadyEntry(-5, 200, 3),
            new ReadyEntry(-1, -10, 7),
            new ReadyEntry(0, 50, 5),
            new ReadyEntry(0, 100, 1),
            new ReadyEntry(0, 100, 6),
            new ReadyEntry(Integer.MAX_VALUE, 1, 2)),
        store.readyHead(NS, "t", 100));
    assertEquals(offsets(4, 3), offsetsOf(store.readyHead(NS, "t", 2)));
    assertEquals(List.of(), store.readyHead(NS, "t", 0));
  }

  @Test
  void aTopicsHeadNeverShowsAnotherTopicWhoseNameItPrefixes() {
    put(1, ready(NS, "a", 5, 0));
    put(2, ready(NS, "ab", 1, 0));
    put(3, ready("nsx", "a", 0, 0));
    put(4, ready(NS, "a\u00e9", 0, 0));

    assertEquals(offsets(1), offsetsOf(store.readyHead(NS, "a", 10)));
    assertEquals(offsets(2), offsetsOf(store.readyHead(NS, "ab", 10)));
    assertEquals(offsets(3), offsetsOf(store.readyHead("nsx", "a", 10)));
    assertEquals(offsets(), offsetsOf(store.readyHead("n", "sa", 10)));
    assertEquals(List.of("a", "ab", "a\u00e9"), store.topics(NS).stream().map(TopicCounts::topic).toList());
    assertEquals(4, store.allTopics().size());
  }

  @Test
  void anItemInsertedAheadOfPoppedItemsIsDequeuedNext() {
    for (long o = 0; o < 500; o++) {
      put(o, ready(NS, "t", 10, o));
    }
    popAll(NS, "t", 400, 7);
    assertEquals(400, store.readyHead(NS, "t", 1).get(0).offset());

    // Below the cursor in every field: higher priority, older ready time, and a tie on both with a smaller offset.
    put(1000, ready(NS, "t", 9, 1000));
    assertEquals(1000, store.readyHead(NS, "t", 1).get(0).offset());
    put(1001, ready(NS, "t", 9, -5));
    put(5, ready(NS, "t", 9, -5));
    assertEquals(offsets(5, 1001, 1000, 400), offsetsOf(store.readyHead(NS, "t", 4)));
    assertEquals(-5L, store.oldestReadyAt(NS, "t"));
  }

  @Test
  void anEmptiedTopicShowsItemsEnqueuedAfterward() {
    put(1, ready(NS, "t", 0, 0));
    popAll(NS, "t", 1, 1);
    assertEquals(List.of(), store.readyHead(NS, "t", 10));
    assertNull(store.oldestReadyAt(NS, "t"));

    put(2, ready(NS, "t", Integer.MAX_VALUE, Long.MAX_VALUE));
    put(3, ready(NS, "t", Integer.MIN_VALUE, Long.MIN_VALUE));
    assertEquals(offsets(3, 2), offsetsOf(store.readyHead(NS, "t", 10)));
    assertEquals(Long.MIN_VALUE, store.oldestReadyAt(NS, "t"));
  }

  @Test
  void leasingTakesAnItemOutOfTheHeadAndArmsItsLeaseTimer() {
    StoredItem a = ready(NS, "t", 0, 10);
    put(1, a);
    put(2, ready(NS, "t", 1, 5));
    StoredItem leasedA = leased(a, 30_010);
    store.transition(1, a, leasedA);

    assertEquals(offsets(2), offsetsOf(store.readyHead(NS, "t", 10)));
    assertEquals(5L, store.oldestReadyAt(NS, "t"));
    assertEquals(List.of(), store.dueTimers(TimerKind.LEASE, 30_009, 10));
    assertEquals(List.of(new TimerEntry(TimerKind.LEASE, 30_010, 1)), store.dueTimers(TimerKind.LEASE, 30_010, 10));
    assertEquals(new TopicCounts(NS, "t", 1, 0, 1, 0, 0), store.counts(NS, "t"));

    // Extended: the timer moves out. Nacked: back in the head at its old place, no timer left.
    StoredItem extended = StoredItem.newBuilder(leasedA).setLeaseExpiresAt(60_000L).build();
    store.transition(1, leasedA, extended);
    assertEquals(List.of(), store.dueTimers(TimerKind.LEASE, 59_999, 10));
    StoredItem nacked = StoredItem.newBuilder(extended).setState(ItemState.READY).setLeaseExpiresAt(null).build();
    store.transition(1, extended, nacked);
    assertEquals(offsets(1, 2), offsetsOf(store.readyHead(NS, "t", 10)));
    assertEquals(List.of(), store.dueTimers(TimerKind.LEASE, Long.MAX_VALUE, 10));
    assertEquals(new TopicCounts(NS, "t", 2, 0, 0, 0, 0), store.counts(NS, "t"));
  }

  @Test
  void aDelayedItemWaitsInTheDueTimersUntilItIsReady() {
    StoredItem d = stored(NS, "t", 0, ItemState.DELAYED, 500, null, null, new byte[0]);
    put(1, d);
    assertEquals(List.of(), store.readyHead(NS, "t", 10));
    assertNull(store.oldestReadyAt(NS, "t"));
    assertEquals(List.of(), store.dueTimers(TimerKind.DUE, 499, 10));
    assertEquals(List.of(new TimerEntry(TimerKind.DUE, 500, 1)), store.dueTimers(TimerKind.DUE, 500, 10));
    assertEquals(new TopicCounts(NS, "t", 0, 1, 0, 0, 0), store.counts(NS, "t"));

    StoredItem r = StoredItem.newBuilder(d).setState(ItemState.READY).build();
    store.transition(1, d, r);
    assertEquals(offsets(1), offsetsOf(store.readyHead(NS, "t", 10)));
    assertEquals(List.of(), store.dueTimers(TimerKind.DUE, Long.MAX_VALUE, 10));
    assertEquals(new TopicCounts(NS, "t", 1, 0, 0, 0, 0), store.counts(NS, "t"));
  }

  @Test
  void dueTimersComeOutEarliestFirstAndOnlyOfTheirKind() {
    put(1, stored(NS, "t", 0, ItemState.DELAYED, 300, null, 250L, new byte[0]));
    put(2, stored(NS, "t", 0, ItemState.DELAYED, -100, null, null, new byte[0]));
    put(3, stored(NS, "t", 0, ItemState.LEASED, 0, 200L, null, new byte[0]));
    put(4, stored(NS, "t", 0, ItemState.DELAYED, 300, null, null, new byte[0]));
    put(5, stored(NS, "t", 0, ItemState.PARKED, 9_000, null, 100L, new byte[0]));

    assertEquals(List.of(new TimerEntry(TimerKind.DUE, -100, 2), new TimerEntry(TimerKind.DUE, 300, 1),
        new TimerEntry(TimerKind.DUE, 300, 4)), store.dueTimers(TimerKind.DUE, 1_000, 10));
    assertEquals(List.of(new TimerEntry(TimerKind.DUE, -100, 2)), store.dueTimers(TimerKind.DUE, 1_000, 1));
    assertEquals(List.of(new TimerEntry(TimerKind.LEASE, 200, 3)), store.dueTimers(TimerKind.LEASE, 1_000, 10));
    assertEquals(List.of(new TimerEntry(TimerKind.TTL, 100, 5), new TimerEntry(TimerKind.TTL, 250, 1)),
        store.dueTimers(TimerKind.TTL, 1_000, 10));
    assertEquals(new TopicCounts(NS, "t", 0, 3, 1, 1, 0), store.counts(NS, "t"));
  }

  @Test
  void theNextTimerDueIsKnownOnceEachKindWasScannedAndComesForwardWithEveryNewTimer() {
    assertEquals(Long.MIN_VALUE, store.nextTimerDue(), "the kinds in the index not scanned yet: unknown");
    for (TimerKind kind : TimerKind.values()) {
      store.dueTimers(kind, 0, 10);
    }
    assertEquals(Long.MAX_VALUE, store.nextTimerDue(), "scanned, and no timer at all");

    put(1, stored(NS, "t", 0, ItemState.DELAYED, 500, null, null, new byte[0]));
    assertEquals(500, store.nextTimerDue(), "a due time");
    put(2, stored(NS, "t", 0, ItemState.LEASED, 0, 300L, null, new byte[0]));
    assertEquals(300, store.nextTimerDue(), "a lease that runs out first");
    StoredItem withTtl = stored(NS, "t", 0, ItemState.DELAYED, 900, null, 100L, new byte[0]);
    put(3, withTtl);
    assertEquals(100, store.nextTimerDue(), "a time to live before both");

    assertEquals(List.of(new TimerEntry(TimerKind.TTL, 100, 3)), store.dueTimers(TimerKind.TTL, 200, 10));
    assertTrue(store.nextTimerDue() <= 200, "a scan that found a due timer leaves the kind due until one finds none");
    store.transition(3, withTtl, null);
    assertEquals(List.of(), store.dueTimers(TimerKind.TTL, 200, 10));
    assertEquals(300, store.nextTimerDue(), "the lease again, once the TTL scan found nothing");
  }

  @Test
  void aTimerDueBeforeAnEarlierScanIsStillFound() {
    put(1, stored(NS, "t", 0, ItemState.DELAYED, 100, null, null, new byte[0]));
    assertEquals(1, store.dueTimers(TimerKind.DUE, 100, 10).size());
    remove(1);
    assertEquals(List.of(), store.dueTimers(TimerKind.DUE, 1_000, 10));

    // Inserted later but due before what the last scan covered: behind the cursor, so it must move back.
    put(2, stored(NS, "t", 0, ItemState.DELAYED, 50, null, null, new byte[0]));
    assertEquals(List.of(new TimerEntry(TimerKind.DUE, 50, 2)), store.dueTimers(TimerKind.DUE, 1_000, 10));
  }

  @Test
  void askingForNoTimersHidesNone() {
    put(1, stored(NS, "t", 0, ItemState.DELAYED, 100, null, null, new byte[0]));
    assertEquals(List.of(), store.dueTimers(TimerKind.DUE, 1_000, 0));
    assertEquals(List.of(new TimerEntry(TimerKind.DUE, 100, 1)), store.dueTimers(TimerKind.DUE, 1_000, 10));
  }

  @Test
  void aTtlFollowsTheItemThroughEveryState() {
    StoredItem r = stored(NS, "t", 0, ItemState.READY, 0, null, 5_000L, new byte[0]);
    put(1, r);
    StoredItem l = leased(r, 30_000);
    store.transition(1, r, l);
    StoredItem d = StoredItem.newBuilder(l).setState(ItemState.DELAYED).setReadyAt(40_000).setLeaseExpiresAt(null).build();
    store.transition(1, l, d);
    assertEquals(List.of(new TimerEntry(TimerKind.TTL, 5_000, 1)), store.dueTimers(TimerKind.TTL, Long.MAX_VALUE, 10));

    remove(1);
    assertEquals(List.of(), store.dueTimers(TimerKind.TTL, Long.MAX_VALUE, 10));
    assertEquals(List.of(), store.dueTimers(TimerKind.DUE, Long.MAX_VALUE, 10));
    assertEquals(List.of(), store.dueTimers(TimerKind.LEASE, Long.MAX_VALUE, 10));
    assertNull(store.get(1));
  }

  @Test
  void changingThePriorityMovesTheItemInTheHead() {
    StoredItem low = ready(NS, "t", 10, 0);
    put(1, low);
    put(2, ready(NS, "t", 5, 0));
    assertEquals(offsets(2, 1), offsetsOf(store.readyHead(NS, "t", 10)));

    StoredItem high = ready(NS, "t", -10, 0);
    store.transition(1, low, high);
    assertEquals(offsets(1, 2), offsetsOf(store.readyHead(NS, "t", 10)));
    assertEquals(-10, store.get(1).getItem().getPriority());
    assertEquals(new TopicCounts(NS, "t", 2, 0, 0, 0, 0), store.counts(NS, "t"));
  }

  @Test
  void anEmptiedTopicDisappearsFromTheTopicList() {
    put(1, ready(NS, "t", 0, 0));
    put(2, ready(NS, "u", 0, 0));
    remove(1);
    assertEquals(List.of("u"), store.topics(NS).stream().map(TopicCounts::topic).toList());
    assertEquals(new TopicCounts(NS, "t", 0, 0, 0, 0, 0), store.counts(NS, "t"));
  }

  @Test
  void aFreshStoreOverTheSameStateSeesEverythingTheOldOneDid() {
    for (long o = 0; o < 300; o++) {
      put(o, ready(NS, "t", (int) (o % 3), o));
    }
    put(1_000, stored(NS, "t", 0, ItemState.DELAYED, 77, null, null, new byte[0]));
    popAll(NS, "t", 250, 10);
    List<ReadyEntry> head = store.readyHead(NS, "t", 100);

    store.markChanges();
    store.closeIndex();
    PriorityStore restarted = new PriorityStore(rocks.kv);
    assertTrue(restarted.openIndex(), "an orderly close leaves an index to trust");
    assertEquals(head, restarted.readyHead(NS, "t", 100));
    assertEquals(store.oldestReadyAt(NS, "t"), restarted.oldestReadyAt(NS, "t"));
    assertEquals(store.counts(NS, "t"), restarted.counts(NS, "t"));
    assertEquals(List.of(new TimerEntry(TimerKind.DUE, 77, 1_000)), restarted.dueTimers(TimerKind.DUE, 100, 10));
  }

  @Test
  void anOffsetIsTakenInOnceEvenAfterItsItemIsGoneAndAfterARestart() {
    assertTrue(store.firstSighting(10));
    put(10, ready(NS, "t", 0, 1));
    remove(10);
    assertFalse(store.firstSighting(10), "a replayed record of an acked item");
    assertFalse(store.firstSighting(3), "an older offset");
    assertTrue(store.firstSighting(11));
    PriorityStore crashed = new PriorityStore(rocks.kv);
    IndexRebuildTest.rebuilt(crashed);
    assertFalse(crashed.firstSighting(11), "the high-water mark is in the item table");
    assertTrue(crashed.firstSighting(12));
  }

  private void put(long offset, StoredItem item) {
    store.transition(offset, store.get(offset), item);
  }

  private void remove(long offset) {
    store.transition(offset, store.get(offset), null);
  }

  /** Dequeue and ack {@code n} items, {@code batch} at a time, as the topology does. */
  private void popAll(String ns, String topic, int n, int batch) {
    int popped = 0;
    while (popped < n) {
      List<ReadyEntry> head = store.readyHead(ns, topic, Math.min(batch, n - popped));
      assertTrue(!head.isEmpty());
      for (ReadyEntry e : head) {
        StoredItem r = store.get(e.offset());
        StoredItem l = leased(r, 1_000_000);
        store.transition(e.offset(), r, l);
        store.transition(e.offset(), l, null);
        popped++;
      }
    }
  }

  private static List<Long> offsets(long... offsets) {
    List<Long> out = new ArrayList<>();
    for (long o : offsets) {
      out.add(o);
    }
    return out;
  }

  private static List<Long> offsetsOf(List<ReadyEntry> entries) {
    return entries.stream().map(ReadyEntry::offset).toList();
  }
}
