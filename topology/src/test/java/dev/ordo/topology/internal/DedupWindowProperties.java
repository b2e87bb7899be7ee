package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The deduplication window against a model, over seeded random runs of intake and timer steps (the
 * clock only moves forward, windows of several namespaces differ): an ID is a duplicate exactly
 * while the model holds its open window, the window never holds more than its cap, its count is
 * the store's, and a window reopened on its store (a restart) answers as the one before.
 */
class DedupWindowProperties {
  /** One step: an item with an ID of a small set (so that IDs repeat), or a timer run; then time passes. */
  record Step(boolean timer, int id, int namespace, long advanceMs) {}

  private static final long[] WINDOWS = {50, 200, 1_000};

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(Arbitraries.integers().between(0, 5).map(n -> n == 0),
            Arbitraries.integers().between(0, 12), Arbitraries.integers().between(0, WINDOWS.length - 1),
            Arbitraries.longs().between(0, 120))
        .as(Step::new).list().ofMinSize(1).ofMaxSize(300);
  }

  private static KeyValueStore<Bytes, byte[]> store() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-dedup-properties");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props);
    KeyValueStore<Bytes, byte[]> kv = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(DedupWindow.STORE),
        Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
    kv.init(context.getStateStoreContext(), kv);
    return kv;
  }

  /** A model entry: the first item's offset and when its window ends. */
  record Held(long offset, long end) {}

  @Property(seed = "42")
  void duplicatesAreExactlyTheIdsWithAnOpenWindowAndTheCapHolds(@ForAll("steps") List<Step> steps,
      @ForAll @IntRange(min = 1, max = 20) int cap) {
    KeyValueStore<Bytes, byte[]> kv = store();
    DedupWindow window = new DedupWindow(kv, cap);
    Map<String, Held> model = new HashMap<>();
    long now = 1_000_000;
    long offset = 0;
    long evicted = 0;
    for (Step s : steps) {
      if (s.timer()) {
        window.expire(now, 3); // small steps: the window may lag behind the model
        long n = now;
        model.values().removeIf(h -> h.end() <= n);
      } else {
        String ns = "ns" + s.namespace();
        String id = "id" + s.id();
        String key = ns + "/" + id;
        DedupWindow.First first = window.first(ns, "t", null, id, now);
        Held held = model.get(key);
        boolean open = held != null && now < held.end();
        if (first != null) {
          assertTrue(open, "a duplicate only within a window the model holds: " + key);
          assertEquals(held.offset(), first.offset(), "the first item's offset");
        } else {
          evicted += window.remember(ns, "t", null, id, offset, now, WINDOWS[s.namespace()]);
          model.put(key, new Held(offset, now + WINDOWS[s.namespace()]));
          offset++;
        }
        if (open && first == null) {
          // Allowed only when the cap made the window forget it early.
          assertTrue(evicted > 0, "an open window forgotten without the cap: " + key);
        }
      }
      assertTrue(window.size() <= cap, "never over the cap: " + window.size());
      now += s.advanceMs();
    }
    if (evicted == 0) {
      // Without the cap, the model and the window agree on every ID still open.
      for (Map.Entry<String, Held> e : model.entrySet()) {
        String[] parts = e.getKey().split("/");
        boolean open = now < e.getValue().end();
        assertEquals(open, window.first(parts[0], "t", null, parts[1], now) != null, e.getKey());
      }
    }
    DedupWindow reopened = new DedupWindow(kv, cap);
    assertEquals(window.size(), reopened.size(), "the count is the store's");
    long entries = 0;
    try (var it = kv.all()) {
      while (it.hasNext()) {
        if (it.next().key.get()[0] == DedupKeySchema.ENTRY) {
          entries++;
        }
      }
    }
    assertEquals(window.size(), entries, "the count matches the entries held");
  }
}
