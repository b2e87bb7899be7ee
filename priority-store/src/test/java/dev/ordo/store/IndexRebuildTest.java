package dev.ordo.store;

import static dev.ordo.store.Items.leased;
import static dev.ordo.store.Items.ready;
import static dev.ordo.store.Items.stored;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The index store is derived from the item table and not changelogged: it is trusted after an
 * orderly close at the item table's generation, and rebuilt from the item table otherwise.
 */
class IndexRebuildTest {
  private static final String NS = "ns";
  private RocksKv items;
  private RocksKv index;
  private RocksKv other;
  private PriorityStore store;

  @BeforeEach
  void open() {
    items = RocksKv.open("items");
    index = RocksKv.open("index");
    store = started();
    for (long o = 0; o < 200; o++) {
      put(o, ready(NS, "t", (int) (o % 4), o));
    }
    put(500, stored(NS, "t", 0, ItemState.DELAYED, 77, null, null, new byte[0]));
    put(501, leased(ready(NS, "u", 1, 5), 9_000));
    for (long o = 0; o < 50; o++) {
      StoredItem r = store.get(o);
      store.transition(o, r, null);
    }
    store.markChanges(); // as the processor does after each record
  }

  @AfterEach
  void close() {
    items.close();
    index.close();
    if (other != null) {
      other.close();
    }
  }

  @Test
  void afterAnOrderlyCloseTheIndexIsTrustedAsItIs() {
    store.closeIndex();
    PriorityStore reopened = new PriorityStore(items.kv, index.kv);
    assertTrue(reopened.openIndex());
    assertSame(store, reopened);
  }

  @Test
  void afterACrashTheIndexIsRebuiltFromTheItemTable() {
    // no closeIndex: the stream thread died
    PriorityStore reopened = new PriorityStore(items.kv, index.kv);
    assertEquals(152, rebuilt(reopened));
    assertSame(store, reopened);
  }

  @Test
  void aMarkLeftByAnEarlierCloseDoesNotSurviveTheNextOpen() {
    store.closeIndex();
    PriorityStore second = new PriorityStore(items.kv, index.kv);
    assertTrue(second.openIndex());
    second.startGeneration();
    // second crashes without closing
    assertEquals(152, rebuilt(new PriorityStore(items.kv, index.kv)));
  }

  @Test
  void whenTheItemTableMovedOnElsewhereTheIndexIsRebuiltAndStaleEntriesAreGone() {
    store.closeIndex();
    // Another instance took the task: a new generation and changes the local index never saw.
    PriorityStore elsewhere = new PriorityStore(items.kv, fresh());
    rebuilt(elsewhere);
    elsewhere.startGeneration();
    for (long o = 50; o < 100; o++) {
      StoredItem r = elsewhere.get(o);
      elsewhere.transition(o, r, null);
    }
    elsewhere.transition(700, null, ready(NS, "t", -9, 1));
    elsewhere.markChanges();
    elsewhere.closeIndex();

    PriorityStore back = new PriorityStore(items.kv, index.kv);
    assertEquals(103, rebuilt(back));
    assertEquals(List.of(new ReadyEntry(-9, 1, 700)), back.readyHead(NS, "t", 1));
    assertEquals(new TopicCounts(NS, "t", 101, 1, 0, 0, 0), back.counts(NS, "t"));
    assertTrue(back.readyHead(NS, "t", 1_000).stream().allMatch(e -> e.offset() >= 100), "no entry of a removed item");
  }

  @Test
  void anItemTableThatLostItsLastChangesIsNotTrustedEvenAfterAnOrderlyLookingClose() {
    LossyKv lossy = new LossyKv(items.kv);
    PriorityStore s = new PriorityStore(lossy, index.kv);
    assertEquals(152, rebuilt(s));
    s.startGeneration();
    lossy.losing = true; // the item writes of a task closed dirty never reach the item table
    s.transition(900, null, ready(NS, "t", -100, 1));
    s.markChanges(); // lost too
    s.closeIndex();
    lossy.losing = false;

    PriorityStore reopened = new PriorityStore(items.kv, index.kv);
    assertEquals(152, rebuilt(reopened), "rebuilt from the item table as it is");
    assertTrue(reopened.readyHead(NS, "t", 1_000).stream().noneMatch(e -> e.offset() == 900), "no entry of a lost item");
  }

  @Test
  void aCloseAfterChangesNotMarkedInTheItemTableVouchesForNothing() {
    store.transition(900, null, ready(NS, "t", -100, 1));
    // no markChanges: the item table's count may not include the change
    store.closeIndex();
    PriorityStore reopened = new PriorityStore(items.kv, index.kv);
    assertEquals(153, rebuilt(reopened), "rebuilt, with the item the change wrote");
  }

  @Test
  void anIndexVouchedForOnceIsNotTrustedAgainAfterAnotherOpenWithoutClose() {
    store.closeIndex();
    PriorityStore second = new PriorityStore(items.kv, index.kv);
    assertTrue(second.openIndex());
    // second writes its index (say a count in memory, a timer in RocksDB) and crashes before
    // starting a generation or closing
    PriorityStore third = new PriorityStore(items.kv, index.kv);
    assertEquals(152, rebuilt(third), "the open took the vouch away");
  }

  private PriorityStore started() {
    PriorityStore s = new PriorityStore(items.kv, index.kv);
    rebuilt(s);
    s.startGeneration();
    return s;
  }

  @Test
  void changesMadeWhileTheIndexIsRebuiltEndInTheIndexOfTheFinalTable() {
    PriorityStore s = new PriorityStore(items.kv, index.kv);
    assertFalse(s.openIndex(), "no orderly close: a rebuild");
    s.startGeneration();
    int k = 0;
    while (s.rebuilding()) {
      s.rebuildStep(10);
      StoredItem low = s.get(50 + k);
      if (low != null && low.getState() == ItemState.READY) {
        s.transition(50 + k, low, leased(low, 10_000 + k)); // most likely indexed already
      }
      StoredItem high = s.get(199 - k);
      if (high != null) {
        s.transition(199 - k, high, null); // most likely not indexed yet
      }
      s.transition(2_000 + k, null, ready(NS, "t", -k, k)); // new, above every cursor
      k++;
    }
    assertTrue(k > 5, "the rebuild took several steps");

    PriorityStore reference = new PriorityStore(items.kv, fresh());
    rebuilt(reference);
    for (String topic : List.of("t", "u")) {
      assertEquals(reference.readyHead(NS, topic, 10_000), s.readyHead(NS, topic, 10_000), "ready items of " + topic);
      assertEquals(reference.oldestReadyAt(NS, topic), s.oldestReadyAt(NS, topic));
      assertEquals(reference.counts(NS, topic), s.counts(NS, topic));
    }
    for (TimerKind kind : TimerKind.values()) {
      assertEquals(reference.dueTimers(kind, Long.MAX_VALUE, 10_000), s.dueTimers(kind, Long.MAX_VALUE, 10_000),
          kind + " timers");
    }
  }

  /** Opens the store's index and completes its rebuild in small steps; how many items it indexed (-1: trusted). */
  static long rebuilt(PriorityStore s) {
    if (s.openIndex()) {
      return -1;
    }
    long n = 0;
    while (s.rebuilding()) {
      n += s.rebuildStep(7);
    }
    return n;
  }

  private org.apache.kafka.streams.state.KeyValueStore<Bytes, byte[]> fresh() {
    other = RocksKv.open("elsewhere");
    return other.kv;
  }

  private void put(long offset, StoredItem item) {
    store.transition(offset, store.get(offset), item);
  }

  /** Both stores answer every read alike. */
  private static void assertSame(PriorityStore expected, PriorityStore actual) {
    for (String topic : List.of("t", "u")) {
      assertEquals(expected.readyHead(NS, topic, 1_000), actual.readyHead(NS, topic, 1_000));
      assertEquals(expected.oldestReadyAt(NS, topic), actual.oldestReadyAt(NS, topic));
      assertEquals(expected.counts(NS, topic), actual.counts(NS, topic));
    }
    assertEquals(expected.topics(NS), actual.topics(NS));
    assertEquals(List.of(new TimerEntry(TimerKind.DUE, 77, 500)), actual.dueTimers(TimerKind.DUE, 100, 10));
    assertEquals(List.of(new TimerEntry(TimerKind.LEASE, 9_000, 501)), actual.dueTimers(TimerKind.LEASE, 10_000, 10));
  }
}
