package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.FairShares;
import dev.ordo.store.internal.KeyFamily;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
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
  private static final Bytes INDEX_GENERATION_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'x'});
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
  private final IndexStore index;
  private final FairShares fair = new FairShares();
  private final ReadyView ready;
  private final OrderView order;
  private final AgeView age;
  private final TimerView timers;
  private final OverflowView overflow;
  private final TopicCountsView counts = new TopicCountsView();
  private final IndexRebuilder rebuilder;

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
    this.index = new IndexStore(index);
    this.ready = new ReadyView(this.index, fair);
    this.order = new OrderView(this.index, ready, this::get);
    this.age = new AgeView(this.index);
    this.timers = new TimerView(this.index);
    this.overflow = new OverflowView(this.index);
    this.rebuilder = new IndexRebuilder(this.index, table, (offset, item) -> reindex(offset, null, item), () -> {
      ready.reset();
      order.reset();
      age.reset();
    });
  }

  /**
   * Makes the index store match the item table, and returns true when it could be trusted as it was
   * (false: it is being rebuilt, in steps, {@link #rebuildStep}). Call it first, then
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
   * from the items topic ({@link ItemTableRebuild}); the index is then rebuilt too.
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
    if (table.migrateIfLegacy(legacy)) {
      index.store().put(INDEX_GENERATION_KEY, null);
      startRebuild();
      return false;
    }
    ItemTable.Marks marks = table.openTable();
    KeyValueStore<Bytes, byte[]> kv = index.store();
    byte[] indexVouch = kv.get(INDEX_GENERATION_KEY);
    kv.put(INDEX_GENERATION_KEY, null);
    if (!marks.trusted()) {
      table.rebuild(source);
      startRebuild();
      return false;
    }
    if (marks.expected() == null || !Arrays.equals(marks.expected(), indexVouch)) {
      startRebuild();
      return false;
    }
    try (KeyValueIterator<Bytes, byte[]> it = index.prefixScan(new byte[] {KeyFamily.GROUPS})) {
      fair.clear();
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        fair.load(e.key.get(), e.value);
      }
    }
    counts.load(index);
    timers.load();
    return true;
  }

  /** Items of a pre-state-log item table copied into the state log when this store opened (0: none). */
  public long migratedItems() {
    return table.migrated();
  }

  /**
   * Moves the oldest live items to the cold part of the state log, whole, in offset order, while they
   * are below {@code highWater - spanRecords} or were enqueued before {@code now - coldAfterMs}: an
   * item whose record the items topic's retention may delete, or whose record a rebuild would have to
   * read too far back for, no longer depends on it (decisions D54). At most {@code max} items.
   *
   * @return how many items it moved
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
    index.flush();
    byte[] vouch = table.vouch();
    if (vouch == null) {
      return; // nothing to vouch for, or an item table that may lack changes: the next open rebuilds
    }
    counts.save(index);
    index.deletePrefix(new byte[] {KeyFamily.GROUPS});
    KeyValueStore<Bytes, byte[]> kv = index.store();
    fair.forEach((k, e) -> kv.put(Bytes.wrap(FairShares.key(k)), FairShares.value(e)));
    timers.save();
    kv.put(INDEX_GENERATION_KEY, vouch);
  }

  /** What the index store keeps to vouch that it matches an item table: the key layout, the table's generation, its change count. */
  static byte[] vouch(byte[] generation, long changes) {
    return ByteBuffer.allocate(1 + generation.length + 8).put(INDEX_FORMAT).put(generation).putLong(changes).array();
  }

  private void startRebuild() {
    rebuilder.start();
    ready.reset();
    order.reset();
    age.reset();
    timers.reset();
    overflow.reset();
    counts.reset();
    fair.clear();
  }

  /**
   * The earliest time a timer of any kind may be due: the first lease timer's, and for the kinds
   * kept in the index the time before which {@link #dueTimers} is known to find nothing
   * ({@code Long.MIN_VALUE} for a kind not scanned since the store opened: a scan is needed).
   * Called for every record of a quiet task: no allocation, no store read.
   */
  public long nextTimerDue() {
    return timers.nextDue();
  }

  /** Applies the index writes held on the heap to the index store now (reads of the store do it anyway). */
  public void flushIndexWrites() {
    index.flush();
  }

  /** True while the index is being rebuilt: its answers are incomplete until {@link #rebuildStep} ends it. */
  @Override
  public boolean rebuilding() {
    return rebuilder.rebuilding();
  }

  /**
   * One bounded step of the rebuild: deletes entries of the old index, then indexes items of the
   * item table in offset order, from where the last step stopped, {@code max} of both at most.
   *
   * @return how many items this step indexed
   */
  public long rebuildStep(int max) {
    return rebuilder.step(max);
  }

  /**
   * True the first time an offset of the items topic is seen, false when it was taken in before (a
   * replay after a crash under at-least-once): remembers the highest offset taken in, which records
   * of one partition reach in order, without a RocksDB read.
   */
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
    List<Map.Entry<Long, StoredItem>> out = new ArrayList<>();
    if (from >= to || max <= 0) {
      return out;
    }
    table.between(from, to - 1, (offset, item) -> {
      out.add(Map.entry(offset, item));
      return out.size() < max;
    });
    return out;
  }

  /**
   * Writes the count of changes to the state store if transitions moved it since the last call. Call
   * it after the transitions of each record and punctuation.
   */
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

  /**
   * Applies the item table's held writes, then the state log's changed blocks, the high-water mark
   * and the count of changes, in one batch of the state store.
   */
  public void flushItemWrites() {
    table.flush();
  }

  /** The entries of a state log block's value (its record on the state store's changelog), in offset order. */
  public static List<dev.ordo.schema.ItemStateEntry> stateBlockEntries(byte[] value) {
    return StateLog.entriesOf(value);
  }

  /** Blocks of the state log written since the store was made (0 without a state log). */
  public long stateBlocksWritten() {
    return table.blocksWritten();
  }

  /**
   * The first {@code n} ready items of a topic in the order dispatch serves them, leasing nothing
   * ({@link HeadPeek}; what it leaves out is said there).
   */
  public List<HeadPeek.Entry> peek(String namespace, String topic, int n) {
    return HeadPeek.first(new HeadPeek.Reader() {
      @Override
      public List<byte[]> indexRange(byte[] from, byte[] to, int max) {
        return index.keys(from, to, max);
      }

      @Override
      public StoredItem item(long offset) {
        return get(offset);
      }
    }, namespace, topic, n);
  }

  /** The item at {@code offset}, or null when there is none. */
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
    if (rebuilder.indexed(offset)) {
      reindex(offset, before, after); // else the rebuild indexes the item as the table holds it when it gets there
    }
  }

  /**
   * Hands the change to every view. The ready view first, while the fair shares still count
   * {@code before} (a group's queue is known empty from them); the order view after it (it moves its
   * groups' heads' ready keys, which the ready view leaves alone); the fair shares and counts last.
   */
  private void reindex(long offset, StoredItem before, StoredItem after) {
    ready.change(offset, before, after);
    age.change(offset, before, after);
    overflow.change(offset, before, after);
    timers.change(offset, before, after);
    order.change(offset, before, after);
    fair.change(before, after);
    counts.change(before, after);
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

  /**
   * Up to {@code max} of a group's queued ready items at a priority, in the group's dequeue order (lane,
   * slot, ready time, offset). The ready index ({@link #readyHead}) holds only the first of them. A
   * group's flat items (decisions D48) are not here: they are in the ready index themselves.
   */
  @Override
  public List<ReadyEntry> groupHead(String namespace, String topic, int priority, String group, int max) {
    return ready.groupHead(namespace, topic, priority, group, max);
  }

  /** Items of a group key leased on this partition, over its namespace's topics and priorities. */
  @Override
  public long groupLeased(String namespace, String group) {
    return fair.leased(namespace, group);
  }

  /**
   * Up to {@code max} entries of a topic's ready index in dequeue order, without removing them: its
   * ready items without a group key, the flat items of groups (decisions D48), the first queued ready
   * item of each group key and priority (the rest of a group's queue is read with {@link #groupHead}),
   * and each ordered group's head when it is ready (decisions D60).
   */
  @Override
  public List<ReadyEntry> readyHead(String namespace, String topic, int max) {
    return ready.readyHead(namespace, topic, max);
  }

  /** The virtual time of a topic's priority for fair queueing (0 when nothing of it is ready or leased). */
  @Override
  public long virtualTime(String namespace, String topic, int priority) {
    return fair.virtualTime(namespace, topic, priority);
  }

  /** The last slot a group got at a topic's priority, or null when it has nothing ready or leased there. */
  @Override
  public Long groupLastSlot(String namespace, String topic, int priority, String group) {
    return fair.lastSlot(namespace, topic, priority, group);
  }

  /** Fair queueing's state, read-only (tests). */
  public FairShares fairShares() {
    return fair;
  }

  /** Ready time of the topic's oldest ready item (of either lane), or null when none is ready. */
  public Long oldestReadyAt(String namespace, String topic) {
    return age.oldestReadyAt(namespace, topic);
  }

  /**
   * Offsets of up to {@code max} of the topic's fresh-lane ready items that became ready before
   * {@code readyBefore}, longest ready first: the items that sidelining moves to the backlog lane.
   * O(log n + k) from the age index's fresh-lane head, whatever the backlog.
   */
  @Override
  public List<Long> readyBefore(String namespace, String topic, long readyBefore, int max) {
    return age.readyBefore(namespace, topic, readyBefore, max);
  }

  /** Up to {@code max} timers of {@code kind} due at or before {@code now}, earliest first. */
  @Override
  public List<TimerEntry> dueTimers(TimerKind kind, long now, int max) {
    return timers.due(kind, now, max);
  }

  /** The counts of one topic; zeros when it has no items. */
  public TopicCounts counts(String namespace, String topic) {
    return counts.counts(namespace, topic);
  }

  /** The counts of a namespace on this partition, summed over its topics (topic {@code "*"}); zeros when it has none. */
  @Override
  public TopicCounts namespaceCounts(String namespace) {
    return counts.namespaceCounts(namespace);
  }

  /** True when items wait in OVERFLOW on this partition (no allocation: asked for every record of a quiet task). */
  public boolean hasOverflow() {
    return counts.hasOverflow();
  }

  /** The namespaces with items in OVERFLOW on this partition. */
  @Override
  public Set<String> overflowNamespaces() {
    return counts.overflowNamespaces();
  }

  /** The offsets of up to {@code max} OVERFLOW items of a namespace, in arrival (offset) order. */
  @Override
  public List<Long> overflowHead(String namespace, int max) {
    return overflow.head(namespace, max);
  }

  /** The topics of a namespace that hold items on this partition, by name. */
  @Override
  public List<TopicCounts> topics(String namespace) {
    return counts.topics(namespace);
  }

  /** Every topic with items on this partition, across namespaces. */
  public List<TopicCounts> allTopics() {
    return counts.allTopics();
  }

  /**
   * The offset of an ordered group's head (its oldest live item, whatever its state), or null when the
   * group has no live item on this partition (decisions D60).
   */
  @Override
  public Long orderedHead(String namespace, String topic, String group) {
    return order.head(namespace, topic, group);
  }
}
