package dev.ordo.topology;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.TableFormatConfig;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds the off-heap memory of every RocksDB store in the process (Kafka Streams'
 * {@code rocksdb.config.setter}; decisions D33). Kafka Streams gives each store instance its own
 * 50 MB block cache and up to three 16 MB memtables, and keeps index and filter blocks outside any
 * cache: nothing bounds the total, which grows with the tasks an instance holds (active and standby)
 * and with the data. This is the bounded-memory configuration of Kafka Streams' memory-management
 * docs: every store shares one {@link LRUCache} of {@link QueueConfig#ROCKSDB_MEMORY_BYTES_CONFIG}
 * bytes; index and filter blocks live in it (high priority; the top-level and level-0 ones pinned); and
 * one {@link WriteBufferManager} charges the memtables of every store to the same cache and makes
 * RocksDB flush once they pass {@link QueueConfig#ROCKSDB_WRITE_BUFFER_RATIO_CONFIG} of it.
 *
 * <p>Reads both keys from the Kafka Streams config it is given ({@link QueueService} copies them
 * there from {@link QueueConfig}); a missing key takes {@link QueueConfig}'s default. A budget of 0
 * leaves the options as Kafka Streams set them. Every store configured with the same budget and
 * ratio shares one cache and write buffer manager per JVM (several queue instances in one process,
 * as tests run them, share them too), created on first use and never closed: a store's
 * {@link #close} must not close what other stores still use, and a budget's cache lives as long as
 * the process. Thread-safe. The bound is soft, as RocksDB's is without a strict capacity limit (which
 * would fail reads when the cache is full): blocks pinned by open iterators may pass it briefly.
 * Not counted: Kafka Streams' small "offsets" column family's table reader (its memtable is
 * counted), and the allocator's own overhead.
 *
 * <p>To tune RocksDB further and keep the bound, call {@link #setConfig} from a setter of your own.
 */
public final class BoundedRocksDbMemory implements RocksDBConfigSetter {
  /**
   * Share of the cache kept for index and filter blocks, inserted with high priority so data blocks
   * do not push them out (LRUCache's high-priority pool).
   */
  static final double INDEX_FILTER_SHARE = 0.1;

  /** One cache and write buffer manager per budget. */
  record Budget(long bytes, double writeBufferRatio) {}

  /** What the stores of one budget share. */
  record Shared(Cache cache, WriteBufferManager writeBuffers) {}

  private static final Map<Budget, Shared> SHARED = new ConcurrentHashMap<>();

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    Budget budget = budget(configs);
    if (budget.bytes() == 0) {
      return;
    }
    TableFormatConfig format = options.tableFormatConfig();
    if (!(format instanceof BlockBasedTableConfig)) {
      throw new IllegalStateException("RocksDB store " + storeName + " has no block-based table format to bound ("
          + format + ")");
    }
    Shared shared = shared(budget);
    // Kafka Streams' own table config, modified (not replaced: it keeps Kafka Streams' block size and
    // Bloom filter, and its metrics read the cache from it).
    BlockBasedTableConfig table = (BlockBasedTableConfig) format;
    table.setBlockCache(shared.cache());
    table.setCacheIndexAndFilterBlocks(true);
    table.setCacheIndexAndFilterBlocksWithHighPriority(true);
    table.setPinTopLevelIndexAndFilter(true);
    table.setPinL0FilterAndIndexBlocksInCache(true);
    options.setWriteBufferManager(shared.writeBuffers());
    options.setTableFormatConfig(table);
  }

  @Override
  public void close(String storeName, Options options) {
    // The cache and the write buffer manager are shared by every store of the budget: never closed.
  }

  /** The cache and write buffer manager of {@code budget}, made on first use. */
  static Shared shared(Budget budget) {
    return SHARED.computeIfAbsent(budget, b -> {
      RocksDB.loadLibrary();
      Cache cache = new LRUCache(b.bytes(), -1, false, INDEX_FILTER_SHARE);
      return new Shared(cache, new WriteBufferManager((long) (b.bytes() * b.writeBufferRatio()), cache));
    });
  }

  /** The budget the Kafka Streams config sets; QueueConfig's defaults where it sets none. */
  static Budget budget(Map<String, ?> configs) {
    long bytes = (Long) value(configs, QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG);
    double ratio = (Double) value(configs, QueueConfig.ROCKSDB_WRITE_BUFFER_RATIO_CONFIG);
    return new Budget(bytes, ratio);
  }

  private static Object value(Map<String, ?> configs, String key) {
    ConfigDef.ConfigKey k = QueueConfig.CONFIG.configKeys().get(key);
    Object raw = configs.get(key);
    Object parsed = raw == null ? k.defaultValue : ConfigDef.parseType(key, raw, k.type);
    if (k.validator != null) {
      k.validator.ensureValid(key, parsed);
    }
    return parsed;
  }
}
