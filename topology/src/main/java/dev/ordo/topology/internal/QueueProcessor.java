package dev.ordo.topology.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.Item;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.SchemaResolutionException;
import dev.ordo.serde.WireFormat;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.TopicMeters;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's queue: reads {@code items} and {@code commands} (co-partitioned, so the same
 * task) and owns the partition's {@link PriorityStore}. Every state change happens here, on the
 * stream thread; under exactly_once_v2 a store change and the records it emits commit together.
 *
 * <p>It decides nothing itself: per record it decodes, asks the {@link QueuePlanner} what to do
 * ({@link Effects}, given the store and the time), applies that to the store and forwards the
 * records it names; then asks the planner to serve the open demands that want topics which got
 * ready items, and applies that. Anything undecodable, refused or failing in the planner goes to the
 * dead-letter topic with its raw bytes, and nothing of it is applied. A wall-clock punctuator runs
 * the timers (delays, lease expiries, TTLs, lapsed demand) the same way and publishes changed topics'
 * stats.
 */
public final class QueueProcessor implements Processor<byte[], byte[], Out, byte[]> {
  private static final Logger log = LoggerFactory.getLogger(QueueProcessor.class);

  private final QueueConfig config;
  /** Single-object or, with a schema registry, Confluent framing ({@link QueueConfig#wireFormat}). */
  private final WireFormat wire;
  private final QueueMetrics metrics;
  private final TopicMeters meters;
  /** The header a dead-letter redrive puts on the items it sends back (dev.ordo.client.dlq). */
  static final String REDRIVEN_FROM = "ordo.redriven.from";
  private final ClusterTopics topics;
  private final QueuePlanner.Settings settings;
  private final int deliveriesPartitions;
  /** {@link QueueConfig#REPLY_COMMIT_GAP_CONFIG}: -1 never asks for a commit. */
  private final long replyCommitGapMs;
  /** Paces the commits asked for answers; null: the stream thread's own ({@link CommitPacer#ofCurrentThread}). */
  private final CommitPacer commitPacer;
  /** Answers someone waits for, sent before the commit where they may be (decisions D39). */
  private final EarlyAnswers earlyAnswers;
  /** Items indexed per punctuation while the index is rebuilt ({@link QueueConfig#REBUILD_STEP_CONFIG}). */
  private final int rebuildStep;
  /** {@link QueueConfig#DLQ_MAX_RECORD_BYTES_CONFIG}. */
  private final int deadLetterMaxBytes;

  private QueuePlanner planner;
  /** {@link QueueConfig#COLD_AFTER_MS_CONFIG}, {@link QueueConfig#COLD_SPAN_RECORDS_CONFIG}. */
  private final long coldAfterMs;
  private final long coldSpanRecords;
  static final int COOL_MAX_ITEMS = 2_000;
  /** The items topic read back, for a rebuild of the item table. */
  private final ItemSources itemSources;
  /** At most how long an index rebuild waits for the task's first record ({@link Cadence#REBUILD_HOLD_MS}). */
  static final long REBUILD_HOLD_MS = Cadence.REBUILD_HOLD_MS;
  /** The fine tick's interval ({@code ordo.punctuate.interval.ms}) and the coarse one's ({@link Ticks}). */
  private long fineMs;
  private long coarseMs;
  /** The fine tick while the task needs it ({@link Ticks}), else null: the coarse tick alone runs. */
  private Cancellable fineTick;
  /** While a dispatch step left demand unserved ({@link QueuePlanner#dispatchPending}): its continuation, else null. */
  private Cancellable continuation;
  /** The continuation's interval: it fires at the stream thread's next punctuation check. */
  static final long CONTINUATION_MS = 1;
  /** When the stats, the cool-down, the index writes and the continuation are due (set in {@link #init}). */
  private Cadence cadence;
  /** Topics that got ready items since the last dispatch (kept while the index is rebuilt). */
  private final Set<TopicRef> readyTopics = new LinkedHashSet<>();

  private ProcessorContext<Out, byte[]> context;
  /** The records forwarded for what the planner decided, but the stats (set in {@link #init}). */
  private Outputs outputs;
  /** The changed topics and their stats' publication (set in {@link #init}). */
  private StatsPublisher stats;
  private PriorityStore store;
  /** The purge jobs running on this partition (decisions D56). */
  private PurgeJobs purges;
  /** The deduplication IDs taken in on this partition, within their windows (decisions D57). */
  private DedupWindow dedup;
  /** The namespace policies (the planner reads the same): for the deduplication window. */
  private Policies policies;
  private int partition = -1;
  private boolean generationStarted;
  /** When the running index rebuild started (System.nanoTime), for its log line. */
  private long rebuildStarted;
  /** When the index rebuild ended (wall ms), until the first lease after it is logged; -1 otherwise. */
  private long rebuiltAt = -1;
  /**
   * True once this task processed a record: until then (or {@link #REBUILD_HOLD_MS}) no rebuild step
   * runs, so that the stream thread gets back to its poll (see {@link #onTimers}).
   */
  private boolean recordSeen;
  /** When the task was initialized (wall ms). */
  private long initializedAt;

  /** {@code earlyAnswers}: where answers someone waits for go before the commit ({@link EarlyAnswers#NONE}: nowhere). */
  public QueueProcessor(QueueConfig config, QueueMetrics metrics, TopicMeters meters, int deliveriesPartitions,
      EarlyAnswers earlyAnswers) {
    this(config, metrics, meters, deliveriesPartitions, earlyAnswers, null);
  }

  /** {@code commitPacer}: a pacer of its own (tests), or null for the stream thread's. */
  QueueProcessor(QueueConfig config, QueueMetrics metrics, TopicMeters meters, int deliveriesPartitions,
      EarlyAnswers earlyAnswers, CommitPacer commitPacer) {
    this(config, metrics, meters, deliveriesPartitions, earlyAnswers, commitPacer, ItemSources.kafka(config));
  }

  /** {@code itemSources}: where the item table is rebuilt from when it must be ({@link ItemSources#kafka}). */
  public QueueProcessor(QueueConfig config, QueueMetrics metrics, TopicMeters meters, int deliveriesPartitions,
      EarlyAnswers earlyAnswers, CommitPacer commitPacer, ItemSources itemSources) {
    this.itemSources = itemSources;
    this.coldAfterMs = config.getLong(QueueConfig.COLD_AFTER_MS_CONFIG);
    this.coldSpanRecords = config.getLong(QueueConfig.COLD_SPAN_RECORDS_CONFIG);
    this.commitPacer = commitPacer;
    this.earlyAnswers = earlyAnswers;
    this.config = config;
    this.wire = config.wireFormat();
    this.metrics = metrics;
    this.meters = meters;
    this.topics = config.topics();
    this.deliveriesPartitions = deliveriesPartitions;
    this.settings = settings(config, deliveriesPartitions);
    this.rebuildStep = config.getInt(QueueConfig.REBUILD_STEP_CONFIG);
    this.deadLetterMaxBytes = config.getInt(QueueConfig.DLQ_MAX_RECORD_BYTES_CONFIG);
    this.replyCommitGapMs = config.getLong(QueueConfig.REPLY_COMMIT_GAP_CONFIG);
  }

  /** What the planner decides with, from the queue's configuration. */
  static QueuePlanner.Settings settings(QueueConfig config, int deliveriesPartitions) {
    return new QueuePlanner.Settings(config.defaults(), config.delayTiers(),
        config.getInt(QueueConfig.PAYLOAD_MAX_BYTES_CONFIG), config.getInt(QueueConfig.TIMER_BATCH_CONFIG),
        config.getLong(QueueConfig.REDELIVERY_DELAY_MS_CONFIG), config.getBoolean(QueueConfig.TTL_DEAD_LETTER_CONFIG),
        deliveriesPartitions, config.getInt(QueueConfig.HEADERS_MAX_BYTES_CONFIG),
        config.getInt(QueueConfig.DISPATCH_STEP_CONFIG));
  }

  @Override
  public void init(ProcessorContext<Out, byte[]> context) {
    this.context = context;
    KeyValueStore<Bytes, byte[]> kv = context.getStateStore(PriorityStore.STATE_STORE_NAME);
    PriorityStore opened = new PriorityStore(kv, context.getStateStore(PriorityStore.STORE_NAME),
        context.getStateStore(PriorityStore.INDEX_STORE_NAME),
        config.getLong(QueueConfig.ITEM_CACHE_BYTES_CONFIG) / Math.max(1, deliveriesPartitions));
    if (CommitHook.attach(kv, () -> {
      opened.flushItemWrites();
      pacer().commitStarted(context.currentSystemTimeMs());
    })) {
      opened.holdItemWrites();
    } else {
      log.warn("The store {} has no commit hook: every change goes to RocksDB and the changelog at once",
          PriorityStore.STATE_STORE_NAME);
    }
    this.store = opened;
    this.partition = context.taskId().partition();
    this.outputs = new Outputs(context, wire, topics, metrics, meters, earlyAnswers, partition, deadLetterMaxBytes,
        replyCommitGapMs, commitPacer);
    this.policies = new NamespaceStore.Reader(context.getStateStore(NamespaceStore.NAME), context::currentSystemTimeMs);
    this.planner = new QueuePlanner(settings, partition, new SplittableRandom(), policies,
        new LoadStore.Reader(context.getStateStore(LoadStore.NAME), context::currentSystemTimeMs, wire));
    this.stats = new StatsPublisher(context, wire, topics, meters, partition, store, planner);
    initializedAt = context.currentSystemTimeMs();
    planner.started(initializedAt); // group rates' buckets start empty as of the takeover (decisions D61)
    purges = new PurgeJobs(context.getStateStore(PurgeJobs.STORE), partition,
        config.getDouble(QueueConfig.PURGE_RATE_CONFIG), initializedAt);
    dedup = new DedupWindow(context.getStateStore(DedupWindow.STORE), config.getLong(QueueConfig.DEDUP_MAX_ENTRIES_CONFIG));
    meters.dedupEntries(partition, dedup.size());
    long opening = System.nanoTime();
    boolean trusted = store.open(itemSources.open(partition, context.appConfigs()),
        itemSources.legacy(partition, context.appConfigs()));
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
          + " items{}", partition, (System.nanoTime() - opening) / 1_000_000, rebuilt.items(),
          rebuilt.lost() == 0 ? "" : ", " + rebuilt.lost() + " LOST (their records are gone from the items topic)");
    }
    if (!trusted) {
      rebuildStarted = System.nanoTime();
      stepRebuild(); // a new or small partition is done at once
      if (store.rebuilding()) {
        log.info("Partition {}: the index store does not match the item table (a crash or a moved task); rebuilding"
            + " it in steps of {} items per punctuation, dispatching when done", partition, rebuildStep);
      }
    }
    if (!store.rebuilding()) {
      // Every topic's stats once at start (the rebuild does it when it ends): the metrics of a
      // topic that nothing changes after a restart are there too.
      for (TopicCounts t : store.allTopics()) {
        stats.markDirty(new TopicRef(t.namespace(), t.topic()));
      }
    }
    fineMs = config.getLong(QueueConfig.PUNCTUATE_MS_CONFIG);
    long statsMs = config.getLong(QueueConfig.STATS_MS_CONFIG);
    cadence = new Cadence(fineMs, statsMs, context.currentSystemTimeMs());
    coarseMs = Ticks.coarseMs(fineMs, statsMs);
    // The coarse tick at the same instants on every task of the instance; the fine one from now until
    // the first tick finds the task quiet.
    context.schedule(Instant.EPOCH, Duration.ofMillis(coarseMs), PunctuationType.WALL_CLOCK_TIME, this::onTick);
    fineTick = context.schedule(Duration.ofMillis(fineMs), PunctuationType.WALL_CLOCK_TIME, this::onTick);
  }

  /** A fine or coarse tick: the timers, the stats when their time came, and which tick comes next. */
  private void onTick(long now) {
    metrics.increment(QueueMetrics.TICKS);
    onTimers(now);
    if (cadence.statsTick(now)) {
      stats.publish(now, cadence);
    }
    settleTicks(now);
  }

  /** Arms the fine tick when the task needs it ({@link Ticks#needsFine}), cancels it when not. */
  private void settleTicks(long now) {
    boolean fine = Ticks.needsFine(store.rebuilding(), planner.throttling() || purges.running() || dedup.behind(),
        store.hasOverflow(),
        stats.limitedWaiting(), store.nextTimerDue(), now, coarseMs);
    if (fine && fineTick == null) {
      fineTick = context.schedule(Duration.ofMillis(fineMs), PunctuationType.WALL_CLOCK_TIME, this::onTick);
    } else if (!fine && fineTick != null) {
      fineTick.cancel();
      fineTick = null;
    }
  }

  /** A new generation of the store, once a record or punctuation lets the item table be written. */
  private void maybeStartGeneration() {
    if (!generationStarted) {
      store.startGeneration();
      generationStarted = true;
    }
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    long now = now();
    if (!recordSeen && store.rebuilding()) {
      log.info("Partition {}: first record {} ms after the task started, while rebuilding", partition, now - initializedAt);
    }
    recordSeen = true;
    cadence.recordProcessed();
    pacer().working(now);
    maybeStartGeneration();
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    try {
      Effects effects = plan(record, meta, now);
      if (effects != null) {
        apply(effects, now);
        if (effects.refusal() != null) {
          outputs.deadLetterRaw(DeadLetterReason.INVALID, effects.refusal().reason(), record, meta, now);
        }
        dispatch(now);
      }
    } finally {
      outputs.flushAnswers(now);
      store.markChanges();
    }
    flushIndexWritesWhenDue(now);
    if (fineTick == null) {
      settleTicks(now); // a record may have brought work for the fine tick (a near due time, OVERFLOW)
    }
    settleContinuation();
  }

  /**
   * The rest of a demand a dispatch step left unserved, one step at a time: only once the task has
   * processed the records the stream thread had for it, so that the thread polls between two steps
   * (it polls only when an iteration processed no record; a punctuation runs after every iteration)
   * and a new item or another requester's command waits at most for one step, not for the whole
   * demand (decisions D44). At the latest {@link Cadence#CONTINUATION_MAX_WAIT_MS} after the last step.
   */
  private void onContinuation(long now) {
    if (!cadence.continuationRuns(now)) {
      return;
    }
    pacer().working(now);
    maybeStartGeneration();
    try {
      apply(planner.continueDispatch(store, now), now);
      dispatch(now);
    } finally {
      outputs.flushAnswers(now);
      store.markChanges();
    }
    flushIndexWritesWhenDue(now);
    settleContinuation();
  }

  /** Arms the continuation while a dispatch is pending, cancels it when none is. */
  private void settleContinuation() {
    if (planner.dispatchPending() && continuation == null) {
      cadence.continuationArmed(context.currentSystemTimeMs());
      continuation = context.schedule(Duration.ofMillis(CONTINUATION_MS), PunctuationType.WALL_CLOCK_TIME,
          this::onContinuation);
    } else if (!planner.dispatchPending() && continuation != null) {
      continuation.cancel();
      continuation = null;
    }
  }

  /** What the planner decides for one record; null for a duplicate or a record dead-lettered here. */
  private Effects plan(Record<byte[], byte[]> record, RecordMetadata meta, long now) {
    boolean isItem = meta.topic().equals(topics.items());
    try {
      if (isItem) {
        if (!store.firstSighting(meta.offset())) {
          metrics.increment(QueueMetrics.DUPLICATE_ENQUEUE);
          return null;
        }
        Item item = wire.decode(OrdoSerdes.ITEM, record.value()); // with its headers as itemOf does, below
        // The record's Kafka headers join the item (toArray() of no headers is a shared empty array).
        Header[] headers = record.headers().toArray();
        if (headers.length == 0) {
          if (!wire.confluent()) {
            store.takingIn(meta.offset(), record.value()); // the item table keeps these bytes as they are
          }
          return planner.onItem(meta.offset(), record.timestamp(), item, store, now);
        }
        item.setHeaders(ItemHeaders.merge(item.getHeaders(), headers));
        if (meters.enabled() && record.headers().lastHeader(REDRIVEN_FROM) != null) {
          meters.redriven(item.getNamespace(), item.getTopic());
        }
        IntakeHeaders intake = IntakeHeaders.of(headers);
        if (intake == null) {
          return planner.onItem(meta.offset(), record.timestamp(), item, store, now);
        }
        return onItemWithId(item, intake, record, meta, now);
      }
      Command command = wire.decode(OrdoSerdes.COMMAND, record.value());
      if (command.getBody() instanceof dev.ordo.schema.Purge purge) {
        dev.ordo.schema.PurgeProgress started = purges.start(purge, now);
        if (started != null) {
          outputs.publishPurge(started, now);
        }
        return null;
      }
      return planner.onCommand(command, store, now);
    } catch (OrdoSerdeException e) {
      metrics.increment(QueueMetrics.MALFORMED);
      if (e instanceof SchemaResolutionException) {
        metrics.increment(QueueMetrics.SCHEMA_UNRESOLVED);
      }
      outputs.deadLetterRaw(DeadLetterReason.MALFORMED, e.getMessage(), record, meta, now);
    } catch (KafkaException e) {
      throw e; // fencing, migration, store failures: Kafka Streams must handle these
    } catch (RuntimeException e) {
      // A bug of ours must not turn one record into a poison pill that kills the thread forever.
      // Nothing of the plan was applied.
      log.error("Unexpected failure on {}-{}@{}; dead-lettering the record", meta.topic(), meta.partition(),
          meta.offset(), e);
      metrics.increment(QueueMetrics.MALFORMED);
      outputs.deadLetterRaw(DeadLetterReason.INVALID, "internal error: " + e, record, meta, now);
    }
    return null;
  }

  /**
   * An item whose record carries a deduplication ID or asks for an answer (decisions D57): refused
   * when its ID was taken in within its namespace's window (counted, answered with the first item's
   * ID, nothing else: not an error, not a dead letter); else planned as any item, its ID remembered
   * when the queue took it in, and answered with its own ID. The window's writes go to the task's
   * store, in the same transaction as the intake.
   */
  private Effects onItemWithId(Item item, IntakeHeaders intake, Record<byte[], byte[]> record, RecordMetadata meta,
      long now) {
    String ns = item.getNamespace();
    String topic = item.getTopic();
    long windowMs = intake.dedupId() == null ? 0 : DedupRules.windowMs(policies.policy(ns));
    if (windowMs > 0) {
      DedupWindow.First first = dedup.first(ns, topic, item.getGroupKey(), intake.dedupId(), now);
      if (first != null) {
        metrics.increment(QueueMetrics.DEDUP_DUPLICATE);
        meters.duplicate(ns, topic);
        answerEnqueue(intake, meta.offset(), first.offset(), true, now);
        return null;
      }
    }
    Effects effects = planner.onItem(meta.offset(), record.timestamp(), item, store, now);
    if (windowMs > 0 && effects.refusal() == null) {
      int evicted = dedup.remember(ns, topic, item.getGroupKey(), intake.dedupId(), meta.offset(), now, windowMs);
      if (evicted > 0) {
        metrics.add(QueueMetrics.DEDUP_EVICTED, evicted);
      }
      meters.dedupEntries(partition, dedup.size());
    }
    answerEnqueue(intake, meta.offset(), meta.offset(), false, now);
    return effects;
  }

  /** Tells the requester that asked (header ordo.reply.to) which item holds, if one asked and can be reached. */
  private void answerEnqueue(IntakeHeaders intake, long recordOffset, long itemOffset, boolean duplicate, long now) {
    if (intake.replyTo() == null) {
      return;
    }
    if (deliveriesPartitions > 0 && intake.replyTo().partition() >= deliveriesPartitions) {
      metrics.increment(QueueMetrics.UNROUTABLE_REPLY);
      return;
    }
    outputs.send(new Requester(intake.replyTo().requesterId(), intake.replyTo().partition()),
        new dev.ordo.schema.Enqueued(new ItemId(partition, recordOffset).toString(),
            new ItemId(partition, itemOffset).toString(), duplicate),
        true, now);
  }

  /** Forgets the deduplication IDs whose window ended, a bounded step at a time. */
  private void expireDedup(long now) {
    int expired = dedup.expire(now, DedupWindow.EXPIRE_STEP);
    if (expired > 0) {
      metrics.add(QueueMetrics.DEDUP_EXPIRED, expired);
      meters.dedupEntries(partition, dedup.size());
    }
  }

  /**
   * One step of each purge job running here, as the rate allows: its deletions applied as any
   * deletion is (indexes, counts, stats, meters), its progress published on {@code <cluster>.purges},
   * both in the task's transaction (decisions D56). Not while the index is rebuilt.
   */
  private void stepPurges(long now) {
    if (!purges.running() || store.rebuilding()) {
      return;
    }
    for (PurgeJobs.Step step : purges.step(store, now)) {
      apply(step.effects(), now);
      for (Effects.Change c : step.effects().changes()) {
        meters.purged(c.before().getItem().getNamespace(), c.before().getItem().getTopic(), c.before().getState().name());
      }
      outputs.publishPurge(step.progress(), now);
    }
  }

  /**
   * The item of a record of the items topic, as the queue takes it in: decoded, with the record's
   * Kafka headers joined to it (toArray() of no headers is a shared empty array, and merge then
   * returns the item's own field: nothing is allocated for an item without headers).
   */
  static Item itemOf(WireFormat wire, byte[] value, org.apache.kafka.common.header.Headers recordHeaders) {
    Item item = wire.decode(OrdoSerdes.ITEM, value);
    Header[] headers = recordHeaders.toArray();
    if (headers.length > 0) {
      item.setHeaders(ItemHeaders.merge(item.getHeaders(), headers));
    }
    return item;
  }

  /** Serves the open demands that want topics which got ready items. */
  private void dispatch(long now) {
    if (!readyTopics.isEmpty() && !store.rebuilding()) {
      apply(planner.dispatch(readyTopics, store, now), now);
    }
  }

  @Override
  public void close() {
    meters.forgetPartition(partition);
    meters.rebuilding(partition, false);
    if (store != null) {
      store.closeIndex();
    }
  }

  // ---- applying effects ----

  /** Does what the planner decided: the store changes in order, then the records they call for. */
  private void apply(Effects effects, long now) {
    for (Effects.Change c : effects.changes()) {
      store.transition(c.offset(), c.before(), c.after());
    }
    if (meters.enabled()) {
      EffectMeters.measure(meters, effects, now);
    }
    for (TopicRef nsTopic : effects.changedTopics()) {
      stats.markDirty(nsTopic);
    }
    readyTopics.addAll(effects.readyTopics());
    for (Map.Entry<String, Long> e : effects.counts().entrySet()) {
      metrics.add(e.getKey(), e.getValue());
    }
    if (effects.refusal() != null) {
      metrics.increment(effects.refusal().metric());
    }
    for (Effects.Park p : effects.parks()) {
      outputs.park(p, now);
    }
    for (Effects.DeadLetter d : effects.deadLetters()) {
      outputs.deadLetter(d, now);
    }
    for (Effects.Answer a : effects.answers()) {
      outputs.send(a.requester(), a.body(), a.urgent(), now);
    }
    for (Effects.Leased l : effects.leased()) {
      outputs.leased(l);
      if (rebuiltAt >= 0) {
        log.info("Partition {}: first lease after the rebuild, {} ms after it", partition, now - rebuiltAt);
        rebuiltAt = -1;
      }
    }
  }

  // ---- timers ----

  private void onTimers(long now) {
    pacer().working(now);
    maybeStartGeneration();
    if (store.rebuilding() && (rebuildHeld(recordSeen, initializedAt, now) || !rebuildStep())) {
      planner.expireDemands(now);
      return; // no timers and no dispatch from a half-built index
    }
    try {
      apply(planner.onTimers(store, now), now);
      dispatch(now);
      stepPurges(now);
      coolDown(now);
      expireDedup(now);
    } finally {
      outputs.flushAnswers(now);
      store.markChanges();
      flushIndexWrites(now);
    }
    settleContinuation();
  }

  /**
   * Once a second, moves the items that are old or far behind the partition's newest to the cold part
   * of the state log ({@code PriorityStore#coolDown}), a bounded number per pass.
   */
  private void coolDown(long now) {
    if (!cadence.coolDown(now)) {
      return;
    }
    int moved = store.coolDown(now, coldAfterMs, coldSpanRecords, COOL_MAX_ITEMS);
    if (moved > 0) {
      metrics.add(QueueMetrics.COLD_ITEMS, moved);
    }
  }

  /**
   * Applies the index writes held on the heap: at every tick, and from records at least every fine
   * interval, as the fine tick did before a quiet task stopped taking it. Left to the coarse tick,
   * a busy task's writes piled up to the buffer's bound and went to RocksDB in large batches, all
   * tasks' in the same iteration once a second: at-least-once p99 at half load 21-25 went to 26-64 ms.
   */
  private void flushIndexWrites(long now) {
    store.flushIndexWrites();
    cadence.indexFlushed(now);
  }

  /** {@link #flushIndexWrites} when a fine interval has passed since the last: after a record or a dispatch step. */
  private void flushIndexWritesWhenDue(long now) {
    if (cadence.indexFlushDue(now)) {
      flushIndexWrites(now);
    }
  }

  /** True while a task's index rebuild waits for its first record ({@link Cadence#rebuildHeld}). */
  static boolean rebuildHeld(boolean recordSeen, long initializedAt, long now) {
    return Cadence.rebuildHeld(recordSeen, initializedAt, now);
  }

  private void stepRebuild() {
    metrics.add(QueueMetrics.INDEX_REBUILT_ITEMS, store.rebuildStep(rebuildStep));
    metrics.increment(QueueMetrics.INDEX_REBUILD_STEPS);
    meters.rebuilding(partition, store.rebuilding());
  }

  /**
   * One step of the index rebuild; true when it is done. Then every topic with ready items is
   * dispatched to the demands that waited, and every topic's stats are published anew.
   */
  private boolean rebuildStep() {
    stepRebuild();
    if (store.rebuilding()) {
      return false;
    }
    log.info("Partition {}: the index is rebuilt ({} ms); {} demands open", partition,
        (System.nanoTime() - rebuildStarted) / 1_000_000, planner.demands().size());
    rebuiltAt = context.currentSystemTimeMs();
    for (TopicCounts t : store.allTopics()) {
      TopicRef nsTopic = new TopicRef(t.namespace(), t.topic());
      stats.markDirty(nsTopic);
      if (t.ready() > 0) {
        readyTopics.add(nsTopic);
      }
    }
    return true;
  }

  // ---- output ----

  private CommitPacer pacer() {
    return commitPacer != null ? commitPacer : CommitPacer.ofCurrentThread();
  }

  private long now() {
    return context.currentSystemTimeMs();
  }
}
