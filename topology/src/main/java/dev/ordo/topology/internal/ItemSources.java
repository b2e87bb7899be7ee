package dev.ordo.topology.internal;

import dev.ordo.store.ItemSource;
import dev.ordo.store.LegacyItemTable;
import dev.ordo.topology.QueueConfig;
import java.util.Map;

/** Where a task reads its partition of the items topic back from, to rebuild its item table. */
@FunctionalInterface
public interface ItemSources {
  /** The source of {@code partition}, given the Kafka Streams app's settings. */
  ItemSource open(int partition, Map<String, Object> appConfigs);

  /** Where an item table kept by a version before the state log is, for a one-time migration: nowhere by default. */
  default LegacyItemTable legacy(int partition, Map<String, Object> appConfigs) {
    return LegacyItemTable.NONE;
  }

  /**
   * A consumer of the cluster's items topic, with the app's restore consumer's settings
   * ({@link KafkaItemSource}); the old item table's changelog ({@link KafkaLegacyItemTable}).
   */
  static ItemSources kafka(QueueConfig config) {
    return new ItemSources() {
      @Override
      public ItemSource open(int partition, Map<String, Object> appConfigs) {
        return KafkaItemSource.of(appConfigs, config.topics().items(), partition, config.wireFormat());
      }

      @Override
      public LegacyItemTable legacy(int partition, Map<String, Object> appConfigs) {
        return new KafkaLegacyItemTable(appConfigs, partition);
      }
    };
  }
}
