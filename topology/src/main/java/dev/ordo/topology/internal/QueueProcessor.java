package dev.ordo.topology.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.serde.WireFormat;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.TopicMeters;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * One partition's queue: reads {@code items} and {@code commands} (co-partitioned, so the same
 * task) and owns the partition's {@link PriorityStore}. Every state change happens here, on the
 * stream thread; under exactly_once_v2 a store change and the records it emits commit together.
 *
 * <p>It decides nothing itself: per record the {@link RecordIntake} decodes it and asks the
 * {@link QueuePlanner} what to do ({@link Effects}, given the store and the time); this class applies
 * that to the store, has {@link Outputs} forward the records it names, then asks the planner to serve
 * the open demands that want topics which got ready items, and applies that. Anything undecodable,
 * refused or failing in the planner goes to the dead-letter topic with its raw bytes, and nothing of
 * it is applied. Wall-clock {@link Punctuations} run the timers (delays, lease expiries, TTLs, lapsed
 * demand), purges, the cool-down and the {@link IndexRebuild} the same way, and the
 * {@link StatsPublisher} publishes changed topics' stats, when {@link Cadence} says they are due.
 * The store is opened by {@link StoreOpening}.
 */
public final class QueueProcessor implements Processor<byte[], byte[], Out, byte[]> {
  private final QueueConfig config;
  /** Single-object or, with a schema registry, Confluent framing ({@link QueueConfig#wireFormat}). */
  private final WireFormat wire;
  private final QueueMetrics metrics;
  private final TopicMeters meters;
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
  /** The task's ticks and continuation (set in {@link #init}). */
  private Punctuations punctuations;
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
  private int partition = -1;
  private boolean generationStarted;
  /** The index rebuild's steps and log lines (set in {@link #init}). */
  private IndexRebuild rebuild;
  /** Records decoded and planned (set in {@link #init}). */
  private RecordIntake intake;

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
    this.store = StoreOpening.create(context, config, deliveriesPartitions, this::pacer);
    this.partition = context.taskId().partition();
    this.outputs = new Outputs(context, wire, topics, metrics, meters, earlyAnswers, partition, deadLetterMaxBytes,
        replyCommitGapMs, commitPacer);
    Policies policies = new NamespaceStore.Reader(context.getStateStore(NamespaceStore.NAME), context::currentSystemTimeMs);
    this.planner = new QueuePlanner(settings, partition, new SplittableRandom(), policies,
        new LoadStore.Reader(context.getStateStore(LoadStore.NAME), context::currentSystemTimeMs, wire));
    this.stats = new StatsPublisher(context, wire, topics, meters, partition, store, planner);
    long initializedAt = context.currentSystemTimeMs();
    planner.started(initializedAt); // group rates' buckets start empty as of the takeover (decisions D61)
    purges = new PurgeJobs(context.getStateStore(PurgeJobs.STORE), partition,
        config.getDouble(QueueConfig.PURGE_RATE_CONFIG), initializedAt);
    dedup = new DedupWindow(context.getStateStore(DedupWindow.STORE), config.getLong(QueueConfig.DEDUP_MAX_ENTRIES_CONFIG));
    meters.dedupEntries(partition, dedup.size());
    intake = new RecordIntake(wire, topics, metrics, meters, partition, deliveriesPartitions, store, planner, policies,
        purges, dedup, outputs);
    rebuild = new IndexRebuild(store, metrics, meters, partition, rebuildStep, initializedAt);
    if (!StoreOpening.open(store, itemSources, partition, context.appConfigs(), metrics)) {
      rebuild.start(); // a new or small partition is done at once
    }
    if (!store.rebuilding()) {
      // Every topic's stats once at start (the rebuild does it when it ends): the metrics of a
      // topic that nothing changes after a restart are there too.
      for (TopicCounts t : store.allTopics()) {
        stats.markDirty(new TopicRef(t.namespace(), t.topic()));
      }
    }
    long fineMs = config.getLong(QueueConfig.PUNCTUATE_MS_CONFIG);
    long statsMs = config.getLong(QueueConfig.STATS_MS_CONFIG);
    cadence = new Cadence(fineMs, statsMs, context.currentSystemTimeMs());
    punctuations = new Punctuations(context, fineMs, statsMs, this::onTick, this::onContinuation);
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
        stats.limitedWaiting(), store.nextTimerDue(), now, punctuations.coarseMs());
    punctuations.fine(fine);
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
    rebuild.recordSeen(now);
    cadence.recordProcessed();
    pacer().working(now);
    maybeStartGeneration();
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    try {
      Effects effects = intake.plan(record, meta, now);
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
    if (!punctuations.fineArmed()) {
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
    if (punctuations.continuation(planner.dispatchPending())) {
      cadence.continuationArmed(context.currentSystemTimeMs());
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
      rebuild.leased(now);
    }
  }

  // ---- timers ----

  private void onTimers(long now) {
    pacer().working(now);
    maybeStartGeneration();
    if (store.rebuilding() && !rebuild.stepAtTick(now, planner.demands().size(), readyTopics, stats)) {
      planner.expireDemands(now);
      return; // no timers and no dispatch from a half-built index
    }
    try {
      apply(planner.onTimers(store, now), now);
      dispatch(now);
      stepPurges(now);
      coolDown(now);
      intake.expireDedup(now);
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

  // ---- output ----

  private CommitPacer pacer() {
    return commitPacer != null ? commitPacer : CommitPacer.ofCurrentThread();
  }

  private long now() {
    return context.currentSystemTimeMs();
  }
}
