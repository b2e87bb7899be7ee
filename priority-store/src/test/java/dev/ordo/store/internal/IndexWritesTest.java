package dev.ordo.store.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.store.RocksKv;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link IndexWrites} on a real Kafka Streams RocksDB store: after a flush the store holds exactly
 * what the writes say, a put undone before the flush never reaches RocksDB, and a key deleted and
 * put again keeps its delete when deleted once more.
 */
class IndexWritesTest {
  private RocksKv rocks;

  @BeforeEach
  void open() {
    rocks = RocksKv.open("index-writes");
  }

  @AfterEach
  void close() {
    rocks.close();
  }

  @Test
  void aPutDeletedBeforeTheFlushNeverReachesTheStore() {
    IndexWrites writes = new IndexWrites(rocks.kv, 100);
    writes.putNew(key(1), value(1));
    writes.putNew(key(2), value(2));
    writes.delete(key(1));
    assertEquals(1, writes.held());
    writes.flush();
    assertEquals(1, writes.written(), "only key 2 was written");
    assertEquals(1, writes.cancelled());
    assertNull(rocks.kv.get(Bytes.wrap(key(1))));
    assertArrayEquals(value(2), rocks.kv.get(Bytes.wrap(key(2))));
  }

  @Test
  void aKeyOfTheStoreDeletedPutAndDeletedAgainIsGone() {
    rocks.kv.put(Bytes.wrap(key(7)), value(7));
    IndexWrites writes = new IndexWrites(rocks.kv, 100);
    writes.delete(key(7));
    writes.putNew(key(7), value(8));
    writes.delete(key(7)); // must not cancel into "nothing": the store still holds the old value
    writes.flush();
    assertNull(rocks.kv.get(Bytes.wrap(key(7))));
    assertEquals(0, writes.cancelled());
  }

  @Test
  void heldWritesAreAppliedWhenThereAreTooMany() {
    IndexWrites writes = new IndexWrites(rocks.kv, 3);
    for (int i = 0; i < 3; i++) {
      writes.putNew(key(i), value(i));
    }
    assertNull(rocks.kv.get(Bytes.wrap(key(0))), "held, not written yet");
    writes.putNew(key(3), value(3));
    assertEquals(0, writes.held());
    for (int i = 0; i < 4; i++) {
      assertArrayEquals(value(i), rocks.kv.get(Bytes.wrap(key(i))));
    }
    assertThrows(IllegalArgumentException.class, () -> new IndexWrites(rocks.kv, 0));
  }

  /** Random puts of absent keys and deletes of present ones, flushed at random, against a sorted map. */
  @Test
  void theStoreMatchesTheWritesAfterEveryFlush() {
    SplittableRandom random = new SplittableRandom(42);
    TreeMap<Bytes, byte[]> model = new TreeMap<>();
    IndexWrites writes = new IndexWrites(rocks.kv, 50);
    long ops = 0;
    for (int step = 0; step < 20_000; step++) {
      int k = random.nextInt(200);
      Bytes key = Bytes.wrap(key(k));
      if (model.containsKey(key)) {
        writes.delete(key.get());
        model.remove(key);
      } else {
        writes.putNew(key.get(), value(step));
        model.put(key, value(step));
      }
      ops++;
      if (random.nextInt(40) == 0) {
        writes.flush();
        assertEquals(model.keySet(), storeKeys(), "after step " + step);
      }
    }
    writes.flush();
    assertEquals(model.keySet(), storeKeys());
    for (var e : model.entrySet()) {
      assertArrayEquals(e.getValue(), rocks.kv.get(e.getKey()));
    }
    assertTrue(writes.cancelled() > 0, "some puts were deleted before a flush");
    assertTrue(writes.written() + 2 * writes.cancelled() <= ops, "no write applied twice");
  }

  private java.util.Set<Bytes> storeKeys() {
    java.util.Set<Bytes> out = new java.util.TreeSet<>();
    try (KeyValueIterator<Bytes, byte[]> it = rocks.kv.all()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        out.add(e.key);
      }
    }
    return out;
  }

  private static byte[] key(int i) {
    return new byte[] {0x20, (byte) (i >>> 8), (byte) i};
  }

  private static byte[] value(int i) {
    return new byte[] {(byte) i, (byte) (i >>> 8), 1};
  }
}
