package dev.ordo.topology;

import dev.ordo.api.ClusterTopics;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.internal.CommandTimestamps;
import dev.ordo.topology.internal.IntakeClock;
import dev.ordo.topology.internal.ItemSources;
import dev.ordo.topology.internal.ItemTimestamps;
import dev.ordo.topology.internal.CommitHook;
import dev.ordo.topology.internal.EarlyAnswers;
import dev.ordo.topology.internal.LoadStore;
import dev.ordo.topology.internal.NamespaceStore;
import dev.ordo.topology.internal.Out;
import dev.ordo.topology.internal.QueueProcessor;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.common.utils.Bytes;

/**
 * The queue topology: {@code items} and {@code commands} (co-partitioned, one task per partition)
 * into one processor that owns the partition's priority store, and one dynamic sink for what it
 * emits (deliveries on reply partitions, dead letters, topic stats, delay-tier envelopes).
 */
public final class QueueTopology {
  private QueueTopology() {}

  /**
   * @param deliveriesPartitions partition count of {@code deliveries}, to refuse commands whose reply
   *     partition does not exist; 0 when unknown (tests)
   */
  public static Topology build(QueueConfig config, QueueMetrics metrics, int deliveriesPartitions) {
    return build(config, metrics, TopicMeters.NONE, deliveriesPartitions);
  }

  /** The same, with per-topic meters ({@link TopicMeters}). */
  public static Topology build(QueueConfig config, QueueMetrics metrics, TopicMeters meters, int deliveriesPartitions) {
    return build(config, metrics, meters, deliveriesPartitions, EarlyAnswers.NONE);
  }

  /**
   * The same, answering requesters who wait through {@code earlyAnswers} before the commit where an
   * answer may go early (decisions D39).
   */
  public static Topology build(QueueConfig config, QueueMetrics metrics, TopicMeters meters, int deliveriesPartitions,
      EarlyAnswers earlyAnswers) {
    return build(config, metrics, meters, deliveriesPartitions, earlyAnswers, ItemSources.kafka(config));
  }

  /** The same, rebuilding item tables from {@code itemSources} (tests: the records they sent). */
  public static Topology build(QueueConfig config, QueueMetrics metrics, TopicMeters meters, int deliveriesPartitions,
      EarlyAnswers earlyAnswers, ItemSources itemSources) {
    ClusterTopics topics = config.topics();
    // The state log: changelogged; its changes are held by the processor and written at each commit
    // through the hook, one record per block of offsets changed (decisions D15, D54).
    StoreBuilder<KeyValueStore<Bytes, byte[]>> state = Stores.keyValueStoreBuilder(
            CommitHook.around(Stores.persistentKeyValueStore(PriorityStore.STATE_STORE_NAME)), Serdes.Bytes(),
            Serdes.ByteArray())
        .withCachingDisabled();
    // The item table: rebuilt from the state log and the items topic when it cannot be trusted, so no
    // changelog (decisions D54); its writes are held by the processor as well.
    StoreBuilder<KeyValueStore<Bytes, byte[]>> store = Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(PriorityStore.STORE_NAME), Serdes.Bytes(), Serdes.ByteArray())
        .withLoggingDisabled()
        .withCachingDisabled();
    // The indexes are derived from the item table and rebuilt from it when needed: no changelog, and
    // no cache either (their keys are short-lived and the store reads them through its own head cache).
    StoreBuilder<KeyValueStore<Bytes, byte[]>> index = Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(PriorityStore.INDEX_STORE_NAME), Serdes.Bytes(), Serdes.ByteArray())
        .withLoggingDisabled()
        .withCachingDisabled();
    Topology topology = new Topology();
    // No reset policy of their own (null): the application's. The intake clock tells the commands'
    // extractor how far the intake has read (decisions D46).
    IntakeClock intake = new IntakeClock();
    topology.addSource((org.apache.kafka.streams.AutoOffsetReset) null, "items", new ItemTimestamps(intake),
        new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.items());
    topology.addSource((org.apache.kafka.streams.AutoOffsetReset) null, "commands",
        new CommandTimestamps(config.intakeLeadMs(), intake, System::currentTimeMillis), new ByteArrayDeserializer(),
        new ByteArrayDeserializer(), topics.commands());
    topology.addProcessor("queue", () -> new QueueProcessor(config, metrics, meters, deliveriesPartitions, earlyAnswers,
        null, itemSources), "items", "commands");
    topology.addStateStore(state, "queue");
    topology.addStateStore(store, "queue");
    topology.addStateStore(index, "queue");
    // Purge jobs' progress on the partition: changelogged, so a job goes on after a failover from what
    // its committed deletions left (decisions D56).
    topology.addStateStore(Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(dev.ordo.topology.internal.PurgeJobs.STORE), Serdes.Bytes(),
            Serdes.ByteArray()).withCachingDisabled(), "queue");
    // Deduplication IDs taken in, until their window ends: changelogged, so a duplicate is refused
    // after a restart or a failover, and committed with the intake it guards (decisions D57).
    topology.addStateStore(Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(dev.ordo.topology.internal.DedupWindow.STORE), Serdes.Bytes(),
            Serdes.ByteArray()).withCachingDisabled(), "queue");
    topology.addSink("out", Out.TOPIC, Out.KEY_SERIALIZER, new ByteArraySerializer(), Out.PARTITIONER, "queue");
    // Namespace policies: every instance holds them all, read by every partition's processor.
    topology.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(NamespaceStore.NAME),
            Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled(),
        "namespaces", new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.namespaces(),
        "namespaces-updater", NamespaceStore.Updater::new);
    // Every partition's counts and arrival rates: each partition's share of a namespace's limits.
    topology.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(LoadStore.NAME),
            Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled(),
        "topic-load", new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.topicStats(),
        "topic-load-updater", LoadStore.Updater::new);
    return topology;
  }

  /**
   * Kafka Streams settings that bound RocksDB's memory ({@link BoundedRocksDbMemory}): the config
   * setter and the budget it reads; none when {@link QueueConfig#ROCKSDB_MEMORY_BYTES_CONFIG} is 0.
   * A {@code rocksdb.config.setter} of the user's, laid over these, replaces the bound.
   */
  public static Map<String, Object> rocksDbDefaults(QueueConfig config) {
    long bytes = config.getLong(QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG);
    if (bytes == 0) {
      return Map.of();
    }
    return Map.of(
        StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbMemory.class,
        QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG, bytes,
        QueueConfig.ROCKSDB_WRITE_BUFFER_RATIO_CONFIG, config.getDouble(QueueConfig.ROCKSDB_WRITE_BUFFER_RATIO_CONFIG));
  }

  /** Kafka Streams settings Ordo relies on, to lay over the user's. */
  public static Map<String, Object> streamsDefaults(ClusterTopics topics) {
    return Map.of(
        StreamsConfig.APPLICATION_ID_CONFIG, topics.applicationId(),
        StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2,
        StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 20,
        // The stream thread checks commits and wall-clock punctuations only between polls; Kafka
        // Streams' 100 ms would hold an idle partition's commit (and so its answers) and its 20 ms
        // timers up to 100 ms (decisions D19).
        StreamsConfig.POLL_MS_CONFIG, 5,
        // A transaction begun right after a commit can find the last one's markers still being
        // written and is retried after retry.backoff.ms (100 ms by default): with commits asked for
        // by answers (ordo.reply.commit.gap.ms) that stalled one answer in ten by 100-170 ms here.
        StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), 5,
        // A standby on another instance keeps each partition's item table restored, so a failover
        // does not replay the changelog first (decisions D18); with one instance it has nowhere to run.
        StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1,
        // A killed instance's open transaction holds back read_committed readers of its partitions
        // (the survivor's restore and processing) until the broker aborts it: after this timeout,
        // at the broker's next clean-up. Kafka Streams' 10 s made a failover take 16 s; the
        // queue's transactions last a commit interval (20 ms), so 5 s leaves ample room (decisions D28).
        StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 5_000,
        // The stream thread polls only once it has processed everything a poll gave it, and a poll
        // hands out one partition's fetched records before the next partition's. With Kafka's 1 MiB
        // per partition per fetch, a busy commands partition's backlog held back a new item, a
        // taken-over partition's first records and the thread's own rejoin for seconds under load
        // (decisions D34); small fetches per partition keep the partitions interleaved and the polls frequent.
        StreamsConfig.mainConsumerPrefix(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG),
        MAIN_CONSUMER_PARTITION_FETCH_BYTES,
        // A batch that fills is sent at once: with Kafka's 16 KiB the stream thread's producer sent a
        // request every ~20 items (deliveries carry the items), a quarter of an item's CPU in the broker's
        // request handling and network threads. Large batches go once per commit, or linger (decisions D66).
        StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), STREAM_PRODUCER_BATCH_BYTES);
  }

  /** The stream threads' producers batch up to this much per partition (decisions D66). */
  public static final int STREAM_PRODUCER_BATCH_BYTES = 262_144;

  /**
   * Under at-least-once the stream threads' producers send what waits at most this long after it was
   * written (Kafka Streams' 100 ms would hold the deliveries to a commit); under exactly-once nothing
   * is visible before the commit, so Kafka Streams' linger stands and the commit sends (decisions D66).
   */
  public static final int AT_LEAST_ONCE_PRODUCER_LINGER_MS = 5;

  /** The stream threads' consumers fetch at most this much of a partition at a time (decisions D34, D37). */
  public static final int MAIN_CONSUMER_PARTITION_FETCH_BYTES = 32_768;
}
