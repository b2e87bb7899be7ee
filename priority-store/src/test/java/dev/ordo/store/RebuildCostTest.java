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
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A takeover's rebuild of the item table with its index in one pass (decisions D67) against the item
 * table's rebuild followed by the index in steps: both leave the same index. With
 * {@code -Dordo.rebuild.bench.items=N} (and {@code .rounds}) it also times both on one thread, alternated,
 * and prints the CPU per item of each: a takeover's cost without the noise of a whole failover.
 */
class RebuildCostTest {
  private static final String NS = "ns";
  private static final int ITEMS = Integer.getInteger("ordo.rebuild.bench.items", 3_000);
  private static final int ROUNDS = Integer.getInteger("ordo.rebuild.bench.rounds", 1);

  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // before the test's first builder copies a record (run alone)
  }

  @Test
  void theIndexBuiltAlongWithTheTableIsTheIndexTheStepsBuild() {
    TreeMap<Long, StoredItem> topic = new TreeMap<>();
    try (RocksKv state = RocksKv.open("state"); RocksKv items = RocksKv.open("items"); RocksKv index = RocksKv.open("index")) {
      PriorityStore first = new PriorityStore(state.kv, items.kv, index.kv, PriorityStore.DEFAULT_DECODED_BYTES);
      first.holdItemWrites();
      first.open(ItemSource.NONE);
      first.startGeneration();
      for (long o = 0; o < ITEMS; o++) {
        StoredItem item = o % 50 == 7 ? stored(NS, "t" + o % 3, 0, ItemState.DELAYED, 1_000 + o, null, null, new byte[200])
            : o % 50 == 8 ? leased(ready(NS, "t" + o % 3, 1, o), 9_000 + o)
            : stored(NS, "t" + o % 3, (int) (o % 10), ItemState.READY, o, null, null, new byte[200]);
        assertTrue(first.firstSighting(o));
        topic.put(o, item);
        first.transition(o, null, item);
      }
      first.markChanges();
      first.flushItemWrites(); // committed; no orderly close: the next opens rebuild
      ItemSource source = (from, to, wanted, sink) -> {
        for (var e : topic.subMap(from, true, to, true).entrySet()) {
          if (wanted.test(e.getKey())) {
            sink.accept(e.getKey(), OrdoSerdes.ITEM.encode(e.getValue().getItem()));
          }
        }
      };
      ThreadMXBean mx = ManagementFactory.getThreadMXBean();
      long[][] cpu = new long[2][ROUNDS];
      String[] indexes = new String[2];
      for (int round = 0; round < ROUNDS; round++) {
        for (int side : round % 2 == 0 ? new int[] {0, 1} : new int[] {1, 0}) {
          try (RocksKv table = RocksKv.open("items-" + side); RocksKv idx = RocksKv.open("index-" + side)) {
            PriorityStore s = new PriorityStore(state.kv, table.kv, idx.kv, PriorityStore.DEFAULT_DECODED_BYTES);
            s.holdItemWrites();
            boolean along = side == 0;
            long t0 = mx.getCurrentThreadCpuTime();
            boolean whole = s.open(source, LegacyItemTable.NONE, () -> along);
            assertEquals(along, whole);
            while (s.rebuilding()) {
              s.rebuildStep(20_000);
            }
            cpu[side][round] = mx.getCurrentThreadCpuTime() - t0;
            assertFalse(s.rebuilding());
            indexes[side] = describe(s);
          }
        }
        assertEquals(indexes[1], indexes[0], "the index built along with the table is the one the steps build");
      }
      if (ROUNDS > 1) {
        System.out.printf("rebuild of %,d items, %d rounds alternated: along with the table %s µs/item, table then"
            + " steps %s µs/item (medians %.2f / %.2f)%n", ITEMS, ROUNDS, perItem(cpu[0]), perItem(cpu[1]),
            median(cpu[0]) / 1e3 / ITEMS, median(cpu[1]) / 1e3 / ITEMS);
      }
    }
  }

  /** What the index answers: every topic's counts, ready entries in order, oldest ready, and the due and lease timers. */
  private static String describe(PriorityStore s) {
    StringBuilder out = new StringBuilder();
    for (String t : List.of("t0", "t1", "t2")) {
      out.append(s.counts(NS, t)).append(s.readyHead(NS, t, ITEMS)).append(s.oldestReadyAt(NS, t));
    }
    out.append(s.dueTimers(TimerKind.DUE, Long.MAX_VALUE, ITEMS)).append(s.dueTimers(TimerKind.LEASE, Long.MAX_VALUE, ITEMS));
    return out.toString();
  }

  private static String perItem(long[] nanos) {
    List<String> out = new ArrayList<>();
    for (long n : nanos) {
      out.add(String.format("%.2f", n / 1e3 / ITEMS));
    }
    return String.join(", ", out);
  }

  private static double median(long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
  }
}
