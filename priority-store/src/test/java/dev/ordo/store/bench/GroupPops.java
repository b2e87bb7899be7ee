package dev.ordo.store.bench;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.Items;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.RocksKv;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The store's own cost of group keys (issue 14's "throughput with group keys ≥ 0.9 of without"),
 * without Kafka: two RocksDB-backed {@link PriorityStore}s in one JVM, one whose items carry
 * {@code groups} group keys in turn (slots as the planner gives them with weight 1) and one whose
 * items carry none, each holding a backlog of {@code backlog} ready items, measured in alternating
 * slices (ABBA) of the thread's CPU time. A pop is what the topology does for an item: found by
 * {@code readyHead}, leased, acked, and a new item enqueued at the tail, so the backlog stays; item
 * writes are held and flushed every 2,000 items as Kafka Streams' commits do. Prints the CPU per
 * item of each and the median of the rounds' ratios (without keys over with: the keyed store's
 * relative speed). Run by {@code bench.sh groups [groups backlog rounds]}; docs/benchmarks.md at 328b420,
 * "Group queues' heads in a circular array".
 */
public final class GroupPops {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final int SLICE_ITEMS = 100_000;
  private static final int WARM_UP_ROUNDS = 2;

  private GroupPops() {}

  public static void main(String[] args) {
    int groups = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
    int backlog = args.length > 1 ? Integer.parseInt(args[1]) : 40_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 8;
    try (Queue keyed = new Queue(groups, backlog); Queue unkeyed = new Queue(0, backlog)) {
      double[] ratios = new double[rounds];
      for (int r = 0; r < WARM_UP_ROUNDS + rounds; r++) {
        double k;
        double n;
        if (r % 2 == 0) {
          k = keyed.slice();
          n = unkeyed.slice();
        } else {
          n = unkeyed.slice();
          k = keyed.slice();
        }
        boolean counted = r >= WARM_UP_ROUNDS;
        if (counted) {
          ratios[r - WARM_UP_ROUNDS] = n / k;
        }
        System.out.printf("round %d%s: %,d group keys %,.0f ns per item, none %,.0f; none / keys %.2f%n", r,
            counted ? "" : " (warm-up)", groups, k, n, n / k);
      }
      Arrays.sort(ratios);
      System.out.printf("median of %d rounds, CPU per item without keys / with: %.2f%n", rounds,
          rounds % 2 == 1 ? ratios[rounds / 2] : (ratios[rounds / 2 - 1] + ratios[rounds / 2]) / 2);
    }
  }

  /** One store and its workload. */
  private static final class Queue implements AutoCloseable {
    private final RocksKv rocks;
    private final PriorityStore store;
    private final String[] groups;
    private final long[] lastSlot;
    private long offset;
    private int next;

    Queue(int groupKeys, int backlog) {
      try {
        rocks = RocksKv.openAt(Files.createTempDirectory("ordo-group-pops"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      store = new PriorityStore(rocks.kv);
      store.holdItemWrites();
      groups = new String[groupKeys];
      for (int g = 0; g < groupKeys; g++) {
        groups[g] = "g" + g;
      }
      lastSlot = new long[Math.max(1, groupKeys)];
      for (int i = 0; i < backlog; i++) {
        enqueue();
      }
      store.flushItemWrites();
    }

    /** Pops {@link #SLICE_ITEMS} items, enqueuing one for each; the thread's CPU time per item. */
    double slice() {
      long cpu = THREADS.getCurrentThreadCpuTime();
      int popped = 0;
      while (popped < SLICE_ITEMS) {
        List<ReadyEntry> head = new ArrayList<>(store.readyHead("bench", "jobs", 100));
        for (ReadyEntry e : head) {
          StoredItem ready = store.get(e.offset());
          StoredItem leased = Items.leased(ready, e.readyAt() + 30_000);
          store.transition(e.offset(), ready, leased);
          store.transition(e.offset(), leased, null);
          enqueue();
          if (++popped % 2_000 == 0) {
            store.flushItemWrites();
          }
        }
      }
      return (THREADS.getCurrentThreadCpuTime() - cpu) / (double) popped;
    }

    private void enqueue() {
      StoredItem s = Items.stored("bench", "jobs", 0, ItemState.READY, offset, null, null, new byte[64]);
      if (groups.length > 0) {
        // Each group's slots grow by one unit per item, as with weight 1 behind a virtual time of 0.
        s.getItem().setGroupKey(groups[next]);
        lastSlot[next] += 1_000;
        s.setSlot(lastSlot[next]);
        next = (next + 1) % groups.length;
      }
      store.transition(offset++, null, s);
    }

    @Override
    public void close() {
      rocks.close();
    }
  }
}
