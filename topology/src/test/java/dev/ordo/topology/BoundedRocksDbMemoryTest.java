package dev.ordo.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.topology.BoundedRocksDbMemory.Budget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.internals.BlockBasedTableConfigWithAccessibleCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** The bound on RocksDB's memory (decisions D33): one cache and write buffer manager per budget. */
class BoundedRocksDbMemoryTest {
  static {
    RocksDB.loadLibrary();
  }

  /** Native objects of a test, closed after it (the shared cache and write buffer manager are not). */
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void closeNative() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  /** Options as Kafka Streams' RocksDBStore makes them before it calls the config setter. */
  private Options kafkaStreamsOptions() {
    Options options = new Options();
    BlockBasedTableConfigWithAccessibleCache table = new BlockBasedTableConfigWithAccessibleCache();
    Cache own = new LRUCache(50L << 20);
    BloomFilter filter = new BloomFilter();
    table.setBlockCache(own);
    table.setBlockSize(4096L);
    table.setFilterPolicy(filter);
    options.setTableFormatConfig(table);
    options.setWriteBufferSize(16L << 20);
    options.setMaxWriteBufferNumber(3);
    opened.add(options);
    opened.add(own);
    opened.add(filter);
    return options;
  }

  private static BlockBasedTableConfigWithAccessibleCache table(Options options) {
    return (BlockBasedTableConfigWithAccessibleCache) options.tableFormatConfig();
  }

  private static Map<String, Object> budget(Object bytes, Object ratio) {
    Map<String, Object> configs = new HashMap<>();
    configs.put(QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG, bytes);
    configs.put(QueueConfig.ROCKSDB_WRITE_BUFFER_RATIO_CONFIG, ratio);
    return configs;
  }

  @Test
  void twoStoresWithTheSameBudgetShareOneCacheAndOneWriteBufferManager() {
    Map<String, Object> configs = budget(40L << 20, 0.25);
    Options a = kafkaStreamsOptions();
    Options b = kafkaStreamsOptions();
    BlockBasedTableConfigWithAccessibleCache tableA = table(a);
    Cache ownOfA = tableA.blockCache();

    new BoundedRocksDbMemory().setConfig("ordo-queue", a, configs);
    new BoundedRocksDbMemory().setConfig("ordo-queue-index", b, configs);

    BoundedRocksDbMemory.Shared shared = BoundedRocksDbMemory.shared(new Budget(40L << 20, 0.25));
    assertSame(shared.cache(), table(a).blockCache());
    assertSame(shared.cache(), table(b).blockCache(), "both stores use one cache");
    assertNotSame(ownOfA, table(a).blockCache(), "Kafka Streams' own cache of the store is replaced");
    assertSame(shared.writeBuffers(), a.writeBufferManager());
    assertSame(shared.writeBuffers(), b.writeBufferManager(), "both stores use one write buffer manager");
    for (Options o : List.of(a, b)) {
      BlockBasedTableConfigWithAccessibleCache t = table(o);
      assertTrue(t.cacheIndexAndFilterBlocks(), "index and filter blocks are counted in the cache");
      assertTrue(t.cacheIndexAndFilterBlocksWithHighPriority());
      assertTrue(t.pinTopLevelIndexAndFilter());
      assertTrue(t.pinL0FilterAndIndexBlocksInCache());
      assertEquals(4096L, t.blockSize(), "Kafka Streams' block size is kept");
      assertTrue(t.filterPolicy() instanceof BloomFilter, "Kafka Streams' Bloom filter is kept");
      assertEquals(16L << 20, o.writeBufferSize(), "Kafka Streams' memtable size is kept");
      assertEquals(3, o.maxWriteBufferNumber());
    }
    assertSame(tableA, a.tableFormatConfig(), "Kafka Streams' table config is modified, not replaced");
  }

  @Test
  void anotherBudgetHasItsOwnCacheAndTheSameBudgetAgainFindsTheFirst() {
    Options a = kafkaStreamsOptions();
    Options b = kafkaStreamsOptions();
    Options c = kafkaStreamsOptions();
    new BoundedRocksDbMemory().setConfig("s", a, budget(41L << 20, 0.25));
    new BoundedRocksDbMemory().setConfig("s", b, budget(42L << 20, 0.25));
    // As a properties file gives them: strings.
    new BoundedRocksDbMemory().setConfig("s", c, budget(String.valueOf(41L << 20), "0.25"));
    assertNotSame(table(a).blockCache(), table(b).blockCache());
    assertNotSame(a.writeBufferManager(), b.writeBufferManager());
    assertSame(table(a).blockCache(), table(c).blockCache());
    assertSame(a.writeBufferManager(), c.writeBufferManager());
  }

  @Test
  void aBudgetOfZeroLeavesKafkaStreamsOptionsAsTheyAre() {
    Options o = kafkaStreamsOptions();
    BlockBasedTableConfigWithAccessibleCache before = table(o);
    Cache own = before.blockCache();

    new BoundedRocksDbMemory().setConfig("ordo-queue", o, budget(0L, 0.5));

    assertSame(before, o.tableFormatConfig());
    assertSame(own, table(o).blockCache(), "the store keeps its own cache");
    assertNull(o.writeBufferManager(), "no write buffer manager");
    BlockBasedTableConfig untouched = new BlockBasedTableConfig();
    assertEquals(untouched.cacheIndexAndFilterBlocks(), table(o).cacheIndexAndFilterBlocks());
    assertEquals(untouched.cacheIndexAndFilterBlocksWithHighPriority(),
        table(o).cacheIndexAndFilterBlocksWithHighPriority());
    assertEquals(untouched.pinL0FilterAndIndexBlocksInCache(), table(o).pinL0FilterAndIndexBlocksInCache());
    assertEquals(untouched.pinTopLevelIndexAndFilter(), table(o).pinTopLevelIndexAndFilter());
  }

  @Test
  void theBudgetComesFromTheStreamsConfigWithQueueConfigsDefaultsAndChecks() {
    assertEquals(new Budget(256L << 20, 0.5), BoundedRocksDbMemory.budget(Map.of()), "QueueConfig's defaults");
    assertEquals(new Budget(1_048_576L, 0.3), BoundedRocksDbMemory.budget(budget(1_048_576, 0.3)), "an Integer");
    assertThrows(ConfigException.class, () -> BoundedRocksDbMemory.budget(budget(-1L, 0.5)));
    assertThrows(ConfigException.class, () -> BoundedRocksDbMemory.budget(budget(1L << 20, 1.0)));
    assertThrows(ConfigException.class, () -> BoundedRocksDbMemory.budget(budget("lots", 0.5)));
  }

  @Test
  void theQueuesStreamsConfigNamesTheSetterAndTheBudgetAndAUsersSetterWins() {
    QueueConfig defaults = new QueueConfig(Map.of());
    Map<String, Object> props = QueueService.streamsProperties(defaults, Map.of(), 4);
    assertEquals(BoundedRocksDbMemory.class, props.get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG));
    assertEquals(256L << 20, props.get(QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG));
    assertEquals(0.5, props.get(QueueConfig.ROCKSDB_WRITE_BUFFER_RATIO_CONFIG));
    // What StreamsConfig hands the setter (appConfigs: its originals) reads back as the same budget.
    assertEquals(new Budget(256L << 20, 0.5), BoundedRocksDbMemory.budget(
        new StreamsConfig(withClientSettings(props)).originals()));

    Map<String, Object> mine = QueueService.streamsProperties(defaults,
        Map.of(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, "com.example.MySetter"), 4);
    assertEquals("com.example.MySetter", mine.get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG));

    QueueConfig unbounded = new QueueConfig(Map.of(QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG, "0"));
    Map<String, Object> none = QueueService.streamsProperties(unbounded, Map.of(), 4);
    assertFalse(none.containsKey(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG), "0: Kafka Streams' defaults");
    assertFalse(none.containsKey(QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG));
  }

  private static Map<String, Object> withClientSettings(Map<String, Object> props) {
    Map<String, Object> p = new HashMap<>(props);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    return p;
  }

  @Test
  void theTopologysStoresOpenWithTheSharedCacheAndChargeItTheirMemtables() {
    // A budget no other test uses, so its cache starts empty.
    long bytes = (43L << 20) + 1;
    Cache cache = BoundedRocksDbMemory.shared(new Budget(bytes, 0.5)).cache();
    assertEquals(0, cache.getUsage());
    try (QueueDriver q = new QueueDriver(Map.of(QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG, bytes))) {
      for (int i = 0; i < 100; i++) {
        q.enqueue(QueueDriver.item("t", i % 10).build());
      }
      q.demand(QueueDriver.ALICE, "t", 10);
      assertEquals(10, q.delivered().size());
      assertTrue(cache.getUsage() > 0, "the stores' memtables are charged to the shared cache");
    }
  }
}
