package dev.ordo.topology;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import dev.ordo.topology.internal.QueueDefaults;
import dev.ordo.serde.WireFormat;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/** Settings of the queue topology. Every key has a default; see each {@code *_DOC}. */
public final class QueueConfig extends AbstractConfig {
  public static final String CLUSTER_CONFIG = "ordo.cluster";
  private static final String CLUSTER_DOC = "Name of the Ordo cluster: the prefix of its topics.";

  public static final String LEASE_MS_CONFIG = "ordo.lease.default.ms";
  private static final String LEASE_MS_DOC = "Lease of an item that sets none. Longer: a crashed consumer's items wait"
      + " longer before redelivery. Shorter: slow handlers must heartbeat (extend) more often or lose the item.";

  public static final String MAX_ATTEMPTS_CONFIG = "ordo.max.attempts.default";
  private static final String MAX_ATTEMPTS_DOC = "Deliveries of an item that sets no maxAttempts before a nack or a"
      + " lost lease sends it to the dead-letter topic.";

  public static final String TTL_MS_CONFIG = "ordo.ttl.default.ms";
  private static final String TTL_MS_DOC = "Time to live of an item that sets none; 0 means items live until acked.";

  public static final String DLQ_MAX_RECORD_BYTES_CONFIG = "ordo.dlq.max.record.bytes";
  private static final String DLQ_MAX_RECORD_BYTES_DOC = "Largest dead letter written with the raw record it came of"
      + " (key and value bytes); a larger one is written without them, naming where the record is. Keep it under"
      + " the queue producer's max.request.size and the dead-letter topic's max.message.bytes: a record Kafka"
      + " refuses fails the stream thread's transaction, and the record would be retried forever.";
  public static final String PAYLOAD_MAX_BYTES_CONFIG = "ordo.payload.max.bytes";
  private static final String PAYLOAD_MAX_BYTES_DOC = "Largest payload accepted; larger items are dead-lettered"
      + " with reason INVALID and their raw bytes, never stored.";

  public static final String HEADERS_MAX_BYTES_CONFIG = "ordo.headers.max.bytes";
  private static final String HEADERS_MAX_BYTES_DOC = "Largest total size of an item's headers (the Kafka headers"
      + " of its enqueue record: every name's UTF-8 bytes plus every value's bytes), counted apart from the payload."
      + " Headers travel with the item on every delivery, in the store and on the dead-letter topic, so they cost"
      + " on every lease; an item over the limit is dead-lettered with reason INVALID and its raw bytes and headers,"
      + " never stored. Keep it equal to the producers' own " + "ordo.headers.max.bytes.";

  public static final String PUNCTUATE_MS_CONFIG = "ordo.punctuate.interval.ms";
  private static final String PUNCTUATE_MS_DOC = "How often (wall clock) a partition scans its timers (delays,"
      + " lease expiries, TTLs) while one may fall due within the next second, or time-driven work waits (an index"
      + " rebuild, items in OVERFLOW, demand under a dispatch rate). Sets the lateness of delays and expiries. A"
      + " partition with none of these ticks once per ordo.stats.interval.ms (at most a second), at the same instants"
      + " as the instance's other partitions: Kafka Streams commits a partition after each tick (decisions D38).";

  public static final String STATS_MS_CONFIG = "ordo.stats.interval.ms";
  private static final String STATS_MS_DOC = "At most how often a changed topic's counts are published to"
      + " <cluster>.topics.";

  public static final String REDELIVERY_DELAY_MS_CONFIG = "ordo.redelivery.delay.ms";
  private static final String REDELIVERY_DELAY_MS_DOC = "Wait before an at-least-once item whose lease ran out is"
      + " ready again. 0: at once.";

  public static final String REBUILD_STEP_CONFIG = "ordo.index.rebuild.step";
  private static final String REBUILD_STEP_DOC = "When a partition's task must rebuild its index store in steps (an"
      + " index store left unvouched or in an older layout; after a takeover or a crash, what the item table's own rebuild"
      + " had no time to index, decisions D67), how many items each punctuation indexes; the partition dispatches"
      + " nothing until it is done, and its stream thread goes on processing records between steps. About 2.5 µs an"
      + " item here (50 ms a step); larger steps rebuild sooner (each step also waits for a punctuation and a"
      + " commit), smaller ones hold the thread's other partitions up less per step.";

  public static final String TIMER_BATCH_CONFIG = "ordo.timer.batch.max";
  private static final String TIMER_BATCH_DOC = "Most timers of each kind fired by one punctuation, which bounds"
      + " the work (and the transaction) of one punctuation; the rest fire on the next.";

  /** {@link #DISPATCH_STEP_CONFIG}'s default: no bound (docs/benchmarks.md at 328b420, "Dispatch steps"). */
  public static final int DEFAULT_DISPATCH_STEP = 0;
  public static final String DISPATCH_STEP_CONFIG = "ordo.dispatch.step.max";
  private static final String DISPATCH_STEP_DOC = "Most items one record or timer run of a partition leases; 0 (the"
      + " default): no bound. A demand that wants more (a lease consumer's first demand asks for its whole"
      + " max.in.flight) gets the rest in further steps, each once the partition has processed the records its stream"
      + " thread had for it, so the thread polls between two steps and a new item or another tenant's command waits"
      + " for one step, not for the whole demand; meanwhile new items queue behind the ready ones. 256 cut a new"
      + " item's p99 wait behind a backlog by about half in ordo bench's fairness scenario, and cost 15-30% of the"
      + " end-to-end throughput (decisions D44).";

  public static final String DELAY_TIERS_CONFIG = "ordo.delay.tiers";
  private static final String DELAY_TIERS_DOC = "Delay tiers of the cluster, e.g. 30s,1m,5m,30m. Waits at least as long"
      + " as the shortest tier leave the store as PARKED markers and travel the tiers; empty keeps every wait in the"
      + " store's timer index.";

  public static final String TTL_DEAD_LETTER_CONFIG = "ordo.ttl.dead.letter";
  private static final String TTL_DEAD_LETTER_DOC = "true: items whose time to live passes are dead-lettered"
      + " (reason TTL_EXPIRED); false: they are deleted and counted.";

  public static final String ITEM_CACHE_BYTES_CONFIG = "ordo.store.item.cache.bytes";
  private static final String ITEM_CACHE_BYTES_DOC = "Heap for decoded items kept by an instance, split evenly over"
      + " the cluster's partitions (an instance owning all partitions uses all of it): items written or read lately,"
      + " so that leasing or acking them needs no RocksDB read and no Avro decode. Counted as payload, metadata and"
      + " 400 bytes per item. 0 keeps none.";

  public static final String COLD_AFTER_MS_CONFIG = "ordo.store.cold.after.ms";
  private static final String COLD_AFTER_MS_DOC = "An item still in the queue this long after it was enqueued is"
      + " copied whole into the state log (a cold item) and no longer depends on its record on the items topic, which"
      + " the topic's retention may then delete. Keep it well under the items topic's retention.ms (7 days by"
      + " default); the server refuses to start when it is not under half of it.";

  public static final String COLD_SPAN_RECORDS_CONFIG = "ordo.store.cold.span.records";
  private static final String COLD_SPAN_RECORDS_DOC = "An item this many offsets or more behind the newest item of"
      + " its partition becomes cold too: how far back in the items topic a rebuild of the item table (a failover, a"
      + " crash) reads at most.";

  public static final String ROCKSDB_MEMORY_BYTES_CONFIG = "ordo.store.rocksdb.memory.bytes";
  private static final String ROCKSDB_MEMORY_BYTES_DOC = "Off-heap memory of RocksDB for the whole process: one"
      + " block cache of this size shared by every RocksDB store of the instance (the item tables and indexes of"
      + " its active tasks, the state logs of its standbys), holding data, index and filter blocks, with the"
      + " memtables charged against it (up to ordo.store.rocksdb.write.buffer.ratio of it, then RocksDB"
      + " flushes). Kafka Streams' defaults give each store its own 50 MB block cache and up to three 16 MB"
      + " memtables, and keep index and filter blocks outside any cache: unbounded in total, growing with the"
      + " tasks and the data. The default is sized for a 4-partition cluster with standbys, 6 to 8 stores an"
      + " instance: the memtables' half has room for about one full 16 MB memtable a store, and the other half"
      + " caches blocks (Kafka Streams writes its tables uncompressed, so a block not cached is read from the"
      + " page cache, with no decompression). Plan the process's memory as heap + this + the JVM's own. The"
      + " bound is soft: blocks pinned by open iterators may pass it briefly. A streams.rocksdb.config.setter of"
      + " your own replaces this bound. 0: Kafka Streams' defaults, unbounded.";

  public static final String ROCKSDB_WRITE_BUFFER_RATIO_CONFIG = "ordo.store.rocksdb.write.buffer.ratio";
  private static final String ROCKSDB_WRITE_BUFFER_RATIO_DOC = "Share of ordo.store.rocksdb.memory.bytes that the"
      + " memtables of all stores may take before RocksDB flushes one early; the rest caches blocks read. A half"
      + " is about Kafka Streams' own mix (up to 48 MB of memtables beside a 50 MB cache a store); less makes"
      + " more and smaller flushes, so more compaction.";

  public static final String REPLY_COMMIT_GAP_CONFIG = "ordo.reply.commit.gap.ms";
  private static final String REPLY_COMMIT_GAP_DOC = "Under exactly-once, what the queue writes for a requester"
      + " with the stream thread's transaction (the items leased to a demand, the outcome of an ack, nack, extend,"
      + " release or cancel, unless it went early: see ordo.reply.early) becomes visible only when the thread"
      + " commits. When the queue answers a requester it asks Kafka Streams to commit"
      + " at once (at the end of the current batch of records) unless it asked less than this many milliseconds"
      + " ago, instead of waiting for commit.interval.ms: answers come about a commit interval sooner, and a busy"
      + " thread commits at most once per this gap more often (and less often while its commits take longer than"
      + " the gap: the gap is at least the last commit's duration). -1: never ask; answers wait for the regular"
      + " commit.";

  public static final String REPLY_EARLY_CONFIG = "ordo.reply.early";
  private static final String REPLY_EARLY_DOC = "Answers a requester waits for (an HTTP or QueueClient dequeue,"
      + " ack, nack, extend, release or cancel) go at once through a plain producer of their own, outside the stream"
      + " thread's transaction, instead of becoming visible only when the thread commits: the decision they"
      + " report is committed shortly after, and only a crash of the instance before that commit can undo it"
      + " (the command is then decided again after the failover, as at-least-once allows). Answers that hand out"
      + " at-most-once items always wait for the commit, and a lease consumer's do too unless ordo.reply.early.all."
      + " false: every answer waits for the commit (decisions D39).";

  public static final String CLOCK_OFFSET_CONFIG = "ordo.clock.offset.ms";
  private static final String CLOCK_OFFSET_DOC = "For fault runs only (ordo bench --nemesis): the queue's"
      + " wall clock runs this many milliseconds ahead of the machine's (negative: behind), as a server whose"
      + " clock is off would. Delays, leases and times to live are then judged by the skewed clock. Leave it 0.";

  public static final String REPLY_EARLY_ALL_CONFIG = "ordo.reply.early.all";
  private static final String REPLY_EARLY_ALL_DOC = "With ordo.reply.early, a lease consumer's answers go early"
      + " too (its deliveries, and the outcomes of its acks, nacks and heartbeats), not only those a requester waits"
      + " for: under exactly-once an item reaches its consumer without waiting for the stream thread's commit (most"
      + " of the end-to-end time at light load: a lone item's p50 24 ms -> 8 in the bench, decisions D49). The"
      + " price is the one early answers pay: a crash before the commit leases the at-least-once items of that"
      + " transaction again, so they are delivered twice and may run on two consumers at once; at-most-once items"
      + " still wait for the commit. Where HTTP callers or QueueClients share the cluster with lease consumers,"
      + " their early answers mostly wait for the consumers' open transactions on the same reply partitions"
      + " unless this is set.";

  public static final String INTAKE_LEAD_MS_CONFIG = "ordo.intake.lead.ms";
  private static final String INTAKE_LEAD_MS_DOC = "How much younger a command counts than its timestamp when"
      + " a partition's task chooses between the buffered heads of its items and commands partitions (it takes the"
      + " older): a new item goes before the commands sent up to this many milliseconds before it, so a command"
      + " sent right after an enqueue finds the item; commands wait at most this long behind a stream of new"
      + " items. 0: plain timestamp order. While the intake lags by more than this (its newest item read is"
      + " older), acks, nacks, extensions, releases and lease consumers' demands go right after the items already read"
      + " instead (their clients mark them: decisions D46).";

  public static final String METRICS_TOPICS_MAX_CONFIG = "ordo.metrics.topics.max";
  private static final String METRICS_TOPICS_MAX_DOC = "(namespace, topic) label sets an instance exports at most"
      + " (docs/operations.md, Metrics); past it, topics are counted under namespace=\"_other\", topic=\"_other\""
      + " and ordo_metrics_topics_folded_total counts them.";
  public static final String METRICS_TOPICS_IDLE_MS_CONFIG = "ordo.metrics.topics.idle.ms";
  private static final String METRICS_TOPICS_IDLE_MS_DOC = "How long a topic whose items are all gone from this"
      + " instance's partitions, and to which nothing happened, keeps its metrics' label set.";

  public static final String SCHEMA_REGISTRY_URL_CONFIG = "ordo.schema.registry.url";
  public static final String SCHEMA_REGISTRY_URL_DOC = "A Confluent-compatible schema registry's REST API (Confluent"
      + " Schema Registry, or Apicurio Registry's http://host:port/apis/ccompat/v7). Set: at start the queue registers"
      + " its schemas under <topic>-value (compatibility BACKWARD) for items, commands, deliveries, dlq and topics;"
      + " accepts on items and commands records framed the Confluent way (magic byte 0, schema id, Avro binary), as"
      + " any language's Avro serializer writes them, beside Avro single-object records; and writes deliveries, dlq"
      + " and topics Confluent-framed, so Ordo's Java clients need the same setting. Writer schemas are fetched by id"
      + " once and cached; a record whose schema id is unknown or cannot be resolved to Ordo's schema is"
      + " dead-lettered (MALFORMED, with the reason). Empty: Avro single-object encoding only, no registry.";

  public static final String PURGE_RATE_CONFIG = "ordo.purge.rate.per.second";
  public static final String PURGE_RATE_DOC = "Items a purge job deletes a second at most, on each partition"
      + " (POST /v1/namespaces/{ns}/topics/{t}/purge, ordo purge; decisions D56). The partition's stream thread"
      + " does the deletions between its other records, in steps of at most 1,000 items looked at, so a high rate"
      + " takes stream-thread time from dispatch while a job runs, and a low one makes a large purge take long"
      + " (its progress is kept, so a restart or a failover only pauses it).";

  public static final String DEDUP_MAX_ENTRIES_CONFIG = "ordo.dedup.max.entries";
  public static final String DEDUP_MAX_ENTRIES_DOC = "Deduplication IDs each partition's window holds at most"
      + " (decisions D57). The window lives in RocksDB (the process's bounded RocksDB memory, ordo.store.rocksdb.memory.bytes,"
      + " caches it; the rest is on disk and in its changelog), about 100 bytes an ID. At the cap, the IDs nearest the"
      + " end of their window are forgotten early to make room (counted: ordo_queue_events_total{event=\"dedup.evicted\"}):"
      + " an item then refused as a duplicate is taken in, never lost, so a cap too low shows as duplicates enqueued."
      + " Size it to the items with an ID a partition takes in during the longest namespace window.";

  public static final ConfigDef CONFIG = new ConfigDef()
      .define(CLUSTER_CONFIG, Type.STRING, "ordo", Importance.HIGH, CLUSTER_DOC)
      .define(LEASE_MS_CONFIG, Type.LONG, 30_000L, Range.atLeast(1), Importance.MEDIUM, LEASE_MS_DOC)
      .define(MAX_ATTEMPTS_CONFIG, Type.INT, 5, Range.atLeast(1), Importance.MEDIUM, MAX_ATTEMPTS_DOC)
      .define(TTL_MS_CONFIG, Type.LONG, 0L, Range.atLeast(0), Importance.MEDIUM, TTL_MS_DOC)
      .define(PAYLOAD_MAX_BYTES_CONFIG, Type.INT, 10 * 1024, Range.atLeast(0), Importance.MEDIUM, PAYLOAD_MAX_BYTES_DOC)
      .define(HEADERS_MAX_BYTES_CONFIG, Type.INT, 8 * 1024, Range.atLeast(0), Importance.MEDIUM, HEADERS_MAX_BYTES_DOC)
      .define(DLQ_MAX_RECORD_BYTES_CONFIG, Type.INT, 1_000_000, Range.atLeast(1_024), Importance.LOW,
          DLQ_MAX_RECORD_BYTES_DOC)
      .define(PUNCTUATE_MS_CONFIG, Type.LONG, 20L, Range.between(1, 60_000), Importance.LOW, PUNCTUATE_MS_DOC)
      .define(STATS_MS_CONFIG, Type.LONG, 1_000L, Range.atLeast(1), Importance.LOW, STATS_MS_DOC)
      .define(REDELIVERY_DELAY_MS_CONFIG, Type.LONG, 0L, Range.atLeast(0), Importance.LOW, REDELIVERY_DELAY_MS_DOC)
      .define(REBUILD_STEP_CONFIG, Type.INT, 20_000, Range.atLeast(1), Importance.LOW, REBUILD_STEP_DOC)
      .define(TIMER_BATCH_CONFIG, Type.INT, 10_000, Range.atLeast(1), Importance.LOW, TIMER_BATCH_DOC)
      .define(DISPATCH_STEP_CONFIG, Type.INT, DEFAULT_DISPATCH_STEP, Range.atLeast(0), Importance.LOW, DISPATCH_STEP_DOC)
      .define(DELAY_TIERS_CONFIG, Type.STRING, "", Importance.MEDIUM, DELAY_TIERS_DOC)
      .define(TTL_DEAD_LETTER_CONFIG, Type.BOOLEAN, false, Importance.LOW, TTL_DEAD_LETTER_DOC)
      .define(DEDUP_MAX_ENTRIES_CONFIG, Type.LONG, 1_000_000L, Range.atLeast(1), Importance.LOW, DEDUP_MAX_ENTRIES_DOC)
      .define(PURGE_RATE_CONFIG, Type.DOUBLE, 1_000.0, Range.between(0.001, 1_000_000), Importance.LOW, PURGE_RATE_DOC)
      .define(ITEM_CACHE_BYTES_CONFIG, Type.LONG, 16L << 20, Range.atLeast(0), Importance.LOW,
          ITEM_CACHE_BYTES_DOC)
      .define(COLD_AFTER_MS_CONFIG, Type.LONG, 24L * 3600 * 1000, Range.atLeast(1), Importance.LOW, COLD_AFTER_MS_DOC)
      .define(COLD_SPAN_RECORDS_CONFIG, Type.LONG, 1_000_000L, Range.atLeast(0), Importance.LOW, COLD_SPAN_RECORDS_DOC)
      .define(ROCKSDB_MEMORY_BYTES_CONFIG, Type.LONG, 256L << 20, Range.atLeast(0), Importance.MEDIUM,
          ROCKSDB_MEMORY_BYTES_DOC)
      .define(ROCKSDB_WRITE_BUFFER_RATIO_CONFIG, Type.DOUBLE, 0.5, Range.between(0.1, 0.9), Importance.LOW,
          ROCKSDB_WRITE_BUFFER_RATIO_DOC)
      .define(REPLY_COMMIT_GAP_CONFIG, Type.LONG, 5L, Range.between(-1, 60_000), Importance.LOW,
          REPLY_COMMIT_GAP_DOC)
      .define(REPLY_EARLY_CONFIG, Type.BOOLEAN, true, Importance.LOW, REPLY_EARLY_DOC)
      .define(REPLY_EARLY_ALL_CONFIG, Type.BOOLEAN, false, Importance.LOW, REPLY_EARLY_ALL_DOC)
      .define(CLOCK_OFFSET_CONFIG, Type.LONG, 0L, Range.between(-3_600_000L, 3_600_000L), Importance.LOW,
          CLOCK_OFFSET_DOC)
      .define(INTAKE_LEAD_MS_CONFIG, Type.LONG, 1_000L, Range.between(0, 3_600_000), Importance.LOW,
          INTAKE_LEAD_MS_DOC)
      .define(METRICS_TOPICS_MAX_CONFIG, Type.INT, 1_000, Range.atLeast(1), Importance.LOW, METRICS_TOPICS_MAX_DOC)
      .define(METRICS_TOPICS_IDLE_MS_CONFIG, Type.LONG, 300_000L, Range.atLeast(0), Importance.LOW,
          METRICS_TOPICS_IDLE_MS_DOC)
      .define(SCHEMA_REGISTRY_URL_CONFIG, Type.STRING, "", Importance.MEDIUM, SCHEMA_REGISTRY_URL_DOC);

  /** How long a call to the schema registry may take. */
  public static final Duration SCHEMA_REGISTRY_TIMEOUT = Duration.ofSeconds(10);

  private final List<Duration> tiers;
  /** One per configuration, so every task shares its caches of schema ids. */
  private final WireFormat wireFormat;

  public QueueConfig(Map<?, ?> props) {
    super(CONFIG, props);
    String t = getString(DELAY_TIERS_CONFIG).trim();
    try {
      this.tiers = t.isEmpty() ? List.of() : Durations.parseList(t);
      new ClusterTopics(getString(CLUSTER_CONFIG));
      String registry = getString(SCHEMA_REGISTRY_URL_CONFIG).trim();
      if (!registry.isEmpty()) {
        java.net.URI uri = java.net.URI.create(registry);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
          throw new IllegalArgumentException(SCHEMA_REGISTRY_URL_CONFIG + " must be an http(s) URL, got " + registry);
        }
      }
      this.wireFormat = WireFormat.of(registry, SCHEMA_REGISTRY_TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  public ClusterTopics topics() {
    return new ClusterTopics(getString(CLUSTER_CONFIG));
  }

  /** Single-object encoding, or Confluent framing through {@link #SCHEMA_REGISTRY_URL_CONFIG}'s registry. */
  public WireFormat wireFormat() {
    return wireFormat;
  }

  public List<Duration> delayTiers() {
    return tiers;
  }

  public long intakeLeadMs() {
    return getLong(INTAKE_LEAD_MS_CONFIG);
  }

  public QueueDefaults defaults() {
    long ttl = getLong(TTL_MS_CONFIG);
    long parkAfter = tiers.isEmpty() ? Long.MAX_VALUE : tiers.get(0).toMillis();
    return new QueueDefaults(getLong(LEASE_MS_CONFIG), getInt(MAX_ATTEMPTS_CONFIG), ttl == 0 ? null : ttl, parkAfter);
  }
}
