package dev.ordo.topology.internal;

import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a queue task opens its {@link PriorityStore}: over the task's three state stores, its item
 * writes held on the heap until the commit when the commit hook can be attached ({@link CommitHook}),
 * then the item table checked against the state log and the items topic, rebuilt when it must be
 * ({@link ItemSources}), counted and logged.
 */
final class StoreOpening {
  private static final Logger log = LoggerFactory.getLogger(StoreOpening.class);

  private StoreOpening() {}

  /** The task's store, not yet opened; {@code pacer} is told when a commit starts. */
  static PriorityStore create(ProcessorContext<?, ?> context, QueueConfig config, int deliveriesPartitions,
      Supplier<CommitPacer> pacer) {
    KeyValueStore<Bytes, byte[]> kv = context.getStateStore(PriorityStore.STATE_STORE_NAME);
    PriorityStore store = new PriorityStore(kv, context.getStateStore(PriorityStore.STORE_NAME),
        context.getStateStore(PriorityStore.INDEX_STORE_NAME),
        config.getLong(QueueConfig.ITEM_CACHE_BYTES_CONFIG) / Math.max(1, deliveriesPartitions));
    if (CommitHook.attach(kv, () -> {
      store.flushItemWrites();
      pacer.get().commitStarted(context.currentSystemTimeMs());
    })) {
      store.holdItemWrites();
    } else {
      log.warn("The store {} has no commit hook: every change goes to RocksDB and the changelog at once",
          PriorityStore.STATE_STORE_NAME);
    }
    return store;
  }

  /** The opens of each stream thread, for how long they may index the item tables they rebuild. */
  private static final ThreadLocal<OpeningBudget> BUDGETS = ThreadLocal.withInitial(OpeningBudget::new);

  /**
   * Opens the store of {@code partition} from {@code itemSources}; true when its index can be used at
   * once (else it is rebuilt in steps). A rebuilt item table's index is rebuilt with it while this
   * thread's opens in a row have the time ({@link OpeningBudget}), the rest in steps. The item table's
   * migration and rebuild are counted and logged.
   */
  static boolean open(PriorityStore store, ItemSources itemSources, int partition, Map<String, Object> appConfigs,
      QueueMetrics metrics) {
    long opening = System.nanoTime();
    OpeningBudget budget = BUDGETS.get();
    long until = budget.indexAlongUntil(System.currentTimeMillis());
    boolean trusted;
    try {
      trusted = store.open(itemSources.open(partition, appConfigs), itemSources.legacy(partition, appConfigs),
          () -> System.currentTimeMillis() < until);
    } finally {
      budget.ended(System.currentTimeMillis());
    }
    if (store.migratedItems() > 0) {
      log.info("Partition {}: {} items of the item table an older version kept move into the state log",
          partition, store.migratedItems());
    }
    var rebuilt = store.lastItemTableRebuild();
    if (rebuilt != null) {
      metrics.increment(QueueMetrics.ITEM_TABLE_REBUILDS);
      metrics.add(QueueMetrics.ITEM_TABLE_REBUILT_ITEMS, rebuilt.items());
      metrics.add(QueueMetrics.ITEMS_LOST, rebuilt.lost());
      log.info("Partition {}: the item table was rebuilt from the state log and the items topic in {} ms: {} live"
          + " items{}; {}", partition, (System.nanoTime() - opening) / 1_000_000, rebuilt.items(),
          rebuilt.lost() == 0 ? "" : ", " + rebuilt.lost() + " LOST (their records are gone from the items topic)",
          trusted ? "its index with it" : "its index in part, the rest in steps");
    }
    return trusted;
  }
}
