package dev.ordo.topology;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Item;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.ReEntry;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.schema.TopicStats;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The queue topology under {@link TopologyTestDriver}, with the calls a consumer would make. */
final class QueueDriver implements AutoCloseable {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final Requester ALICE = new Requester("alice", 0);
  static final Requester BOB = new Requester("bob", 0);

  final ClusterTopics topics = new ClusterTopics("ordo");
  final QueueMetrics metrics = new QueueMetrics();
  /** The per-topic meters, on the driver's own clock. */
  final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
      new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
  final TopologyTestDriver driver;
  private final TestInputTopic<byte[], byte[]> items;
  private final TestInputTopic<byte[], byte[]> commands;
  private final TestInputTopic<byte[], byte[]> namespaces;
  private final TestOutputTopic<byte[], byte[]> deliveries;
  private final TestOutputTopic<byte[], byte[]> dlq;
  private final TestOutputTopic<byte[], byte[]> stats;
  private final TestOutputTopic<byte[], byte[]> purges;
  private long nextOffset = 0;
  private final List<DeliveredItem> delivered = new ArrayList<>();
  private final List<Outcome> outcomes = new ArrayList<>();
  private final List<dev.ordo.schema.Enqueued> enqueued = new ArrayList<>();

  QueueDriver() {
    this(Map.of());
  }

  QueueDriver(Map<String, Object> overrides) {
    Map<String, Object> cfg = new HashMap<>();
    cfg.put(QueueConfig.CLUSTER_CONFIG, "ordo");
    cfg.putAll(overrides);
    QueueConfig config = new QueueConfig(cfg);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    try {
      props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ordo-ttd").toString());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    // RocksDB's memory bounded as QueueService bounds it (BoundedRocksDbMemory).
    props.putAll(QueueTopology.rocksDbDefaults(config));
    TopicMeters meters = new TopicMeters(registry, 100, Duration.ofMinutes(5), metrics, this::now);
    // A new state directory: the item table is never rebuilt from the items topic, and no older table is looked for.
    driver = new TopologyTestDriver(QueueTopology.build(config, metrics, meters, 0,
        dev.ordo.topology.internal.EarlyAnswers.NONE, (partition, app) -> dev.ordo.store.ItemSource.NONE), props, T0);
    items = driver.createInputTopic(topics.items(), new ByteArraySerializer(), new ByteArraySerializer(), T0, Duration.ZERO);
    commands = driver.createInputTopic(topics.commands(), new ByteArraySerializer(), new ByteArraySerializer(), T0, Duration.ZERO);
    deliveries = driver.createOutputTopic(topics.deliveries(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    dlq = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    stats = driver.createOutputTopic(topics.topicStats(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    purges = driver.createOutputTopic(topics.purges(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    namespaces = driver.createInputTopic(topics.namespaces(), new ByteArraySerializer(), new ByteArraySerializer(), T0,
        Duration.ZERO);
  }

  static Item.Builder item(String topic, int priority) {
    return Item.newBuilder()
        .setNamespace("ns")
        .setTopic(topic)
        .setPriority(priority)
        .setPayload(ByteBuffer.wrap(("p" + priority).getBytes(StandardCharsets.UTF_8)));
  }

  private long deliveryRecords;

  long now() {
    return T0.toEpochMilli() + elapsed;
  }

  private long elapsed = 0;

  void advance(Duration d) {
    // Step in punctuation-sized slices, as a real wall clock would fire them.
    long left = d.toMillis();
    while (left > 0) {
      long step = Math.min(left, 10);
      driver.advanceWallClockTime(Duration.ofMillis(step));
      elapsed += step;
      left -= step;
    }
  }

  /** Enqueues and returns the item ID. */
  String enqueue(Item item) {
    return enqueueRaw(OrdoSerdes.ITEM.encode(item));
  }

  /** Enqueues an item as a dead-letter redrive sends it back (with its link header). */
  String enqueueRedriven(Item item) {
    org.apache.kafka.common.header.internals.RecordHeaders headers = new org.apache.kafka.common.header.internals.RecordHeaders();
    headers.add("ordo.redriven.from", "2-0".getBytes(StandardCharsets.UTF_8));
    items.pipeInput(new TestRecord<>(null, OrdoSerdes.ITEM.encode(item), headers, Instant.ofEpochMilli(now())));
    return "0-" + nextOffset++;
  }

  /** Enqueues an item in a record with these Kafka headers and returns the item ID. */
  String enqueue(Item item, org.apache.kafka.common.header.Headers headers) {
    items.pipeInput(new TestRecord<>(null, OrdoSerdes.ITEM.encode(item), headers, Instant.ofEpochMilli(now())));
    return "0-" + nextOffset++;
  }

  String enqueueRaw(byte[] value) {
    items.pipeInput(new TestRecord<>(null, value, Instant.ofEpochMilli(now())));
    return "0-" + nextOffset++;
  }

  void command(Requester requester, Object body) {
    commandRaw(OrdoSerdes.COMMAND.encode(new Command(requester, now(), body, false, null)));
  }

  void commandRaw(byte[] value) {
    commands.pipeInput(new TestRecord<>(null, value, Instant.ofEpochMilli(now())));
  }

  /** Writes a namespace's policy to the namespaces topic (null: a tombstone). */
  void policy(String namespace, dev.ordo.schema.NamespacePolicy policy) {
    namespaces.pipeInput(namespace.getBytes(StandardCharsets.UTF_8),
        policy == null ? null : OrdoSerdes.NAMESPACE_POLICY.encode(policy), now());
  }

  void demand(Requester r, String topic, int n) {
    demand(r, Map.of(topic, n), Duration.ofSeconds(30));
  }

  void demand(Requester r, Map<String, Integer> topics, Duration validFor) {
    demand(r, "ns", topics, validFor);
  }

  void demand(Requester r, String namespace, Map<String, Integer> topics, Duration validFor) {
    command(r, new Demand(namespace, new HashMap<>(topics), validFor.toMillis(), true, false, false, -1L, 0L));
  }

  void ack(DeliveredItem d) {
    command(ALICE, new Ack(d.getItemId(), d.getLeaseId()));
  }

  void ack(String id, String lease) {
    command(ALICE, new Ack(id, lease));
  }

  void nack(DeliveredItem d, long delayMs, String metadata) {
    command(ALICE, new Nack(d.getItemId(), d.getLeaseId(), delayMs,
        metadata == null ? null : ByteBuffer.wrap(metadata.getBytes(StandardCharsets.UTF_8)), "boom", false));
  }

  void extend(DeliveredItem d, long ms) {
    command(ALICE, new Extend(d.getItemId(), d.getLeaseId(), ms));
  }

  void release(DeliveredItem d) {
    command(ALICE, new Release(d.getItemId(), d.getLeaseId(), null));
  }

  void cancel(String id) {
    command(ALICE, new Cancel(id));
  }

  void reEntry(String id, long dueAt) {
    command(null, new ReEntry(id, dueAt));
  }

  /** The offset the next enqueue gets. */
  long nextOffset() {
    return nextOffset;
  }

  /** The purge progress records published since the last call, in order. */
  List<dev.ordo.schema.PurgeProgress> purgeProgress() {
    return purges.readValuesToList().stream().map(dev.ordo.serde.OrdoSerdes.PURGE_PROGRESS::decode).toList();
  }

  /** Everything delivered to requesters since the last call. */
  List<DeliveredItem> delivered() {
    drainDeliveries();
    List<DeliveredItem> out = new ArrayList<>(delivered);
    delivered.clear();
    return out;
  }

  /** The answers to enqueues that asked for one (header ordo.reply.to) since the last call. */
  List<dev.ordo.schema.Enqueued> enqueueAnswers() {
    drainDeliveries();
    List<dev.ordo.schema.Enqueued> out = new ArrayList<>(enqueued);
    enqueued.clear();
    return out;
  }

  /** The records of a store's changelog since the last call (key, value; null for a tombstone). */
  List<org.apache.kafka.streams.KeyValue<byte[], byte[]>> changelog(String store) {
    TestOutputTopic<byte[], byte[]> t = driver.createOutputTopic("ordo-test-" + store + "-changelog",
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    return t.readKeyValuesToList();
  }

  List<Outcome> outcomes() {
    drainDeliveries();
    List<Outcome> out = new ArrayList<>(outcomes);
    outcomes.clear();
    return out;
  }

  /** How many records reached the deliveries topic so far (items and outcomes alike). */
  long deliveryRecords() {
    drainDeliveries();
    return deliveryRecords;
  }

  private void drainDeliveries() {
    for (TestRecord<byte[], byte[]> r : deliveries.readRecordsToList()) {
      deliveryRecords++;
      Delivery d = OrdoSerdes.DELIVERY.decode(r.value());
      if (d.getBody() instanceof DeliveredItem item) {
        delivered.add(item);
      } else if (d.getBody() instanceof dev.ordo.schema.DeliveredItems many) {
        delivered.addAll(many.getItems());
      } else if (d.getBody() instanceof dev.ordo.schema.Outcomes many) {
        outcomes.addAll(many.getOutcomes());
      } else if (d.getBody() instanceof dev.ordo.schema.Enqueued answer) {
        enqueued.add(answer);
      } else {
        outcomes.add((Outcome) d.getBody());
      }
    }
  }

  /** The dead-letter records since the last call, with their Kafka headers. */
  List<TestRecord<byte[], byte[]>> deadLetterRecords() {
    return dlq.readRecordsToList();
  }

  /** The values of the queue store's changelog records since the last call (null for tombstones). */
  /** The values the state store's changelog got since the last call. */
  List<byte[]> changelogValues() {
    TestOutputTopic<byte[], byte[]> t = driver.createOutputTopic("ordo-test-" + dev.ordo.store.PriorityStore.STATE_STORE_NAME
        + "-changelog", new ByteArrayDeserializer(), new ByteArrayDeserializer());
    return t.readValuesToList();
  }

  List<DeadLetter> deadLetters() {
    return dlq.readValuesToList().stream().map(OrdoSerdes.DEAD_LETTER::decode).toList();
  }

  /** Stats records since the last call: key → value (null for a tombstone). */
  List<Map.Entry<String, TopicStats>> stats() {
    List<Map.Entry<String, TopicStats>> out = new ArrayList<>();
    for (TestRecord<byte[], byte[]> r : stats.readRecordsToList()) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      out.add(new java.util.AbstractMap.SimpleEntry<>(key, r.value() == null ? null : OrdoSerdes.TOPIC_STATS.decode(r.value())));
    }
    return out;
  }

  /** Keys of every record written to the queue store's changelog so far (tombstones included). */
  /** The keys the state store's changelog got since the last call. */
  List<byte[]> changelogKeys() {
    TestOutputTopic<byte[], byte[]> t = driver.createOutputTopic("ordo-test-" + dev.ordo.store.PriorityStore.STATE_STORE_NAME
        + "-changelog", new ByteArrayDeserializer(), new ByteArrayDeserializer());
    return t.readRecordsToList().stream().map(TestRecord::key).toList();
  }

  /** The records the state store's changelog got since the last call. */
  List<TestRecord<byte[], byte[]>> changelogRecords() {
    return driver.createOutputTopic("ordo-test-" + dev.ordo.store.PriorityStore.STATE_STORE_NAME + "-changelog",
        new ByteArrayDeserializer(), new ByteArrayDeserializer()).readRecordsToList();
  }

  /** The records the item table's changelog got: none, it has none (decisions D54). */
  List<byte[]> itemTableChangelogKeys() {
    TestOutputTopic<byte[], byte[]> t = driver.createOutputTopic("ordo-test-" + dev.ordo.store.PriorityStore.STORE_NAME
        + "-changelog", new ByteArrayDeserializer(), new ByteArrayDeserializer());
    return t.readRecordsToList().stream().map(TestRecord::key).toList();
  }

  /**
   * Keys in the index store after the next tick, which applies the index writes the store holds back
   * on the heap (writes undone before then never reach the store): a second later, since a quiet task
   * takes only the coarse tick ({@code Ticks}).
   */
  List<byte[]> indexKeys() {
    advance(Duration.ofMillis(1_000));
    List<byte[]> out = new ArrayList<>();
    org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]> index =
        driver.getKeyValueStore(dev.ordo.store.PriorityStore.INDEX_STORE_NAME);
    try (var it = index.all()) {
      it.forEachRemaining(kv -> out.add(kv.key.get()));
    }
    return out;
  }

  List<DelayedRecord> tier(String name) {
    TestOutputTopic<byte[], byte[]> t = driver.createOutputTopic(name, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    return t.readValuesToList().stream().map(OrdoSerdes.DELAYED_RECORD::decode).toList();
  }

  @Override
  public void close() {
    driver.close();
  }
}
