package dev.ordo.topology.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.api.Names;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliveredItems;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.Outcomes;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.ReEntry;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.schema.TopicStats;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.TimerEntry;
import dev.ordo.store.TimerKind;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.utils.Bytes;
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
 * <p>Per record:
 * <ol>
 *   <li>items: decode, validate, admit as READY, DELAYED or PARKED (a re-entry command comes back
 *       from the delay tiers), ID = partition-offset;</li>
 *   <li>commands: ack, nack, extend, release, cancel check the lease and answer the requester;
 *       demand opens soft state that is served at once and whenever items become ready;
 *       re-entry brings a parked item back;</li>
 *   <li>anything undecodable or invalid goes to the dead-letter topic with its raw bytes.</li>
 * </ol>
 * A wall-clock punctuator fires due timers (delays, lease expiries, TTLs) from each kind's
 * checkpoint, drops lapsed demand and publishes changed topics' stats.
 */
public final class QueueProcessor implements Processor<byte[], byte[], Out, byte[]> {
  private static final Logger log = LoggerFactory.getLogger(QueueProcessor.class);

  private final QueueConfig config;
  private final QueueMetrics metrics;
  private final ClusterTopics topics;
  private final QueueDefaults defaults;
  private final List<Duration> tiers;
  private final int payloadLimit;
  private final int timerBatch;
  private final long redeliveryDelayMs;
  private final boolean ttlDeadLetter;
  private final int deliveriesPartitions;
  /** {@link QueueConfig#REPLY_COMMIT_GAP_CONFIG}: -1 never asks for a commit. */
  private final long replyCommitGapMs;
  /** Paces the commits asked for answers; null: the stream thread's own ({@link CommitPacer#ofCurrentThread}). */
  private final CommitPacer commitPacer;
  /** Something was sent to a requester that waits for it since the last {@link #flushAnswers}. */
  private boolean answeredUrgently;
  /** Requesters of {@link #pendingDeliveries} whose demand is urgent. */
  private final Set<String> pendingUrgent = new java.util.HashSet<>();
  private final SplittableRandom random = new SplittableRandom();

  private final DemandBook demands = new DemandBook();
  private final Set<List<String>> dirtyTopics = new LinkedHashSet<>();
  private final Set<List<String>> readyTopics = new LinkedHashSet<>();

  /** The command being processed and its requester, so a refusal can be answered. */
  private Command currentCommand;
  /**
   * Items leased while one record or timer run is processed, by requester id, in dispatch order:
   * sent when it ends, several to a record ({@link DeliveredItems}), so a demand served with a
   * hundred items costs one record on {@code deliveries}, not a hundred.
   */
  private final Map<String, List<DeliveredItem>> pendingDeliveries = new LinkedHashMap<>();
  private final Map<String, Requester> pendingRequesters = new HashMap<>();
  /** At most this many items, or about this many payload bytes, go in one deliveries record. */
  static final int MAX_ITEMS_PER_DELIVERY = 200;
  static final int MAX_BYTES_PER_DELIVERY = 256 * 1024;
  /** While an {@link Acks} command is processed: its outcomes, answered together; otherwise null. */
  private List<Outcome> collectedOutcomes;

  private ProcessorContext<Out, byte[]> context;
  private PriorityStore store;
  private int partition = -1;
  private boolean generationStarted;
  /** When the running index rebuild started (System.nanoTime), for its log line. */
  private long rebuildStarted;
  /** Items indexed per punctuation while the index is rebuilt ({@link QueueConfig#REBUILD_STEP_CONFIG}). */
  private final int rebuildStep;

  public QueueProcessor(QueueConfig config, QueueMetrics metrics, int deliveriesPartitions) {
    this(config, metrics, deliveriesPartitions, null);
  }

  /** {@code commitPacer}: a pacer of its own (tests), or null for the stream thread's. */
  QueueProcessor(QueueConfig config, QueueMetrics metrics, int deliveriesPartitions, CommitPacer commitPacer) {
    this.commitPacer = commitPacer;
    this.config = config;
    this.metrics = metrics;
    this.topics = config.topics();
    this.defaults = config.defaults();
    this.tiers = config.delayTiers();
    this.payloadLimit = config.getInt(QueueConfig.PAYLOAD_MAX_BYTES_CONFIG);
    this.timerBatch = config.getInt(QueueConfig.TIMER_BATCH_CONFIG);
    this.rebuildStep = config.getInt(QueueConfig.REBUILD_STEP_CONFIG);
    this.redeliveryDelayMs = config.getLong(QueueConfig.REDELIVERY_DELAY_MS_CONFIG);
    this.ttlDeadLetter = config.getBoolean(QueueConfig.TTL_DEAD_LETTER_CONFIG);
    this.deliveriesPartitions = deliveriesPartitions;
    this.replyCommitGapMs = config.getLong(QueueConfig.REPLY_COMMIT_GAP_CONFIG);
  }

  @Override
  public void init(ProcessorContext<Out, byte[]> context) {
    this.context = context;
    KeyValueStore<Bytes, byte[]> kv = context.getStateStore(PriorityStore.STORE_NAME);
    PriorityStore opened = new PriorityStore(kv, context.getStateStore(PriorityStore.INDEX_STORE_NAME),
        config.getLong(QueueConfig.ITEM_CACHE_BYTES_CONFIG) / Math.max(1, deliveriesPartitions));
    if (CommitHook.attach(kv, () -> {
      opened.flushItemWrites();
      pacer().commitStarted(context.currentSystemTimeMs());
    })) {
      opened.holdItemWrites();
    } else {
      log.warn("The store {} has no commit hook: every item write goes to RocksDB and the changelog at once",
          PriorityStore.STORE_NAME);
    }
    this.store = opened;
    this.partition = context.taskId().partition();
    if (!store.openIndex()) {
      rebuildStarted = System.nanoTime();
      stepRebuild(); // a new or small partition is done at once
      if (store.rebuilding()) {
        log.info("Partition {}: the index store does not match the item table (a crash or a moved task); rebuilding"
            + " it in steps of {} items per punctuation, dispatching when done", partition, rebuildStep);
      }
    }
    context.schedule(Duration.ofMillis(config.getLong(QueueConfig.PUNCTUATE_MS_CONFIG)),
        PunctuationType.WALL_CLOCK_TIME, this::onTimers);
    context.schedule(Duration.ofMillis(config.getLong(QueueConfig.STATS_MS_CONFIG)),
        PunctuationType.WALL_CLOCK_TIME, this::publishStats);
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
    pacer().working(now());
    maybeStartGeneration();
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    boolean isItem = meta.topic().equals(topics.items());
    currentCommand = null;
    try {
      processOne(isItem, record, meta);
      dispatchReady();
    } finally {
      flushAnswers();
      store.markChanges();
      currentCommand = null;
    }
  }

  private void processOne(boolean isItem, Record<byte[], byte[]> record, RecordMetadata meta) {
    try {
      if (isItem) {
        onItem(meta.offset(), record);
      } else {
        onCommand(record);
      }
    } catch (OrdoSerdeException e) {
      metrics.increment(QueueMetrics.MALFORMED);
      deadLetterRaw(DeadLetterReason.MALFORMED, e.getMessage(), record, meta);
    } catch (IllegalArgumentException e) {
      metrics.increment(isItem ? QueueMetrics.MALFORMED : QueueMetrics.INVALID_COMMAND);
      deadLetterRaw(DeadLetterReason.INVALID, e.getMessage(), record, meta);
      answerInvalid(e.getMessage());
    } catch (KafkaException e) {
      throw e; // fencing, migration, store failures: Kafka Streams must handle these
    } catch (RuntimeException e) {
      // A bug of ours must not turn one record into a poison pill that kills the thread forever.
      log.error("Unexpected failure on {}-{}@{}; dead-lettering the record", meta.topic(), meta.partition(),
          meta.offset(), e);
      metrics.increment(QueueMetrics.MALFORMED);
      deadLetterRaw(DeadLetterReason.INVALID, "internal error: " + e, record, meta);
    }
  }

  @Override
  public void close() {
    if (store != null) {
      store.closeIndex();
    }
  }

  // ---- items ----

  private void onItem(long offset, Record<byte[], byte[]> record) {
    if (!store.firstSighting(offset)) {
      metrics.increment(QueueMetrics.DUPLICATE_ENQUEUE);
      return;
    }
    Item item = OrdoSerdes.ITEM.decode(record.value());
    validate(item);
    long now = now();
    StoredItem stored = Lifecycle.admit(item, record.timestamp(), now, defaults);
    if (stored.getExpiresAt() != null && stored.getExpiresAt() <= now) {
      metrics.increment(QueueMetrics.TTL_EXPIRED);
      if (ttlDeadLetter) {
        deadLetter(offset, stored, DeadLetterReason.TTL_EXPIRED, "time to live passed before enqueue");
      }
      return;
    }
    metrics.increment(QueueMetrics.ENQUEUED);
    if (stored.getState() == ItemState.READY && !store.rebuilding() && leaseOnArrival(offset, stored)) {
      return;
    }
    store.transition(offset, null, stored);
    afterChange(offset, stored);
  }

  /**
   * An item that arrives READY while an open demand wants its topic is leased at once, without ever
   * being written as READY. It is what {@link #dispatchReady} would do right after admitting it, at a
   * fraction of the writes (no ready and age entries put and deleted, one item write instead of two):
   * after every record and timer run, no open demand wants a topic that has ready items (they would
   * have been dispatched), so the new item is its topic's head, and the demand first in the round-robin
   * order that wants it gets it, as dispatchReady would give it.
   */
  private boolean leaseOnArrival(long offset, StoredItem ready) {
    if (demands.isEmpty()) {
      return false;
    }
    String topic = ready.getItem().getTopic();
    List<DemandBook.Open> wanting = demands.wanting(ready.getItem().getNamespace(), topic);
    if (wanting.isEmpty()) {
      return false;
    }
    DemandBook.Open open = wanting.get(0);
    String key = open.wanted(topic) > 0 ? topic : DemandBook.ANY_TOPIC;
    lease(offset, null, ready, open.requester(), open.urgent());
    open.served(key, 1);
    demands.afterServing(open);
    return true;
  }

  private void validate(Item item) {
    check(Names.problem("namespace", item.getNamespace()));
    check(Names.problem("topic", item.getTopic()));
    if (DemandBook.ANY_TOPIC.equals(item.getTopic())) {
      throw new IllegalArgumentException("topic '*' is reserved (it means any topic in a dequeue)");
    }
    int size = item.getPayload().remaining();
    if (size > payloadLimit) {
      throw new IllegalArgumentException("payload of " + size + " bytes is over the limit of " + payloadLimit);
    }
    if (item.getLeaseDurationMs() != null && item.getLeaseDurationMs() <= 0) {
      throw new IllegalArgumentException("leaseDurationMs must be > 0, got " + item.getLeaseDurationMs());
    }
    if (item.getTtlMs() != null && item.getTtlMs() <= 0) {
      throw new IllegalArgumentException("ttlMs must be > 0, got " + item.getTtlMs());
    }
    if (item.getMaxAttempts() != null && item.getMaxAttempts() < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, got " + item.getMaxAttempts());
    }
  }

  private static void check(String problem) {
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  // ---- commands ----

  private void onCommand(Record<byte[], byte[]> record) {
    Command command = OrdoSerdes.COMMAND.decode(record.value());
    Requester requester = command.getRequester();
    if (requester != null && (requester.getReplyPartition() < 0
        || deliveriesPartitions > 0 && requester.getReplyPartition() >= deliveriesPartitions)) {
      metrics.increment(QueueMetrics.UNROUTABLE_REPLY);
      throw new IllegalArgumentException("reply partition " + requester.getReplyPartition()
          + " of requester " + requester.getId() + " is not a partition of " + topics.deliveries());
    }
    currentCommand = command;
    Object body = command.getBody();
    if (body instanceof Demand demand) {
      onDemand(requester, demand);
    } else if (body instanceof Ack ack) {
      onAck(requester, ack);
    } else if (body instanceof Acks acks) {
      onAcks(requester, acks);
    } else if (body instanceof Nack nack) {
      onNack(requester, nack);
    } else if (body instanceof Extend extend) {
      onExtend(requester, extend);
    } else if (body instanceof Release release) {
      onRelease(requester, release);
    } else if (body instanceof ReEntry reEntry) {
      onReEntry(reEntry);
    } else if (body instanceof Cancel cancel) {
      onCancel(requester, cancel);
    } else {
      throw new IllegalArgumentException("unknown command body " + body);
    }
  }

  private void onDemand(Requester requester, Demand demand) {
    if (requester == null) {
      throw new IllegalArgumentException("a demand needs a requester to deliver to");
    }
    check(Names.problem("namespace", demand.getNamespace()));
    if (demand.getValidForMs() <= 0) {
      throw new IllegalArgumentException("demand validForMs must be > 0, got " + demand.getValidForMs());
    }
    for (Map.Entry<String, Integer> e : demand.getTopics().entrySet()) {
      if (!DemandBook.ANY_TOPIC.equals(e.getKey())) {
        check(Names.problem("topic", e.getKey()));
      }
      if (e.getValue() == null || e.getValue() < 0) {
        throw new IllegalArgumentException("demand count for topic " + e.getKey() + " must be >= 0");
      }
    }
    metrics.increment(QueueMetrics.DEMANDS);
    DemandBook.Open open = demands.put(requester, demand.getNamespace(), demand.getTopics(),
        now() + demand.getValidForMs(), demand.getReplace(), urgentCommand());
    if (store.rebuilding()) {
      return; // served when the index is rebuilt
    }
    serve(open);
    demands.afterServing(open);
  }

  /** The item a lease command names, or null after answering UNKNOWN_ITEM / STALE_LEASE. */
  private StoredItem leased(Requester requester, CommandKind kind, String itemId, String leaseId) {
    StoredItem item = ownItem(requester, kind, itemId);
    if (item == null) {
      return null;
    }
    if (!Lifecycle.holds(item, leaseId)) {
      metrics.increment(QueueMetrics.STALE_LEASE);
      reply(requester, outcome(itemId, kind, OutcomeResult.STALE_LEASE,
          "lease " + leaseId + " is not the item's current lease (state " + item.getState() + ")", null));
      return null;
    }
    return item;
  }

  /** The item an ID names on this partition, or null after answering UNKNOWN_ITEM. */
  private StoredItem ownItem(Requester requester, CommandKind kind, String itemId) {
    ItemId id = ItemId.parse(itemId);
    if (id.partition() != partition) {
      throw new IllegalArgumentException("item " + itemId + " belongs to partition " + id.partition()
          + " but its " + kind + " arrived on partition " + partition);
    }
    StoredItem item = store.get(id.offset());
    if (item == null) {
      metrics.increment(QueueMetrics.UNKNOWN_ITEM);
      reply(requester, outcome(itemId, kind, OutcomeResult.UNKNOWN_ITEM, "no such item (acked, expired or never enqueued)", null));
    }
    return item;
  }

  private void onAck(Requester requester, Ack ack) {
    StoredItem item = leased(requester, CommandKind.ACK, ack.getItemId(), ack.getLeaseId());
    if (item == null) {
      return;
    }
    long offset = ItemId.parse(ack.getItemId()).offset();
    store.transition(offset, item, null);
    metrics.increment(QueueMetrics.ACKED);
    markDirty(item);
    reply(requester, outcome(ack.getItemId(), CommandKind.ACK, OutcomeResult.APPLIED, null, null));
  }

  /**
   * Several acks in one command: each is applied as a single ack would be, a refused one (an ID of
   * another partition, say) answered INVALID without stopping the others, and the requester gets all
   * outcomes in one delivery.
   */
  private void onAcks(Requester requester, Acks acks) {
    List<Outcome> outcomes = new ArrayList<>(acks.getAcks().size());
    collectedOutcomes = outcomes;
    try {
      for (Ack ack : acks.getAcks()) {
        try {
          onAck(requester, ack);
        } catch (IllegalArgumentException e) {
          metrics.increment(QueueMetrics.INVALID_COMMAND);
          outcomes.add(outcome(ack.getItemId(), CommandKind.ACK, OutcomeResult.INVALID, e.getMessage(), null));
        }
      }
    } finally {
      collectedOutcomes = null;
    }
    if (requester != null) {
      send(requester, new Outcomes(outcomes), urgentCommand());
    }
  }

  private void onNack(Requester requester, Nack nack) {
    if (nack.getDelayMs() < 0) {
      throw new IllegalArgumentException("nack delayMs must be >= 0, got " + nack.getDelayMs());
    }
    StoredItem item = leased(requester, CommandKind.NACK, nack.getItemId(), nack.getLeaseId());
    if (item == null) {
      return;
    }
    long offset = ItemId.parse(nack.getItemId()).offset();
    metrics.increment(QueueMetrics.NACKED);
    Decision decision = Lifecycle.nack(item, nack.getDelayMs(), nack.getMetadata(), nack.getError(),
        nack.getDeadLetter(), now(), defaults.parkAfterMs());
    apply(offset, item, decision);
    reply(requester, outcome(nack.getItemId(), CommandKind.NACK, OutcomeResult.APPLIED,
        decision instanceof Decision.DeadLetter d ? "dead-lettered: " + d.reason() : null, null));
  }

  private void onExtend(Requester requester, Extend extend) {
    if (extend.getLeaseDurationMs() <= 0) {
      throw new IllegalArgumentException("extend leaseDurationMs must be > 0, got " + extend.getLeaseDurationMs());
    }
    StoredItem item = leased(requester, CommandKind.EXTEND, extend.getItemId(), extend.getLeaseId());
    if (item == null) {
      return;
    }
    StoredItem extended = Lifecycle.extend(item, extend.getLeaseDurationMs(), now());
    store.transition(ItemId.parse(extend.getItemId()).offset(), item, extended);
    metrics.increment(QueueMetrics.EXTENDED);
    reply(requester, outcome(extend.getItemId(), CommandKind.EXTEND, OutcomeResult.APPLIED, null,
        extended.getLeaseExpiresAt()));
  }

  private void onRelease(Requester requester, Release release) {
    StoredItem item = leased(requester, CommandKind.RELEASE, release.getItemId(), release.getLeaseId());
    if (item == null) {
      return;
    }
    long offset = ItemId.parse(release.getItemId()).offset();
    StoredItem released = Lifecycle.release(item, now());
    store.transition(offset, item, released);
    metrics.increment(QueueMetrics.RELEASED);
    afterChange(offset, released);
    reply(requester, outcome(release.getItemId(), CommandKind.RELEASE, OutcomeResult.APPLIED, null, null));
  }

  private void onCancel(Requester requester, Cancel cancel) {
    StoredItem item = ownItem(requester, CommandKind.CANCEL, cancel.getItemId());
    if (item == null) {
      return;
    }
    store.transition(ItemId.parse(cancel.getItemId()).offset(), item, null);
    metrics.increment(QueueMetrics.CANCELLED);
    markDirty(item);
    reply(requester, outcome(cancel.getItemId(), CommandKind.CANCEL, OutcomeResult.APPLIED, null, null));
  }

  private void onReEntry(ReEntry reEntry) {
    ItemId id = ItemId.parse(reEntry.getItemId());
    if (id.partition() != partition) {
      throw new IllegalArgumentException("re-entry of item " + id + " arrived on partition " + partition);
    }
    StoredItem item = store.get(id.offset());
    if (item == null || item.getState() != ItemState.PARKED || item.getReadyAt() != reEntry.getDueAt()) {
      // Cancelled, expired or already back: the re-entry is stale.
      metrics.increment(QueueMetrics.REENTRY_DROPPED);
      return;
    }
    StoredItem back = Lifecycle.reenter(item, reEntry.getDueAt(), now());
    store.transition(id.offset(), item, back);
    metrics.increment(QueueMetrics.REENTERED);
    afterChange(id.offset(), back);
  }

  /** Tells the requester of a refused command why, as an INVALID outcome, when it can be reached. */
  private void answerInvalid(String why) {
    Command command = currentCommand;
    if (command == null || command.getRequester() == null) {
      return;
    }
    Object body = command.getBody();
    String itemId = "";
    CommandKind kind;
    if (body instanceof Ack a) {
      kind = CommandKind.ACK;
      itemId = a.getItemId();
    } else if (body instanceof Nack n) {
      kind = CommandKind.NACK;
      itemId = n.getItemId();
    } else if (body instanceof Extend x) {
      kind = CommandKind.EXTEND;
      itemId = x.getItemId();
    } else if (body instanceof Release r) {
      kind = CommandKind.RELEASE;
      itemId = r.getItemId();
    } else if (body instanceof Cancel c) {
      kind = CommandKind.CANCEL;
      itemId = c.getItemId();
    } else if (body instanceof Demand) {
      kind = CommandKind.DEMAND;
    } else {
      return;
    }
    reply(command.getRequester(), outcome(itemId, kind, OutcomeResult.INVALID, why, null));
  }

  // ---- dispatch ----

  /** Serves every open demand that wants a topic that got ready items since the last call. */
  private void dispatchReady() {
    if (readyTopics.isEmpty() || store.rebuilding()) {
      return;
    }
    if (demands.isEmpty()) {
      readyTopics.clear();
      return;
    }
    List<List<String>> touched = new ArrayList<>(readyTopics);
    readyTopics.clear();
    for (List<String> nsTopic : touched) {
      for (DemandBook.Open open : demands.wanting(nsTopic.get(0), nsTopic.get(1))) {
        serveTopic(open, nsTopic.get(1));
        demands.afterServing(open);
      }
    }
  }

  /** Hands out what an open demand asks for, in priority order. */
  private void serve(DemandBook.Open open) {
    for (String topic : new ArrayList<>(open.remaining().keySet())) {
      if (!DemandBook.ANY_TOPIC.equals(topic)) {
        serveTopic(open, topic);
      }
    }
    int any = open.wanted(DemandBook.ANY_TOPIC);
    if (any > 0) {
      // Merge the heads of the namespace's topics: each contributes at most `any` candidates.
      List<Candidate> candidates = new ArrayList<>();
      for (TopicCounts t : store.topics(open.namespace())) {
        if (t.ready() > 0) {
          for (ReadyEntry e : store.readyHead(open.namespace(), t.topic(), any)) {
            candidates.add(new Candidate(t.topic(), e));
          }
        }
      }
      candidates.sort((a, b) -> a.entry.compareTo(b.entry));
      int n = 0;
      for (Candidate c : candidates) {
        if (n == any) {
          break;
        }
        if (leaseOut(c.entry.offset(), open)) {
          n++;
        }
      }
      open.served(DemandBook.ANY_TOPIC, n);
    }
  }

  private record Candidate(String topic, ReadyEntry entry) {}

  /** Serves one topic of a demand: first its own count for the topic, then its any-topic count. */
  private void serveTopic(DemandBook.Open open, String topic) {
    for (String key : new String[] {topic, DemandBook.ANY_TOPIC}) {
      int wanted = open.wanted(key);
      if (wanted <= 0) {
        continue;
      }
      int n = 0;
      for (ReadyEntry e : store.readyHead(open.namespace(), topic, wanted)) {
        if (leaseOut(e.offset(), open)) {
          n++;
        }
      }
      open.served(key, n);
    }
  }

  private boolean leaseOut(long offset, DemandBook.Open open) {
    StoredItem item = store.get(offset);
    if (item == null || item.getState() != ItemState.READY) {
      return false;
    }
    lease(offset, item, item, open.requester(), open.urgent());
    return true;
  }

  /**
   * Leases a READY item to {@code requester} and delivers it.
   *
   * @param before what the store holds for the item (null: nothing yet, it is arriving)
   * @param item the item, READY
   */
  private void lease(long offset, StoredItem before, StoredItem item, Requester requester, boolean urgent) {
    long now = now();
    String leaseId = "a" + (item.getAttempts() + 1) + "-" + Long.toHexString(random.nextLong());
    StoredItem leased = Lifecycle.lease(item, leaseId, requester, now);
    store.transition(offset, before, leased);
    metrics.increment(QueueMetrics.DISPATCHED);
    markDirty(leased);
    Item i = leased.getItem();
    DeliveredItem delivered = DeliveredItem.newBuilder()
        .setItemId(new ItemId(partition, offset).toString())
        .setLeaseId(leaseId)
        .setNamespace(i.getNamespace())
        .setTopic(i.getTopic())
        .setPriority(i.getPriority())
        .setAttempt(leased.getAttempts())
        .setPayload(i.getPayload())
        .setMetadata(i.getMetadata())
        .setEnqueuedAt(leased.getEnqueuedAt())
        .setLeaseExpiresAt(leased.getLeaseExpiresAt())
        .setSemantics(leased.getSemantics())
        .setGroupKey(i.getGroupKey())
        .setTraceId(i.getTraceId())
        .build();
    pendingDeliveries.computeIfAbsent(requester.getId(), k -> new ArrayList<>()).add(delivered);
    pendingRequesters.putIfAbsent(requester.getId(), requester);
    if (urgent) {
      pendingUrgent.add(requester.getId());
    }
  }

  /** Sends the items leased since the last call: one record per requester and chunk. */
  private void sendPendingDeliveries() {
    if (pendingDeliveries.isEmpty()) {
      return;
    }
    for (Map.Entry<String, List<DeliveredItem>> e : pendingDeliveries.entrySet()) {
      Requester requester = pendingRequesters.get(e.getKey());
      List<DeliveredItem> items = e.getValue();
      int from = 0;
      while (from < items.size()) {
        int to = from;
        int bytes = 0;
        while (to < items.size() && to - from < MAX_ITEMS_PER_DELIVERY
            && (to == from || bytes + items.get(to).getPayload().remaining() <= MAX_BYTES_PER_DELIVERY)) {
          bytes += items.get(to).getPayload().remaining();
          to++;
        }
        send(requester, to - from == 1 ? items.get(from) : new DeliveredItems(new ArrayList<>(items.subList(from, to))),
            pendingUrgent.contains(e.getKey()));
        from = to;
      }
    }
    pendingDeliveries.clear();
    pendingRequesters.clear();
    pendingUrgent.clear();
  }

  // ---- timers ----

  private void onTimers(long now) {
    pacer().working(now);
    maybeStartGeneration();
    if (store.rebuilding() && !rebuildStep()) {
      demands.expire(now);
      return; // no timers and no dispatch from a half-built index
    }
    try {
      fireTimers(now);
    } finally {
      flushAnswers();
      store.markChanges();
      store.flushIndexWrites(); // bounds how long index writes wait on the heap (and for what)
    }
  }

  private void stepRebuild() {
    metrics.add(QueueMetrics.INDEX_REBUILT_ITEMS, store.rebuildStep(rebuildStep));
    metrics.increment(QueueMetrics.INDEX_REBUILD_STEPS);
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
    log.info("Partition {}: the index is rebuilt ({} ms)", partition, (System.nanoTime() - rebuildStarted) / 1_000_000);
    for (TopicCounts t : store.allTopics()) {
      List<String> nsTopic = List.of(t.namespace(), t.topic());
      dirtyTopics.add(nsTopic);
      if (t.ready() > 0) {
        readyTopics.add(nsTopic);
      }
    }
    return true;
  }

  private void fireTimers(long now) {
    demands.expire(now);
    for (TimerEntry t : store.dueTimers(TimerKind.TTL, now, timerBatch)) {
      StoredItem item = store.get(t.offset());
      if (item == null || item.getExpiresAt() == null || item.getExpiresAt() != t.dueAt()) {
        continue;
      }
      store.transition(t.offset(), item, null);
      metrics.increment(QueueMetrics.TTL_EXPIRED);
      markDirty(item);
      if (ttlDeadLetter) {
        deadLetter(t.offset(), item, DeadLetterReason.TTL_EXPIRED, "time to live passed in state " + item.getState());
      }
    }
    for (TimerEntry t : store.dueTimers(TimerKind.DUE, now, timerBatch)) {
      StoredItem item = store.get(t.offset());
      if (item == null || item.getState() != ItemState.DELAYED || item.getReadyAt() != t.dueAt()) {
        continue;
      }
      StoredItem ready = Lifecycle.due(item);
      store.transition(t.offset(), item, ready);
      afterChange(t.offset(), ready);
    }
    for (TimerEntry t : store.dueTimers(TimerKind.LEASE, now, timerBatch)) {
      StoredItem item = store.get(t.offset());
      if (item == null || item.getState() != ItemState.LEASED || item.getLeaseExpiresAt() != t.dueAt()) {
        continue;
      }
      metrics.increment(QueueMetrics.LEASE_EXPIRED);
      apply(t.offset(), item, Lifecycle.leaseExpired(item, now, redeliveryDelayMs, defaults.parkAfterMs()));
    }
    dispatchReady();
  }

  /** Applies a nack or lease-expiry decision. */
  private void apply(long offset, StoredItem before, Decision decision) {
    if (decision instanceof Decision.Keep keep) {
      store.transition(offset, before, keep.item());
      afterChange(offset, keep.item());
    } else if (decision instanceof Decision.Drop) {
      store.transition(offset, before, null);
      metrics.increment(QueueMetrics.AT_MOST_ONCE_DROPPED);
      markDirty(before);
    } else if (decision instanceof Decision.DeadLetter dl) {
      store.transition(offset, before, null);
      markDirty(before);
      deadLetter(offset, dl.item(), dl.reason(), dl.detail());
    }
  }

  /** After an item changed state: stats, dispatch when ready, the tiers when parked. */
  private void afterChange(long offset, StoredItem item) {
    markDirty(item);
    if (item.getState() == ItemState.READY) {
      readyTopics.add(List.of(item.getItem().getNamespace(), item.getItem().getTopic()));
    } else if (item.getState() == ItemState.PARKED) {
      park(offset, item);
    }
  }

  /**
   * Sends a PARKED item's re-entry through the delay tiers: to the longest tier not longer than the
   * remaining wait. The forwarders route it on and deliver it to {@code commands} on this partition.
   */
  private void park(long offset, StoredItem item) {
    long now = now();
    long remaining = item.getReadyAt() - now;
    Duration tier = null;
    for (Duration d : tiers) {
      if (d.toMillis() <= remaining) {
        tier = d;
      }
    }
    if (tier == null) {
      throw new IllegalStateException("parked item " + offset + " with " + remaining + " ms left fits no tier of " + tiers);
    }
    String id = new ItemId(partition, offset).toString();
    Command reEntry = Command.newBuilder()
        .setRequester(null)
        .setSentAt(now)
        .setBody(new ReEntry(id, item.getReadyAt()))
        .build();
    DelayedRecord envelope = DelayedRecord.newBuilder()
        .setDueAt(item.getReadyAt())
        .setTargetTopic(topics.commands())
        .setTargetPartition(partition)
        .setKey(ByteBuffer.wrap(id.getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteBuffer.wrap(OrdoSerdes.COMMAND.encode(reEntry)))
        .setScheduledAt(now)
        .build();
    metrics.increment(QueueMetrics.PARKED);
    context.forward(new Record<>(new Out(topics.delayTier(tier), null, id.getBytes(StandardCharsets.UTF_8)),
        OrdoSerdes.DELAYED_RECORD.encode(envelope), now));
  }

  // ---- stats ----

  private void markDirty(StoredItem item) {
    dirtyTopics.add(List.of(item.getItem().getNamespace(), item.getItem().getTopic()));
  }

  private void publishStats(long now) {
    if (dirtyTopics.isEmpty() || store.rebuilding()) {
      return;
    }
    for (List<String> nsTopic : dirtyTopics) {
      String ns = nsTopic.get(0);
      String topic = nsTopic.get(1);
      byte[] key = (ns + "/" + topic + "/" + partition).getBytes(StandardCharsets.UTF_8);
      TopicCounts c = store.counts(ns, topic);
      byte[] value = null;
      if (c.total() > 0) {
        List<ReadyEntry> head = store.readyHead(ns, topic, 1);
        value = OrdoSerdes.TOPIC_STATS.encode(TopicStats.newBuilder()
            .setNamespace(ns).setTopic(topic).setPartition(partition)
            .setReady(c.ready()).setDelayed(c.delayed()).setLeased(c.leased()).setParked(c.parked())
            .setHeadPriority(head.isEmpty() ? null : head.get(0).priority())
            .setOldestReadyAt(store.oldestReadyAt(ns, topic))
            .setUpdatedAt(now)
            .build());
      }
      context.forward(new Record<>(new Out(topics.topicStats(), null, key), value, now));
    }
    dirtyTopics.clear();
  }

  // ---- output ----

  /** {@code urgent}: the requester waits for this (see {@link #flushAnswers}). */
  private void send(Requester requester, Object body, boolean urgent) {
    Delivery delivery = new Delivery(requester.getId(), body);
    byte[] key = requester.getId().getBytes(StandardCharsets.UTF_8);
    context.forward(new Record<>(new Out(topics.deliveries(), requester.getReplyPartition(), key),
        OrdoSerdes.DELIVERY.encode(delivery), now()));
    answeredUrgently |= urgent;
  }

  /** True when the command being processed asked for a quick answer ({@code Command.urgent}). */
  private boolean urgentCommand() {
    return currentCommand != null && currentCommand.getUrgent();
  }

  /**
   * Sends the items leased by this record or timer run, and when someone waits for what was
   * answered (an urgent command or demand) asks for a commit: under exactly-once an answer is visible
   * only once committed.
   */
  private void flushAnswers() {
    sendPendingDeliveries();
    if (answeredUrgently) {
      answeredUrgently = false;
      askCommitForAnswer(now());
    }
  }

  /**
   * Someone waits for what was just sent, and under exactly-once it is visible only once committed:
   * ask for a commit at the end of this batch of records rather than at the next commit interval, as
   * often as the stream thread's {@link CommitPacer} allows: at most once per
   * {@link QueueConfig#REPLY_COMMIT_GAP_CONFIG}, and less often while commits take longer (decisions
   * D19). Only for requesters
   * that said they wait ({@code Command.urgent}): asked for every answer, a lease consumer's stream
   * of demands and acks made a busy thread commit every 5 ms and halved its throughput.
   */
  private void askCommitForAnswer(long now) {
    if (pacer().ask(now, replyCommitGapMs)) {
      context.commit();
    }
  }

  private CommitPacer pacer() {
    return commitPacer != null ? commitPacer : CommitPacer.ofCurrentThread();
  }


  private void reply(Requester requester, Outcome outcome) {
    if (collectedOutcomes != null) {
      collectedOutcomes.add(outcome);
    } else if (requester != null) {
      send(requester, outcome, urgentCommand());
    }
  }

  private static Outcome outcome(String itemId, CommandKind kind, OutcomeResult result, String detail, Long leaseExpiresAt) {
    return new Outcome(itemId, kind, result, detail, leaseExpiresAt);
  }

  private void deadLetter(long offset, StoredItem item, DeadLetterReason reason, String detail) {
    metrics.increment(QueueMetrics.DEAD_LETTERED);
    String id = new ItemId(partition, offset).toString();
    List<dev.ordo.schema.AttemptRecord> history = item.getHistory();
    DeadLetter dl = DeadLetter.newBuilder()
        .setReason(reason)
        .setDetail(detail)
        .setItemId(id)
        .setItem(item.getItem())
        .setAttempts(item.getAttempts())
        .setLastError(history.isEmpty() ? null : history.get(history.size() - 1).getError())
        .setHistory(history)
        .setSourceTopic(topics.items())
        .setSourcePartition(partition)
        .setSourceOffset(offset)
        .setDeadAt(now())
        .build();
    context.forward(new Record<>(new Out(topics.dlq(), null, id.getBytes(StandardCharsets.UTF_8)),
        OrdoSerdes.DEAD_LETTER.encode(dl), now()));
  }

  private void deadLetterRaw(DeadLetterReason reason, String detail, Record<byte[], byte[]> record, RecordMetadata meta) {
    metrics.increment(QueueMetrics.DEAD_LETTERED);
    DeadLetter dl = DeadLetter.newBuilder()
        .setReason(reason)
        .setDetail(detail)
        .setRawKey(record.key() == null ? null : ByteBuffer.wrap(record.key()))
        .setRawValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
        .setSourceTopic(meta.topic())
        .setSourcePartition(meta.partition())
        .setSourceOffset(meta.offset())
        .setItemId(meta.topic().equals(topics.items()) ? new ItemId(meta.partition(), meta.offset()).toString() : null)
        .setDeadAt(now())
        .build();
    context.forward(new Record<>(new Out(topics.dlq(), null, record.key()), OrdoSerdes.DEAD_LETTER.encode(dl), now()));
  }

  private long now() {
    return context.currentSystemTimeMs();
  }
}
