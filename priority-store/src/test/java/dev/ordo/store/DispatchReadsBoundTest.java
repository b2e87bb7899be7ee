package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.AgeKeySchema;
import dev.ordo.store.internal.GroupQueueKeySchema;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.KeyFamily;
import dev.ordo.store.internal.OverflowKeySchema;
import dev.ordo.store.internal.ReadyKeySchema;
import dev.ordo.store.internal.TimerKeySchema;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.LongFunction;
import java.util.stream.LongStream;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 13: a dispatch finds its next ready items in O(log n + k) whatever the backlog: it reads
 * neither the OVERFLOW items (their own index) nor the sidelined items (the backlog lane) beyond a
 * bounded head, however many there are.
 *
 * <p>A {@link PriorityStore} runs over RocksDB stores (items and index, as in production) wrapped so
 * that every entry handed to the store is counted: each point get, and each entry an iterator of a
 * range, prefix or full scan yields through {@code next()}. Every counted key is attributed by its
 * offset (whatever its key family) to the population it belongs to: OVERFLOW, sidelined, fresh.
 *
 * <p>The dispatch is the store calls the topology's planner makes to lease {@code k} items of one
 * topic ({@code Dispatch.serveTopic} in topology): {@code sideline} (one {@link PriorityStore#readyBefore}),
 * then {@code serveMerged}'s {@code ReadyMerge} (a window of {@link PriorityStore#readyHead} of
 * {@code k}, grown by doubling while it may hide a smaller entry), a {@link PriorityStore#get} per
 * candidate, and the leases ({@link PriorityStore#transition}) when the plan is applied.
 *
 * <p>The measured store is a new instance over stores an orderly close left behind (a restart or a
 * task that moved): its head cache and decoded items are empty, the worst case for reads. A cold
 * read of a topic's ready range reads a batch of {@value #HEAD_PREFETCH} keys at once (a quarter
 * of the head cache's 2,048 keys per prefix, {@code HeadCache.first}), a constant, whatever k and
 * the backlog; the bounds allow for it once. Every bound is below the smallest backlog (2,000 items
 * of each kind), so a dispatch that scanned either would fail it.
 */
class DispatchReadsBoundTest {
  private static final String NS = "ns";
  private static final String T = "t";
  private static final int K = 10;
  /** Keys a cold read of a ready (or age) range takes from the store at once: HEAD_CAPACITY / 4. */
  private static final int HEAD_PREFETCH = PriorityStore.HEAD_CAPACITY / 4;
  /** Entries a dispatch of {@link #K} items may read on a warm store: 4k + 20. */
  private static final int WARM_BOUND = 4 * K + 20;
  /** ... and on a cold one: the same plus one head batch. */
  private static final int COLD_BOUND = WARM_BOUND + HEAD_PREFETCH;
  private static final long NOW = 10_000_000;
  /** The namespace's sidelineAfterMs as the planner would read it from the policy. */
  private static final long SIDELINE_AFTER_MS = 60_000;
  /** QueuePlanner.SIDELINE_BATCH. */
  private static final int SIDELINE_BATCH = 256;
  private static final long LEASE_MS = 30_000;

  private final List<RocksKv> opened = new ArrayList<>();

  @AfterEach
  void close() {
    opened.forEach(RocksKv::close);
    opened.clear();
  }

  /** k fresh items behind 20,000 OVERFLOW and 20,000 sidelined items: found with reads bounded by k. */
  @Test
  void aDispatchOfFreshItemsReadsNeitherTheOverflowNorTheBacklog() {
    Queue q = queue(20_000, 20_000, K);
    Reads cold = q.dispatch(K);
    assertEquals(q.freshOffsets(), cold.leased, "the fresh lane is served first");
    assertEquals(0, cold.of(Pop.OVERFLOW), "OVERFLOW items read: " + cold);
    assertTrue(cold.of(Pop.SIDELINED) <= HEAD_PREFETCH, "sidelined items read beyond one head batch: " + cold);
    assertTrue(cold.total() <= COLD_BOUND, "reads " + cold + " > " + COLD_BOUND);

    // Steady state on the same instance: k more arrive, the next dispatch leases them.
    List<Long> arrivals = q.arrive(K);
    Reads warm = q.dispatch(K);
    assertEquals(arrivals, warm.leased);
    assertEquals(0, warm.of(Pop.OVERFLOW), "OVERFLOW items read: " + warm);
    assertTrue(warm.total() <= WARM_BOUND, "reads " + warm + " > " + WARM_BOUND);
    System.out.printf("fresh lane, 20,000 + 20,000 backlog: cold %s, warm %s%n", cold, warm);
  }

  /** The same dispatch behind a tenth of the backlog reads exactly as much: reads do not grow with it. */
  @Test
  void itsReadsAreTheSameWithTenTimesTheBacklog() {
    Queue small = queue(2_000, 2_000, K);
    Reads few = small.dispatch(K);
    Queue large = queue(20_000, 20_000, K);
    Reads many = large.dispatch(K);
    assertEquals(small.freshOffsets(), few.leased);
    assertEquals(large.freshOffsets(), many.leased);
    assertEquals(few.byPop, many.byPop, "2,000 + 2,000: " + few + ", 20,000 + 20,000: " + many);
    assertEquals(few.seeks, many.seeks, "2,000 + 2,000: " + few + ", 20,000 + 20,000: " + many);
    assertTrue(few.total() <= COLD_BOUND && many.total() <= COLD_BOUND, few + ", " + many);
    System.out.printf("fresh lane: 2,000 + 2,000 backlog %s; 20,000 + 20,000 backlog %s%n", few, many);
  }

  /**
   * The fresh lane empty: the dispatch serves the backlog lane's first k, in order, with reads
   * bounded as before and the same whatever the OVERFLOW count (and the backlog's size).
   */
  @Test
  void withTheFreshLaneEmptyItServesTheBacklogLaneInBoundedReads() {
    Queue small = queue(2_000, 20_000, 0);
    Reads fewOverflow = small.dispatch(K);
    Queue large = queue(20_000, 20_000, 0);
    Reads manyOverflow = large.dispatch(K);
    Queue smallBacklog = queue(20_000, 2_000, 0);
    Reads fewSidelined = smallBacklog.dispatch(K);
    for (Map.Entry<Queue, Reads> run : List.of(Map.entry(small, fewOverflow), Map.entry(large, manyOverflow),
        Map.entry(smallBacklog, fewSidelined))) {
      Queue q = run.getKey();
      Reads r = run.getValue();
      assertEquals(q.sidelinedOffsets().subList(0, K), r.leased, "the backlog lane's oldest, in order");
      assertEquals(0, r.of(Pop.OVERFLOW), "OVERFLOW items read: " + r);
      assertTrue(r.total() <= COLD_BOUND, "reads " + r + " > " + COLD_BOUND);
    }
    assertEquals(fewOverflow.byPop, manyOverflow.byPop, fewOverflow + " vs " + manyOverflow);
    assertEquals(fewSidelined.byPop, manyOverflow.byPop, fewSidelined + " vs " + manyOverflow);
    System.out.printf("backlog lane: 2,000 overflow %s; 20,000 overflow %s; 2,000 sidelined %s%n",
        fewOverflow, manyOverflow, fewSidelined);
  }

  /**
   * The counters see what a scan consumes: reading the OVERFLOW index or the backlog lane counts
   * every entry, so the bounds above would catch a dispatch that did.
   */
  @Test
  void theCountersSeeEveryEntryAScanConsumes() {
    Queue q = queue(2_000, 2_000, K);
    q.counter.reset();
    assertEquals(2_000, q.store.overflowHead(NS, 5_000).size());
    assertEquals(2_000, q.counter.snapshot(List.of()).of(Pop.OVERFLOW), "an OVERFLOW scan, counted");
    q.counter.reset();
    assertEquals(2_000 + K, q.store.readyHead(NS, T, 5_000).size());
    Reads scan = q.counter.snapshot(List.of());
    assertEquals(2_000, scan.of(Pop.SIDELINED), "a backlog-lane scan, counted: " + scan);
    q.counter.reset();
    for (long o : q.sidelinedOffsets()) {
      q.store.get(o);
    }
    assertEquals(2_000, q.counter.snapshot(List.of()).of(Pop.SIDELINED), "point gets, counted");
  }

  // --- the queue under test ---

  /** Which items a key read belongs to. */
  enum Pop { OVERFLOW, SIDELINED, FRESH, OTHER }

  /**
   * One partition's queue of one (namespace, topic), all at priority 0 (the backlog lane sorts
   * right after the fresh lane): {@code overflow} OVERFLOW items at offsets [0, overflow), then
   * {@code sidelined} sidelined READY items (ready long ago), then {@code fresh} fresh READY items
   * (ready just now, not due for sidelining).
   */
  private Queue queue(int overflow, int sidelined, int fresh) {
    RocksKv items = RocksKv.open("reads-items");
    opened.add(items);
    RocksKv index = RocksKv.open("reads-index");
    opened.add(index);
    PriorityStore writer = new PriorityStore(items.kv, index.kv);
    IndexRebuildTest.rebuilt(writer);
    writer.startGeneration();
    long o = 0;
    for (int i = 0; i < overflow; i++, o++) {
      writer.transition(o, null, Items.stored(NS, T, 0, ItemState.OVERFLOW, o, null, null, new byte[16]));
    }
    long firstSidelined = o;
    for (int i = 0; i < sidelined; i++, o++) {
      writer.transition(o, null, StoredItem.newBuilder(Items.ready(NS, T, 0, i)).setSidelined(true).build());
    }
    long firstFresh = o;
    for (int i = 0; i < fresh; i++, o++) {
      writer.transition(o, null, Items.ready(NS, T, 0, NOW - 1_000 + i));
    }
    writer.markChanges();
    writer.closeIndex();
    long sidelinedEnd = firstFresh;
    LongFunction<Pop> pop = off -> off < firstSidelined ? Pop.OVERFLOW : off < sidelinedEnd ? Pop.SIDELINED : Pop.FRESH;
    Counter counter = new Counter(pop);
    PriorityStore store = new PriorityStore(new CountingKv(items.kv, counter), new CountingKv(index.kv, counter));
    assertTrue(store.openIndex(), "an orderly close: the index is trusted, not rebuilt");
    store.startGeneration();
    return new Queue(store, counter, firstSidelined, firstFresh, o);
  }

  private static final class Queue {
    final PriorityStore store;
    final Counter counter;
    final long firstSidelined;
    final long firstFresh;
    final long end;
    long next;

    Queue(PriorityStore store, Counter counter, long firstSidelined, long firstFresh, long end) {
      this.store = store;
      this.counter = counter;
      this.firstSidelined = firstSidelined;
      this.firstFresh = firstFresh;
      this.end = end;
      this.next = end;
    }

    List<Long> freshOffsets() {
      return LongStream.range(firstFresh, end).boxed().toList();
    }

    List<Long> sidelinedOffsets() {
      return LongStream.range(firstSidelined, firstFresh).boxed().toList();
    }

    /** n new fresh items (arrivals: the planner's onItem, a transition from nothing). */
    List<Long> arrive(int n) {
      List<Long> out = new ArrayList<>();
      for (int i = 0; i < n; i++, next++) {
        store.transition(next, null, Items.ready(NS, T, 0, NOW + i));
        out.add(next);
      }
      return out;
    }

    /**
     * What the planner's dispatch asks of the store to lease {@code n} items of the topic, counted:
     * {@code Dispatch.sideline}, then {@code Dispatch.serveMerged} over {@code ReadyMerge} for one topic
     * without group keys, then the leases applied.
     */
    Reads dispatch(int n) {
      counter.reset();
      // Dispatch.sideline: the fresh lane's items ready for longer than sidelineAfterMs (none here).
      List<Long> toSideline = store.readyBefore(NS, T, NOW - SIDELINE_AFTER_MS, SIDELINE_BATCH);
      assertEquals(List.of(), toSideline, "nothing is due for sidelining in these queues");
      // Dispatch.serveMerged with ReadyMerge's window over the topic's ready index.
      Window w = new Window(store, n);
      w.load();
      List<Long> leased = new ArrayList<>();
      List<StoredItem[]> leases = new ArrayList<>();
      while (leased.size() < n) {
        while (!w.exhausted && (w.queue.isEmpty() || w.last == null || w.last.compareTo(w.queue.peek()) < 0)) {
          w.load();
        }
        ReadyEntry c = w.queue.poll();
        if (c == null) {
          break;
        }
        StoredItem item = store.get(c.offset());
        if (item == null) {
          continue;
        }
        boolean here = item.getState() == ItemState.READY && item.getSidelined() == c.sidelined()
            && item.getSlot() == c.slot() && item.getReadyAt() == c.readyAt();
        if (here) {
          leased.add(c.offset());
          leases.add(new StoredItem[] {item, Items.leased(item, NOW + LEASE_MS)});
        }
      }
      // The plan applied: the leases, as transitions.
      for (int i = 0; i < leased.size(); i++) {
        store.transition(leased.get(i), leases.get(i)[0], leases.get(i)[1]);
      }
      return counter.snapshot(leased);
    }
  }

  /** ReadyMerge's Window: the topic's ready index read in windows that double. */
  private static final class Window {
    final PriorityStore store;
    final PriorityQueue<ReadyEntry> queue = new PriorityQueue<>();
    int size;
    ReadyEntry last;
    boolean exhausted;

    Window(PriorityStore store, int size) {
      this.store = store;
      this.size = Math.max(1, size);
    }

    void load() {
      List<ReadyEntry> entries = store.readyHead(NS, T, size);
      for (ReadyEntry e : entries) {
        if (last == null || e.compareTo(last) > 0) {
          queue.add(e);
        }
      }
      exhausted = entries.size() < size;
      if (!entries.isEmpty()) {
        last = entries.get(entries.size() - 1);
      }
      size *= 2;
    }
  }

  // --- counting ---

  /** What a dispatch read: entries by population, point gets, scans opened, and what it leased. */
  private record Reads(Map<Pop, Long> byPop, long gets, long scanned, long seeks, List<Long> leased) {
    long of(Pop p) {
      return byPop.getOrDefault(p, 0L);
    }

    /** Every entry handed to the store: point gets plus entries scanned. */
    long total() {
      return gets + scanned;
    }

    @Override
    public String toString() {
      return "{total=" + total() + " (gets=" + gets + ", scanned=" + scanned + ", seeks=" + seeks + "), by items=" + byPop + "}";
    }
  }

  /** Counts reads of both stores, attributing each key to its item's population by offset. */
  private static final class Counter {
    private final LongFunction<Pop> pop;
    private final EnumMap<Pop, Long> byPop = new EnumMap<>(Pop.class);
    private long gets;
    private long scanned;
    private long seeks;

    Counter(LongFunction<Pop> pop) {
      this.pop = pop;
    }

    void reset() {
      byPop.clear();
      gets = 0;
      scanned = 0;
      seeks = 0;
    }

    Reads snapshot(List<Long> leased) {
      return new Reads(new EnumMap<>(byPop), gets, scanned, seeks, leased);
    }

    void got(Bytes key) {
      gets++;
      attribute(key);
    }

    void scanned(Bytes key) {
      scanned++;
      attribute(key);
    }

    void seek() {
      seeks++;
    }

    private void attribute(Bytes key) {
      byPop.merge(population(key.get()), 1L, Long::sum);
    }

    private Pop population(byte[] k) {
      if (k.length == 0) {
        return Pop.OTHER;
      }
      long offset;
      switch (k[0]) {
        case KeyFamily.ITEM -> offset = k.length == ItemKeySchema.SIZE ? ItemKeySchema.offset(k) : Long.MIN_VALUE;
        case KeyFamily.READY -> offset = ReadyKeySchema.offset(k);
        case KeyFamily.GROUP_QUEUE -> offset = GroupQueueKeySchema.offset(k);
        case KeyFamily.AGE -> offset = AgeKeySchema.offset(k);
        case KeyFamily.TIMER -> offset = TimerKeySchema.offset(k);
        case KeyFamily.OVERFLOW -> offset = OverflowKeySchema.offset(k);
        default -> {
          return Pop.OTHER; // counts, fair shares, meta
        }
      }
      return offset < 0 ? Pop.OTHER : pop.apply(offset);
    }
  }

  /** A store that counts what it hands out: each point get, and each entry its iterators yield. */
  private static final class CountingKv extends ForwardingKv {
    private final Counter counter;

    CountingKv(KeyValueStore<Bytes, byte[]> inner, Counter counter) {
      super(inner);
      this.counter = counter;
    }

    private KeyValueIterator<Bytes, byte[]> counted(KeyValueIterator<Bytes, byte[]> it) {
      counter.seek();
      return new KeyValueIterator<>() {
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
          KeyValue<Bytes, byte[]> e = it.next();
          counter.scanned(e.key);
          return e;
        }

        @Override
        public Bytes peekNextKey() {
          return it.peekNextKey();
        }

        @Override
        public void close() {
          it.close();
        }
      };
    }

    @Override
    public byte[] get(Bytes key) {
      counter.got(key);
      return inner.get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
      return counted(inner.range(from, to));
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
      return counted(inner.reverseRange(from, to));
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
      return counted(inner.all());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
      return counted(inner.reverseAll());
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS serializer) {
      return counted(inner.prefixScan(prefix, serializer));
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
      counter.got(key); // returns the old value: a read
      return inner.putIfAbsent(key, value);
    }

    @Override
    public byte[] delete(Bytes key) {
      counter.got(key); // returns the old value: a read
      return inner.delete(key);
    }
  }
}
