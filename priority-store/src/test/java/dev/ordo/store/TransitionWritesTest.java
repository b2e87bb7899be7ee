package dev.ordo.store;

import static dev.ordo.store.Items.leased;
import static dev.ordo.store.Items.ready;
import static dev.ordo.store.Items.stored;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What each kind of transition costs the index store: the puts and deletes that reach it, the point
 * reads and the range reads (seeks, and the entries they yield), with the held index writes applied
 * after each step so that each step's writes are its own. Pinned to what the hand-written
 * index/unindex did before the store became a facade over views (issue 45, decisions D65): the views'
 * key diffs add no RocksDB read or write to any transition. One step costs one put less than it did:
 * a key the same before and after is now left alone where the hand-written code deleted and put it.
 */
class TransitionWritesTest {
  private static final String NS = "ns";
  private final List<RocksKv> opened = new ArrayList<>();

  @AfterEach
  void close() {
    opened.forEach(RocksKv::close);
  }

  /** One step's cost: puts, deletes, point gets, seeks, entries scanned. */
  record Cost(String step, long puts, long deletes, long gets, long seeks, long scanned) {
    @Override
    public String toString() {
      return "new Cost(\"" + step + "\", " + puts + ", " + deletes + ", " + gets + ", " + seeks + ", " + scanned + ")";
    }
  }

  @Test
  void eachTransitionWritesAndReadsTheIndexStoreAsBefore() {
    RocksKv items = RocksKv.open("writes-items");
    RocksKv index = RocksKv.open("writes-index");
    opened.add(items);
    opened.add(index);
    CountingKv counted = new CountingKv(index.kv);
    PriorityStore store = new PriorityStore(items.kv, counted);
    IndexRebuildTest.rebuilt(store);
    store.startGeneration();
    List<Cost> costs = new ArrayList<>();
    Steps s = new Steps(store, counted, costs);

    // An item without a group, with a TTL: taken in, read, leased, acked.
    s.put("take in", 1, stored(NS, "t", 0, ItemState.READY, 100, null, 90_000L, new byte[8]));
    s.read("head", () -> store.readyHead(NS, "t", 10));
    s.put("lease", 1, leased(store.get(1), 30_100));
    s.put("ack", 1, null);
    // Leased, nacked with a delay, due again, leased, parked.
    s.put("take in 2", 2, ready(NS, "t", 0, 200));
    s.put("lease 2", 2, leased(store.get(2), 30_200));
    s.put("nack delay", 2, StoredItem.newBuilder(store.get(2)).setState(ItemState.DELAYED).setReadyAt(5_000)
        .setLeaseExpiresAt(null).setLeaseId(null).build());
    s.read("due scan", () -> store.dueTimers(TimerKind.DUE, 6_000, 10));
    s.put("due", 2, StoredItem.newBuilder(store.get(2)).setState(ItemState.READY).build());
    s.put("lease 2 again", 2, leased(store.get(2), 36_000));
    s.put("park", 2, StoredItem.newBuilder(store.get(2)).setState(ItemState.PARKED).setLeaseExpiresAt(null)
        .setLeaseId(null).build());
    // A queued group (a limit): two items, the head leased (the next comes in), acked; a flat one flipped.
    s.put("group in", 10, grouped(ready(NS, "t", 0, 300), "g", 1, false));
    s.put("group in 2", 11, grouped(ready(NS, "t", 0, 300), "g", 2, false));
    s.read("group head", () -> store.groupHead(NS, "t", 0, "g", 10));
    s.put("group lease", 10, leased(store.get(10), 30_300));
    s.put("group ack", 10, null);
    s.put("group lease 2", 11, leased(store.get(11), 30_300));
    s.put("flat in", 12, grouped(ready(NS, "t", 0, 300), "h", 1, true));
    s.put("flat to queued", 12, StoredItem.newBuilder(store.get(12)).setFlat(false).build());
    // An ordered group: the head leased holds the group; acked, the next comes in.
    s.put("ordered in", 20, ordered(ready(NS, "u", 0, 400), "o"));
    s.put("ordered in 2", 21, ordered(ready(NS, "u", 0, 400), "o"));
    s.read("ordered head", () -> store.orderedHead(NS, "u", "o"));
    s.put("ordered lease", 20, leased(store.get(20), 30_400));
    s.put("ordered ack", 20, null);
    // Overflow, then admitted.
    s.put("overflow in", 30, stored(NS, "t", 0, ItemState.OVERFLOW, 500, null, null, new byte[8]));
    s.read("overflow head", () -> store.overflowHead(NS, 10));
    s.put("admitted", 30, StoredItem.newBuilder(store.get(30)).setState(ItemState.READY).build());

    assertEquals(List.of(
        new Cost("take in", 3, 0, 0, 0, 0), // ready, age, TTL
        new Cost("head", 0, 0, 0, 1, 1),
        new Cost("lease", 0, 2, 0, 0, 0), // ready, age (the LEASE timer is on the heap)
        new Cost("ack", 0, 1, 0, 0, 0), // TTL
        new Cost("take in 2", 2, 0, 0, 0, 0),
        new Cost("lease 2", 0, 2, 0, 0, 0),
        new Cost("nack delay", 1, 0, 0, 0, 0), // DUE
        new Cost("due scan", 0, 0, 0, 1, 1),
        new Cost("due", 2, 1, 0, 0, 0),
        new Cost("lease 2 again", 0, 2, 0, 0, 0),
        new Cost("park", 0, 0, 0, 0, 0),
        new Cost("group in", 3, 0, 0, 0, 0), // group queue, ready (its head), age
        new Cost("group in 2", 2, 0, 0, 0, 0), // group queue, age: no look-up (the group head cache)
        new Cost("group head", 0, 0, 0, 0, 0),
        new Cost("group lease", 1, 3, 0, 0, 0), // the next's ready key comes in
        new Cost("group ack", 0, 0, 0, 0, 0),
        new Cost("group lease 2", 0, 3, 0, 0, 0),
        new Cost("flat in", 2, 0, 0, 0, 0),
        // Its ready key deleted and put again as its queue's head (one put), its group-queue key put; the
        // age key, the same before and after, is left alone (the hand-written index put it again: 3 puts).
        new Cost("flat to queued", 2, 0, 0, 0, 0),
        new Cost("ordered in", 3, 0, 0, 1, 0), // order, ready, age; the group's order range read once
        new Cost("ordered in 2", 2, 0, 0, 0, 0), // order, age
        new Cost("ordered head", 0, 0, 0, 0, 0),
        new Cost("ordered lease", 0, 2, 0, 0, 0),
        new Cost("ordered ack", 1, 1, 0, 0, 0), // order out, the next's ready key in
        new Cost("overflow in", 1, 0, 0, 0, 0),
        new Cost("overflow head", 0, 0, 0, 1, 1),
        new Cost("admitted", 2, 1, 0, 0, 0)), costs, costs.toString().replace("), ", "),\n"));
  }

  private static StoredItem grouped(StoredItem s, String group, long slot, boolean flat) {
    s.getItem().setGroupKey(group);
    s.setSlot(slot);
    s.setFlat(flat);
    return s;
  }

  private static StoredItem ordered(StoredItem s, String group) {
    s.getItem().setGroupKey(group);
    s.setFlat(true);
    s.setOrdered(true);
    return s;
  }

  private record Steps(PriorityStore store, CountingKv kv, List<Cost> costs) {
    void put(String step, long offset, StoredItem after) {
      kv.reset();
      store.transition(offset, store.get(offset), after);
      store.flushIndexWrites();
      costs.add(kv.cost(step));
    }

    void read(String step, Runnable read) {
      store.flushIndexWrites();
      kv.reset();
      read.run();
      costs.add(kv.cost(step));
    }
  }

  /** Counts what reaches the index store. */
  private static final class CountingKv extends ForwardingKv {
    private long puts;
    private long deletes;
    private long gets;
    private long seeks;
    private long scanned;

    CountingKv(KeyValueStore<Bytes, byte[]> inner) {
      super(inner);
    }

    void reset() {
      puts = deletes = gets = seeks = scanned = 0;
    }

    Cost cost(String step) {
      return new Cost(step, puts, deletes, gets, seeks, scanned);
    }

    private void wrote(byte[] value) {
      if (value == null) {
        deletes++;
      } else {
        puts++;
      }
    }

    @Override
    public void put(Bytes key, byte[] value) {
      wrote(value);
      inner.put(key, value);
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
      entries.forEach(e -> wrote(e.value));
      inner.putAll(entries);
    }

    @Override
    public byte[] get(Bytes key) {
      gets++;
      return inner.get(key);
    }

    private KeyValueIterator<Bytes, byte[]> counted(KeyValueIterator<Bytes, byte[]> it) {
      seeks++;
      return new KeyValueIterator<>() {
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
          scanned++;
          return it.next();
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
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
      return counted(inner.range(from, to));
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS serializer) {
      return counted(inner.prefixScan(prefix, serializer));
    }
  }
}
