package dev.ordo.store.bench;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.Items;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.RocksKv;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One FIFO topic (one priority, ready times in enqueue order) in a {@link PriorityStore} over
 * Kafka Streams' RocksDB store without cache or changelog: every pop leaves its tombstones right
 * at the head of the ready range, the worst case for a scan.
 */
final class BenchQueue implements AutoCloseable {
  static final String NS = "bench";
  static final String TOPIC = "jobs";
  static final int BATCH = 100;

  private final RocksKv rocks;
  private final PriorityStore store;
  private final long items;
  private final byte[] payload = new byte[64];
  private long nextOffset;
  private long live;

  private BenchQueue(RocksKv rocks, long items, long nextOffset, long live) {
    this.rocks = rocks;
    this.store = new PriorityStore(rocks.kv);
    this.items = items;
    this.nextOffset = nextOffset;
    this.live = live;
  }

  /**
   * A queue of {@code items} live items behind {@code popped} popped ones, reopened as a
   * restarted task would find it: same files, a new store instance without cursors. Filling
   * takes minutes, so each (items, popped) store is built once under target/bench-templates and
   * copied after that; bench.sh deletes the templates before it starts.
   */
  static BenchQueue open(long items, long popped) {
    try {
      Path template = Path.of("target", "bench-templates", items + "-" + popped);
      Path dir = Files.createTempDirectory("ordo-bench");
      if (!Files.exists(template.resolve("complete"))) {
        BenchQueue filling = new BenchQueue(RocksKv.openAt(dir), items + popped, 0, 0);
        long started = System.nanoTime();
        filling.topUp();
        long enqueued = System.nanoTime();
        for (long done = 0; done < popped; ) {
          done += filling.popBatch(false);
        }
        filling.rocks.kv.flush();
        long finished = System.nanoTime();
        System.out.printf("%nfilled: %,d enqueued in %.1f s, %,d popped in %.1f s%n", items + popped,
            (enqueued - started) / 1e9, popped, (finished - enqueued) / 1e9);
        filling.rocks.closeKeepingFiles();
        RocksKv.delete(template);
        RocksKv.copy(dir, template);
        Files.createFile(template.resolve("complete"));
      } else {
        RocksKv.delete(dir);
        RocksKv.copy(template, dir);
      }
      BenchQueue queue = new BenchQueue(RocksKv.openAt(dir), items, items + popped, items);
      long scanStarted = System.nanoTime();
      int found = queue.store.readyHead(NS, TOPIC, BATCH).size();
      System.out.printf("%nfirst scan after reopening (%,d items behind %,d popped): %d found in %.1f ms%n",
          items, popped, found, (System.nanoTime() - scanStarted) / 1e6);
      return queue;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Dequeues and acks one batch, as the topology's dispatch and ack do: readyHead, then for each
   * item READY → LEASED (a lease timer added) → deleted. With {@code freshInstance} the batch
   * goes through a new store instance, which has no cursors.
   */
  int popBatch(boolean freshInstance) {
    PriorityStore s = freshInstance ? new PriorityStore(rocks.kv) : store;
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

  /** Enqueues at the tail until the queue holds its {@code items} live items again. */
  void topUp() {
    for (; live < items; live++) {
      long offset = nextOffset++;
      store.transition(offset, null, Items.stored(NS, TOPIC, 0, ItemState.READY, offset, null, null, payload));
    }
    rocks.kv.flush();
  }

  @Override
  public void close() {
    rocks.close();
  }
}
