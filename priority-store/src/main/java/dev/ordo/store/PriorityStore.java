package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.FairShares;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One partition's queue: the state log ({@link #STATE_STORE_NAME}, changelogged: every live item's
 * life-cycle state by blocks of offsets, {@link StateLog}), the item table ({@link #STORE_NAME}: the
 * whole items, not changelogged) and the indexes derived from it ({@link #INDEX_STORE_NAME}, not
 * changelogged), in three key-value stores under Kafka Streams (decisions D54, docs/store.md).
 *
 * <p>A facade (decisions D65): the items and their states are {@link ItemTable}'s; each index is a
 * view derived from the items ({@link ReadyView} with the groups' queues, {@link OrderView},
 * {@link AgeView}, {@link TimerView}, {@link OverflowView}, {@link TopicCountsView}, and the fair
 * shares), each computing an item's keys with a pure {@code keysOf(offset, item)}. {@link #transition}
 * is the one way to change an item: it writes the item and hands the views its before and after, and
 * each moves exactly the keys that differ, so the indexes cannot drift from the table.
 * {@link IndexRebuilder} rebuilds them in steps when the index store cannot be trusted. Not
 * thread-safe: it belongs to the partition's stream thread.
 */
public final class PriorityStore implements QueueView {
  /** The item table: not changelogged, rebuilt from {@link #STATE_STORE_NAME} and the items topic when needed. */
  public static final String STORE_NAME = "ordo-queue";
  /** The index store: ready, age, timer and counts entries, rebuilt from {@link #STORE_NAME} when needed. */
  public static final String INDEX_STORE_NAME = "ordo-queue-index";
  /** The state log ({@link StateLog}) and the generation, count of changes and high-water mark: changelogged. */
  public static final String STATE_STORE_NAME = "ordo-queue-state";
  /** Keys of a topic's ready (and age) range held on the heap; see {@link dev.ordo.store.internal.HeadCache}. */
  static final int HEAD_CAPACITY = 2_048;
  /** The heap budget of the decoded items when none is given: about 7,000 items of 200-byte payloads. */
  public static final long DEFAULT_DECODED_BYTES = 4L << 20;

  /**
   * The layout of the index store's keys: a vouch of another layout never matches, so an index
   * written by an older version is rebuilt, not misread. 2: the ready and age keys got a lane; 3: the
   * ready keys a fair-queueing slot, the group queues ({@code [0x24]}) and the group state ({@code [0x48]});
   * 4: flat groups' items in the ready index, a count of queued items in the group state (decisions D48);
   * 5: ordered groups' order index ({@code [0x2C]}), and only a group's head in the ready index (decisions D60).
   */
  static final byte INDEX_FORMAT = 5;

  private final ItemTable table;
  private final Indexes indexes;

  /** The item table and its indexes in one store (tests, tools). */
  public PriorityStore(KeyValueStore<Bytes, byte[]> kv) {
    this(kv, kv, DEFAULT_DECODED_BYTES);
  }

  /**
   * The item table with its state log in one store (as durable as each other: never rebuilt) and the index store,
   * keeping {@link #DEFAULT_DECODED_BYTES} of decoded items (tests, tools).
   */
  public PriorityStore(KeyValueStore<Bytes, byte[]> items, KeyValueStore<Bytes, byte[]> index) {
    this(items, index, DEFAULT_DECODED_BYTES);
  }

  /** The same, keeping {@code decodedBytes} of decoded items. */
  public PriorityStore(KeyValueStore<Bytes, byte[]> items, KeyValueStore<Bytes, byte[]> index, long decodedBytes) {
    this(items, items, index, decodedBytes);
  }

  /**
   * @param state the state store (changelogged): the state log and the meta values
   * @param items the item table (not changelogged); when it is {@code state} itself (tests, tools), it is as
   *     durable as the state log and never rebuilt
   * @param index the index store; call {@link #open} before anything else
   * @param decodedBytes the heap budget of the decoded items kept, estimated (payload, metadata and
   *     {@value DecodedItems#OVERHEAD_BYTES} bytes per item)
   */
  public PriorityStore(KeyValueStore<Bytes, byte[]> state, KeyValueStore<Bytes, byte[]> items,
      KeyValueStore<Bytes, byte[]> index, long decodedBytes) {
    this.table = new ItemTable(state, items, decodedBytes);
    this.indexes = new Indexes(index, table);
  }

  /**
   * Makes the index store match the item table, and returns true when it can be used at once: it could
   * be trusted as it was, or it was rebuilt along with the item table (false: it is being rebuilt, in
   * steps, {@link #rebuildStep}). Call it first, then
   * {@link #startGeneration} before the first change, and {@link #closeIndex} when the stream thread
   * stops using the stores. The index store is trusted when it vouches for exactly the item table's
   * state: its generation (new at every {@link #startGeneration}) and its count of changes (written by
   * {@link #markChanges} after the items of the batch it goes out with); it gets both only from
   * {@link #closeIndex}, and opening removes them first (docs/store.md, "Three stores").
   */
  public boolean openIndex() {
    return open(ItemSource.NONE);
  }

  /**
   * {@link #openIndex}, and before it the item table's own check: with a state log, the item table is
   * trusted when it vouches for the state store's generation and count of changes, and otherwise
   * rebuilt at once from the state log's live entries and their records, which {@code source} reads
   * from the items topic ({@link ItemTableRebuild}), the index along with it, item by item (decisions D67).
   * The store's own tests and tools open so; the queue bounds the indexing in the open.
   */
  public boolean open(ItemSource source) {
    return open(source, LegacyItemTable.NONE);
  }

  /**
   * {@link #open(ItemSource)}, migrating the item table of a version before the state log once: when
   * the state store was never written but the item table holds items (kept locally by that version)
   * or {@code legacy} restores some (its changelog), the table is the truth, and every item of it goes
   * into the state log at the next commit.
   */
  public boolean open(ItemSource source, LegacyItemTable legacy) {
    return open(source, legacy, () -> true);
  }

  /**
   * {@link #open(ItemSource, LegacyItemTable)}, indexing the rebuilt item table's items in its own pass
   * only while {@code indexAlong} says so (checked once per batch of 1,024): the rest is indexed in steps
   * ({@link #rebuildStep}). The caller bounds so how long the open stalls its thread.
   */
  public boolean open(ItemSource source, LegacyItemTable legacy, java.util.function.BooleanSupplier indexAlong) {
    if (table.migrateIfLegacy(legacy)) {
      indexes.takeVouch();
      return indexes.open(null, null);
    }
    ItemTable.Marks marks = table.openTable();
    byte[] vouch = indexes.takeVouch();
    if (!marks.trusted()) {
      return indexes.rebuildFed(indexAlong, index -> table.rebuild(source, index));
    }
    return indexes.open(marks.expected(), vouch);
  }

  /** Items of a pre-state-log item table copied into the state log when this store opened (0: none). */
  public long migratedItems() {
    return table.migrated();
  }

  /**
   * Moves up to {@code max} of the oldest live items, whole, to the cold part of the state log while they
   * are below {@code highWater - spanRecords} or were enqueued before {@code now - coldAfterMs}
   * (decisions D54); returns how many it moved.
   */
  public int coolDown(long now, long coldAfterMs, long spanRecords, int max) {
    return table.coolDown(now, coldAfterMs, spanRecords, max);
  }

  /** Every live item below this offset is kept whole in the state store (0 without a state log). */
  public long coldBelow() {
    return table.coldBelow();
  }

  /** What the last rebuild of the item table from the state log found, or null when there was none. */
  public ItemTableRebuild.Result lastItemTableRebuild() {
    return table.lastRebuild();
  }

  /** Starts a new generation of the item table (a changelogged write): call it before the first change. */
  public void startGeneration() {
    table.startGeneration();
  }

  /**
   * Gives the index store the item table's current generation as the stream thread stops using the
   * stores in order: the next {@link #openIndex} can then skip the rebuild. What lives on the heap
   * (counts, fair shares, LEASE timers) goes to the index store first, the vouch last. Writes the
   * index store only (no changelog, so no record context is needed).
   */
  public void closeIndex() {
    indexes.store.flush();
    byte[] vouch = table.vouch();
    if (vouch != null) { // else nothing to vouch for, or an item table that may lack changes: the next open rebuilds
      indexes.close(vouch);
    }
  }

  /**
   * The earliest time a timer of any kind may be due ({@code Long.MIN_VALUE}: a scan is needed), without
   * an allocation or a store read: called for every record of a quiet task.
   */
  public long nextTimerDue() {
    return indexes.timers.nextDue();
  }

  /** Applies the index writes held on the heap to the index store now (reads of the store do it anyway). */
  public void flushIndexWrites() {
    indexes.store.flush();
  }

  @Override
  public boolean rebuilding() {
    return indexes.rebuilder.rebuilding();
  }

  /** One bounded step of the index rebuild ({@link IndexRebuilder}), {@code max} entries at most; returns the items indexed. */
  public long rebuildStep(int max) {
    return indexes.rebuilder.step(max);
  }

  /** True the first time an offset of the items topic is seen; false for a replay (at-least-once), without a RocksDB read. */
  public boolean firstSighting(long offset) {
    return table.firstSighting(offset);
  }

  /** The highest offset of the items topic taken in so far, kept in the state store; -1: none. */
  public long intakeHighWater() {
    return table.highWater();
  }

  /**
   * The items of the item table at offsets {@code from} (inclusive) to {@code to} (exclusive), in
   * offset order, at most {@code max}: a bounded step of a scan of the whole table (a purge job,
   * decisions D56). Held item writes are written out first, so that the scan sees every change.
   */
  public List<Map.Entry<Long, StoredItem>> itemsBetween(long from, long to, int max) {
    return table.itemsBetween(from, to, max);
  }

  /** Writes the count of changes to the state store if transitions moved it: after each record's and punctuation's transitions. */
  public void markChanges() {
    table.markChanges();
  }

  /**
   * From now on the item table's writes are held on the heap until {@link #flushItemWrites}, or
   * until 8,192 items or 4 MiB of payloads are held (the queue's processor: Kafka Streams' cache
   * flush, {@code CommitHook}); without it every write is applied at once.
   */
  public void holdItemWrites() {
    table.hold();
  }

  /** Applies the item table's held writes, then the state log's changed blocks and the marks, in one batch. */
  public void flushItemWrites() {
    table.flush();
  }

  /** The entries of a state log block's value (its record on the state store's changelog), in offset order. */
  public static List<dev.ordo.schema.ItemStateEntry> stateBlockEntries(byte[] value) {
    return StateBlockFormat.entriesOf(value);
  }

  /** Blocks of the state log written since the store was made (0 without a state log). */
  public long stateBlocksWritten() {
    return table.blocksWritten();
  }

  /** The first {@code n} ready items of a topic in the order dispatch serves them, leasing nothing ({@link HeadPeek}). */
  public List<HeadPeek.Entry> peek(String namespace, String topic, int n) {
    return HeadPeek.first(indexes.peekReader(), namespace, topic, n);
  }

  @Override
  public StoredItem get(long offset) {
    return table.get(offset);
  }

  /**
   * Replaces {@code before} (what the table holds for {@code offset}, null when new) by
   * {@code after} (null to delete), with its index entries, counts and fair shares. An item keeps its
   * namespace, topic and group (the keys it leaves are computed from {@code before}).
   */
  public void transition(long offset, StoredItem before, StoredItem after) {
    table.write(offset, before, after);
    indexes.change(offset, before, after);
  }

  /**
   * Says that the item about to be taken in at {@code offset} (by the next {@link #transition} from
   * nothing there) is the single-object encoding {@code encoded}, exactly as the item table keeps it:
   * its record's value, when the record has no Kafka headers to merge and no registry framing. The
   * table then stores those bytes instead of encoding the item again.
   */
  public void takingIn(long offset, byte[] encoded) {
    table.takingIn(offset, encoded);
  }

  @Override
  public List<ReadyEntry> groupHead(String namespace, String topic, int priority, String group, int max) {
    return indexes.ready.groupHead(namespace, topic, priority, group, max);
  }

  @Override
  public long groupLeased(String namespace, String group) {
    return indexes.fair.leased(namespace, group);
  }

  @Override
  public List<ReadyEntry> readyHead(String namespace, String topic, int max) {
    return indexes.ready.readyHead(namespace, topic, max);
  }

  @Override
  public long virtualTime(String namespace, String topic, int priority) {
    return indexes.fair.virtualTime(namespace, topic, priority);
  }

  @Override
  public Long groupLastSlot(String namespace, String topic, int priority, String group) {
    return indexes.fair.lastSlot(namespace, topic, priority, group);
  }

  /** Fair queueing's state, read-only (tests). */
  public FairShares fairShares() {
    return indexes.fair;
  }

  /** Ready time of the topic's oldest ready item (of either lane), or null when none is ready. */
  public Long oldestReadyAt(String namespace, String topic) {
    return indexes.age.oldestReadyAt(namespace, topic);
  }

  @Override
  public List<Long> readyBefore(String namespace, String topic, long readyBefore, int max) {
    return indexes.age.readyBefore(namespace, topic, readyBefore, max);
  }

  @Override
  public List<TimerEntry> dueTimers(TimerKind kind, long now, int max) {
    return indexes.timers.due(kind, now, max);
  }

  /** The counts of one topic; zeros when it has no items. */
  public TopicCounts counts(String namespace, String topic) {
    return indexes.counts.counts(namespace, topic);
  }

  @Override
  public TopicCounts namespaceCounts(String namespace) {
    return indexes.counts.namespaceCounts(namespace);
  }

  /** True when items wait in OVERFLOW on this partition (no allocation: asked for every record of a quiet task). */
  public boolean hasOverflow() {
    return indexes.counts.hasOverflow();
  }

  @Override
  public Set<String> overflowNamespaces() {
    return indexes.counts.overflowNamespaces();
  }

  @Override
  public List<Long> overflowHead(String namespace, int max) {
    return indexes.overflow.head(namespace, max);
  }

  @Override
  public List<TopicCounts> topics(String namespace) {
    return indexes.counts.topics(namespace);
  }

  /** Every topic with items on this partition, across namespaces. */
  public List<TopicCounts> allTopics() {
    return indexes.counts.allTopics();
  }

  @Override
  public Long orderedHead(String namespace, String topic, String group) {
    return indexes.order.head(namespace, topic, group);
  }
}
