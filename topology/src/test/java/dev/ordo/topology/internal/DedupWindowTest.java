package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** A partition's deduplication window over its store: lookups, expiry in steps, the cap, and a reopening. */
class DedupWindowTest {
  private static final long T0 = 1_000_000;
  private final KeyValueStore<Bytes, byte[]> kv = store();

  private static KeyValueStore<Bytes, byte[]> store() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-dedup-window");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props);
    KeyValueStore<Bytes, byte[]> kv = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(DedupWindow.STORE),
        Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
    kv.init(context.getStateStoreContext(), kv);
    return kv;
  }

  private long entries() {
    long n = 0;
    try (var it = kv.all()) {
      while (it.hasNext()) {
        n++;
        it.next();
      }
    }
    return n;
  }

  @Test
  void anIdIsFoundUntilItsWindowEndsEvenBeforeTheTimerForgetsIt() {
    DedupWindow w = new DedupWindow(kv, 100);
    w.remember("ns", "t", null, "a", 7, T0, 1_000);
    assertEquals(new DedupWindow.First(7, T0 + 1_000), w.first("ns", "t", null, "a", T0 + 999));
    assertNull(w.first("ns", "t", null, "a", T0 + 1_000), "the window ended, whether forgotten or not");
    assertNull(w.first("ns", "t", "g", "a", T0), "another group");
    assertEquals(1, w.size());
  }

  @Test
  void expiryForgetsEndedWindowsInBoundedStepsAndNothingElse() {
    DedupWindow w = new DedupWindow(kv, 1_000);
    for (int i = 0; i < 10; i++) {
      w.remember("ns", "t", null, "id" + i, i, T0 + i, 100);
    }
    w.remember("ns", "t", null, "long", 10, T0, 10_000);
    assertEquals(4, w.expire(T0 + 200, 4));
    assertTrue(w.behind(), "the step ran out before the ended windows did");
    assertEquals(6, w.expire(T0 + 200, 100));
    assertFalse(w.behind());
    assertEquals(0, w.expire(T0 + 200, 100), "nothing more has ended");
    assertEquals(1, w.size());
    assertEquals(3, entries(), "the count, the long window's entry and its expiry key");
    assertEquals(10, w.first("ns", "t", null, "long", T0 + 5_000).offset());
  }

  @Test
  void rememberingAnIdWhoseWindowEndedReplacesItsEntry() {
    DedupWindow w = new DedupWindow(kv, 100);
    w.remember("ns", "t", null, "a", 1, T0, 100);
    w.remember("ns", "t", null, "a", 2, T0 + 500, 100);
    assertEquals(1, w.size());
    assertEquals(2, w.first("ns", "t", null, "a", T0 + 550).offset());
    assertEquals(0, w.expire(T0 + 300, 100), "the old expiry key went with the old entry");
    assertEquals(1, w.expire(T0 + 600, 100));
    assertEquals(1, entries(), "only the count is left");
  }

  @Test
  void atTheCapTheWindowsEndingFirstGoAndAShorterWindowLaterIsStillExpired() {
    DedupWindow w = new DedupWindow(kv, 2);
    assertEquals(0, w.remember("ns", "t", null, "a", 1, T0, 10_000));
    assertEquals(0, w.remember("ns", "t", null, "b", 2, T0 + 1, 10_000));
    assertEquals(1, w.remember("ns", "t", null, "c", 3, T0 + 2, 10_000));
    assertNull(w.first("ns", "t", null, "a", T0 + 3), "a ended first and was forgotten");
    assertEquals(2, w.size());
    // A namespace with a short window: its ID ends before the others and must still be found by expiry.
    w.expire(T0 + 3, 100);
    assertEquals(1, w.remember("other", "t", null, "s", 4, T0 + 3, 10));
    assertEquals(1, w.expire(T0 + 20, 100), "the short window is forgotten when it ends");
    assertNull(w.first("other", "t", null, "s", T0 + 4));
  }

  @Test
  void aWindowReopenedOnItsStoreKnowsItsIdsAndTheirCount() {
    DedupWindow w = new DedupWindow(kv, 100);
    w.remember("ns", "t", null, "a", 1, T0, 1_000);
    w.remember("ns", "t", null, "b", 2, T0, 1_000);
    DedupWindow reopened = new DedupWindow(kv, 100); // a restart: the state is the store's, nothing on the heap
    assertEquals(2, reopened.size());
    assertEquals(2, reopened.first("ns", "t", null, "b", T0 + 10).offset());
    assertEquals(2, reopened.expire(T0 + 1_000, 100));
    assertEquals(0, reopened.size());
  }
}
