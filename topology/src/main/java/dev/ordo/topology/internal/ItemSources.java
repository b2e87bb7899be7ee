package dev.ordo.topology.internal;

import dev.ordo.store.ItemSource;
import dev.ordo.topology.QueueConfig;
import java.util.Map;

/** Where a task reads its partition of the items topic back from, to rebuild its item table. */
@FunctionalInterface
public interface ItemSources {
  /** The source of {@code partition}, given the Kafka Streams app's settings. */
  ItemSource open(int partition, Map<String, Object> appConfigs);

  /** A consumer of the cluster's items topic, with the app's restore consumer's settings ({@link KafkaItemSource}). */
  static ItemSources kafka(QueueConfig config) {
    return (partition, appConfigs) -> KafkaItemSource.of(appConfigs, config.topics().items(), partition,
        config.wireFormat());
  }
}
