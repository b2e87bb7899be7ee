package dev.ordo.store;

import static dev.ordo.store.Items.leased;
import static dev.ordo.store.Items.ready;
import static dev.ordo.store.Items.stored;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
    assertEquals(0, reopened.openIndex());
    assertSame(store, reopened);
  }

  @Test
  void afterACrashTheIndexIsRebuiltFromTheItemTable() {
    // no closeIndex: the stream thread died
    PriorityStore reopened = new PriorityStore(items.kv, index.kv);
    assertEquals(152, reopened.openIndex());
    assertSame(store, reopened);
  }

  @Test
  void aMarkLeftByAnEarlierCloseDoesNotSurviveTheNextOpen() {
    store.closeIndex();
    PriorityStore second = new PriorityStore(items.kv, index.kv);
    assertEquals(0, second.openIndex());
    second.startGeneration();
    // second crashes without closing
    assertEquals(152, new PriorityStore(items.kv, index.kv).openIndex());
  }

  @Test
  void whenTheItemTableMovedOnElsewhereTheIndexIsRebuiltAndStaleEntriesAreGone() {
    store.closeIndex();
    // Another instance took the task: a new generation and changes the local index never saw.
    PriorityStore elsewhere = new PriorityStore(items.kv, fresh());
    elsewhere.openIndex();
    elsewhere.startGeneration();
    for (long o = 50; o < 100; o++) {
      StoredItem r = elsewhere.get(o);
      elsewhere.transition(o, r, null);
    }
    elsewhere.transition(700, null, ready(NS, "t", -9, 1));
    elsewhere.closeIndex();

    PriorityStore back = new PriorityStore(items.kv, index.kv);
    assertEquals(103, back.openIndex());
    assertEquals(List.of(new ReadyEntry(-9, 1, 700)), back.readyHead(NS, "t", 1));
    assertEquals(new TopicCounts(NS, "t", 101, 1, 0, 0), back.counts(NS, "t"));
    assertTrue(back.readyHead(NS, "t", 1_000).stream().allMatch(e -> e.offset() >= 100), "no entry of a removed item");
  }

  @Test
  void anItemTableThatLostItsLastChangesIsNotTrustedEvenAfterAnOrderlyLookingClose() {
    LossyKv lossy = new LossyKv(items.kv);
    PriorityStore s = new PriorityStore(lossy, index.kv);
    assertEquals(152, s.openIndex());
    s.startGeneration();
    lossy.losing = true; // the record cache's last contents never reach the item table
    s.transition(900, null, ready(NS, "t", -100, 1));
    s.closeIndex();
    lossy.losing = false;

    PriorityStore reopened = new PriorityStore(items.kv, index.kv);
    assertEquals(152, reopened.openIndex(), "rebuilt from the item table as it is");
    assertTrue(reopened.readyHead(NS, "t", 1_000).stream().noneMatch(e -> e.offset() == 900), "no entry of a lost item");
  }

  @Test
  void anIndexVouchedForOnceIsNotTrustedAgainAfterAnotherOpenWithoutClose() {
    store.closeIndex();
    PriorityStore second = new PriorityStore(items.kv, index.kv);
    assertEquals(0, second.openIndex());
    // second writes its index (say a count in memory, a timer in RocksDB) and crashes before
    // starting a generation or closing
    PriorityStore third = new PriorityStore(items.kv, index.kv);
    assertEquals(152, third.openIndex(), "the open took the vouch away");
  }

  private PriorityStore started() {
    PriorityStore s = new PriorityStore(items.kv, index.kv);
    s.openIndex();
    s.startGeneration();
    return s;
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
