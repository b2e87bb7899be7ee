package dev.ordo.store.bench;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.Items;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.RocksKv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Pop throughput of a RocksDB-backed {@link PriorityStore} holding {@link #items} ready items,
 * before and after {@link #popped} earlier pops. A pop is what the topology does for one item of a
 * dequeue and its ack: it is found by {@code readyHead(ns, topic, batch)}, leased
 * (READY → LEASED, a lease timer added) and acked (LEASED → deleted). Every pop leaves deletes
 * behind at the head of the topic's ready range, the tombstones RocksDB iterators crawl over
 * (rocksdb #5265).
 *
 * <ul>
 *   <li>{@code popped=0}: a store filled with {@code items} items, never popped;</li>
 *   <li>{@code popped=1000000}: {@code items + popped} items enqueued, {@code popped} of them
 *       popped, so {@code items} live items sit behind {@code popped} deleted ones;</li>
 *   <li>{@code cursors=kept}: one store instance, its scan cursors skip the tombstones;</li>
 *   <li>{@code cursors=reset}: a fresh instance for every batch, so every scan starts at the
 *       prefix with no cursor, as the first scan after a restart or a task move does.</li>
 * </ul>
 *
 * <p>One topic, one priority, ready times in enqueue order: a FIFO whose every pop adds a
 * tombstone right at the head, the worst case for the scan. Before each iteration the store is
 * topped up at the tail back to {@code items} live items, so each iteration starts with the same
 * live count. The store is Kafka Streams' own RocksDB store without the record cache and without
 * the changelog; in production the cache sits in front of it and absorbs part of the writes.
 * The score is items popped per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
public class PopBenchmark {
  static final String NS = "bench";
  static final String TOPIC = "jobs";
  static final int BATCH = 100;

  @Param("1000000")
  int items;

  @Param({"0", "1000000"})
  int popped;

  @Param({"kept", "reset"})
  String cursors;

  private RocksKv rocks;
  private PriorityStore store;
  private long nextOffset;
  private long live;
  private final byte[] payload = new byte[64];

  @Setup(Level.Trial)
  public void fill() throws IOException {
    // Filling takes minutes, so each (items, popped) store is built once per bench.sh run and
    // copied for the trials that follow; bench.sh deletes the copies before it starts.
    Path template = Path.of("target", "bench-templates", items + "-" + popped);
    Path dir = Files.createTempDirectory("ordo-bench");
    if (!Files.exists(template.resolve("complete"))) {
      rocks = RocksKv.openAt(dir);
      store = new PriorityStore(rocks.kv);
      long started = System.nanoTime();
      enqueue(items + popped);
      long enqueued = System.nanoTime();
      for (long done = 0; done < popped; ) {
        done += popBatch(store);
      }
      rocks.kv.flush();
      long finished = System.nanoTime();
      System.out.printf("%nfilled: %,d enqueued in %.1f s, %,d popped in %.1f s%n", items + popped,
          (enqueued - started) / 1e9, popped, (finished - enqueued) / 1e9);
      rocks.closeKeepingFiles();
      RocksKv.delete(template);
      RocksKv.copy(dir, template);
      Files.createFile(template.resolve("complete"));
    } else {
      RocksKv.delete(dir);
      RocksKv.copy(template, dir);
    }
    // Reopened like a restarted task: same files, a new instance without cursors.
    rocks = RocksKv.openAt(dir);
    store = new PriorityStore(rocks.kv);
    nextOffset = items + popped;
    live = items;
    long scanStarted = System.nanoTime();
    int found = store.readyHead(NS, TOPIC, BATCH).size();
    System.out.printf("%nfirst scan after reopening: %d items in %.1f ms%n", found, (System.nanoTime() - scanStarted) / 1e6);
  }

  @Setup(Level.Iteration)
  public void topUp() {
    enqueue(items - live);
    rocks.kv.flush();
  }

  @TearDown(Level.Trial)
  public void close() {
    rocks.close();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int pop() {
    PriorityStore s = cursors.equals("reset") ? new PriorityStore(rocks.kv) : store;
    return popBatch(s);
  }

  /** Dequeues and acks up to one batch, as the topology's dispatch and ack do. */
  private int popBatch(PriorityStore s) {
    List<ReadyEntry> head = s.readyHead(NS, TOPIC, BATCH);
    if (head.isEmpty()) {
      throw new IllegalStateException("the store ran dry: raise items or shorten the iterations");
    }
    for (ReadyEntry e : head) {
      StoredItem ready = s.get(e.offset());
      StoredItem leased = Items.leased(ready, e.readyAt() + 30_000);
      s.transition(e.offset(), ready, leased);
      s.transition(e.offset(), leased, null);
    }
    live -= head.size();
    return head.size();
  }

  private void enqueue(long n) {
    for (long i = 0; i < n; i++) {
      long offset = nextOffset++;
      store.transition(offset, null, Items.stored(NS, TOPIC, 0, ItemState.READY, offset, null, null, payload));
    }
    live += n;
  }
}
