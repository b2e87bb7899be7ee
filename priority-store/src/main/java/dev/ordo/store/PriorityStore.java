package dev.ordo.store;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.AgeKeySchema;
import dev.ordo.store.internal.CountsKeySchema;
import dev.ordo.store.internal.FairShares;
import dev.ordo.store.internal.GroupQueueKeySchema;
import dev.ordo.store.internal.HeadCache;
import dev.ordo.store.internal.IndexWrites;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.KeyFamily;
import dev.ordo.store.internal.OrderedBytes;
import dev.ordo.store.internal.OrderKeySchema;
import dev.ordo.store.internal.OverflowKeySchema;
import dev.ordo.store.internal.ReadyKeySchema;
import dev.ordo.store.internal.ScanCursors;
import dev.ordo.store.internal.TimerKeySchema;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One partition's queue: the state log ({@link #STATE_STORE_NAME}, changelogged: every live item's
 * life-cycle state by blocks of offsets, {@link StateLog}), the item table ({@link #STORE_NAME}: the
 * whole items, not changelogged) and the indexes derived from it ({@link #INDEX_STORE_NAME}, not
 * changelogged), in three key-value stores under Kafka Streams. The item table is rebuilt from the
 * state log and the items topic when it cannot be trusted, the indexes from the item table
 * ({@link #open}); an item costs the state log a share of one record per block changed at a commit
 * instead of two or three records of its own (decisions D54, docs/store.md).
 *
 * <p>The indexes are a function of the item: a READY item has a ready entry and an age entry, a
 * DELAYED item a DUE timer, a LEASED item a LEASE timer, an OVERFLOW item an overflow entry of its
 * namespace, any item with a TTL a TTL timer, and each
 * item counts once in its topic's state counts. {@link #transition} is the one way to change an
 * item: it writes the item and moves exactly the index entries that differ between the old and
 * new item, so the indexes cannot drift from the table. Not thread-safe: it belongs to the
 * partition's stream thread.
 */
public final class PriorityStore implements QueueView {
  /** The item table: not changelogged, rebuilt from {@link #STATE_STORE_NAME} and the items topic when needed. */
  public static final String STORE_NAME = "ordo-queue";
  /** The index store: ready, age, timer and counts entries, rebuilt from {@link #STORE_NAME} when needed. */
  public static final String INDEX_STORE_NAME = "ordo-queue-index";
  /** The state log ({@link StateLog}) and the generation, count of changes and high-water mark: changelogged. */
  public static final String STATE_STORE_NAME = "ordo-queue-state";
  private static final Bytes ITEMS_GENERATION_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'i'});
  /** The item table's vouch that it matches the state log (as {@link #INDEX_GENERATION_KEY} is the index store's). */
  private static final Bytes ITEMS_VOUCH_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'v'});
  private static final Bytes ITEMS_CHANGES_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'c'});
  private static final Bytes INDEX_GENERATION_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'x'});
  private static final int GENERATION_BYTES = 16;
  private static final Bytes ITEMS_HIGH_WATER_KEY = Bytes.wrap(new byte[] {KeyFamily.META, 'h'});
  private static final byte[] EMPTY = new byte[0];
  /** Keys of a topic's ready (and age) range held on the heap; see {@link HeadCache}. */
  static final int HEAD_CAPACITY = 2_048;
  /** The heap budget of {@link #decoded} when none is given: about 7,000 items of 200-byte payloads. */
  public static final long DEFAULT_DECODED_BYTES = 4L << 20;
  /** Index writes held back at most before they are applied in one batch; see {@link IndexWrites}. */
  private static final int MAX_HELD_INDEX_WRITES = 8_192;
  /** Item writes held back at most, by count and by payload bytes; see {@link ItemWrites}. */
  private static final int MAX_HELD_ITEM_WRITES = 8_192;
  private static final long MAX_HELD_ITEM_PAYLOAD_BYTES = 4L << 20;

  /** The state store: the state log and the meta values (the item table's generation, changes, high-water mark). */
  private final KeyValueStore<Bytes, byte[]> state;
  /** The state log; null when one store holds the state and the item table (tests, tools): the table is the truth then. */
  private final StateLog log;
  /** Meta values of the state store held until the state log's blocks go out ({@link #flushItemWrites}). */
  private final Map<Bytes, byte[]> heldMeta = new java.util.LinkedHashMap<>();
  /** {@link #holdItemWrites} was called: state writes wait for {@link #flushItemWrites}. */
  private boolean holding;
  /** What the last rebuild of the item table found (null: none since the store was made). */
  private ItemTableRebuild.Result itemRebuild;
  /** The item table. */
  private final KeyValueStore<Bytes, byte[]> items;
  /** The index store (may be the same store as {@link #items}: the families never overlap). */
  private final KeyValueStore<Bytes, byte[]> kv;
  /** The writes of index entries, held back and batched: every read of {@link #kv} flushes them first. */
  private final IndexWrites writes;
  /**
   * The writes of the item table: applied at once, or, after {@link #holdItemWrites}, held until
   * {@link #flushItemWrites} (Kafka Streams' commit) and read from the heap meanwhile.
   */
  private final ItemWrites itemWrites;
  /**
   * The items written or read last, decoded, by offset: most items are read back soon after they
   * were written (an ack comes within seconds of the lease that wrote the item), and each read was a
   * record-cache or RocksDB look-up and an Avro decode. Items are immutable values here (every
   * change makes a new one through {@link #transition}), so sharing them is safe. Bounded by an
   * estimate of their heap (decisions D16).
   */
  private final DecodedItems decoded;
  /** The highest item offset taken in so far (see {@link #firstSighting}); -1: none. */
  private long highWater = -1;
  /** The item table's count of changes (transitions), as read at open and kept up since. */
  private long changes;
  /** True when {@link #changes} moved since {@link #markChanges} last wrote it to the item table. */
  private boolean changesUnmarked;
  /** A rebuild in progress: which index family it deletes (past the last: it indexes), from where. */
  private boolean rebuilding;
  private int rebuildFamily;
  private byte[] rebuildKey;
  /** During the indexing phase: the items below this offset are indexed. */
  private long rebuildFrom;
  /** The generation this instance started, or null before {@link #startGeneration}. */
  private byte[] generation;
  /** Where timer scans start (ready and age reads use {@link #heads}). */
  private ScanCursors cursors = new ScanCursors();
  /** The first keys of every ready and age range read so far. */
  private HeadCache heads = new HeadCache(HEAD_CAPACITY);
  /** The first keys of the groups' queues: many small prefixes, so few keys each. */
  private HeadCache groupHeads = newGroupHeads();
  /** The first keys of each ordered group's order index ({@link OrderKeySchema}): its head and the next. */
  private HeadCache orderHeads = newGroupHeads();
  /**
   * Every topic's counts by counts key, in key order: loaded by {@link #openIndex}, kept up by every
   * transition, written to the index store only by {@link #closeIndex}. A transition changes counts
   * of one topic at every state change, and writing them through was a RocksDB write per transition
   * (and a version for every scan to step over); between an open and an orderly close nobody reads
   * them from the store (a crash makes the next open rebuild them).
   */
  private final TreeMap<byte[], long[]> counts = new TreeMap<>(OrderedBytes::compare);
  /**
   * Per namespace with items on the partition, its counts by state (summed over its topics): derived
   * from {@link #counts} and kept up with it, so that a namespace's backlog and overflow are read
   * without summing its topics.
   */
  private final Map<String, long[]> namespaceCounts = new HashMap<>();
  /** Fair queueing's group and virtual-time state, kept up and persisted like {@link #counts}. */
  private final FairShares fair = new FairShares();
  /** The namespaces with OVERFLOW items, derived from {@link #namespaceCounts} like it. */
  private final java.util.TreeSet<String> overflowing = new java.util.TreeSet<>();
  /**
   * The LEASE timers, in memory between {@link #openIndex} and {@link #closeIndex} for the same
   * reason: a lease is put and removed within seconds, two RocksDB writes per item, and there are
   * at most as many as items leased (bounded by the consumers' demand).
   */
  private final TreeSet<TimerEntry> leaseTimers = new TreeSet<>(
      Comparator.comparingLong(TimerEntry::dueAt).thenComparingLong(TimerEntry::offset));
  /**
   * Per timer kind (by ordinal), a time before which no live timer of the kind is due, learnt by a
   * scan that found nothing due and lowered by every timer added; {@code Long.MIN_VALUE}: unknown.
   * Until then {@link #dueTimers} answers without touching the store. Why: live timers lie in the
   * future (leases run 30 s) behind the tombstones of the many removed before their time (acked
   * leases), and a RocksDB seek crawls over those to the first live key on every scan.
   */
  private final long[] quietUntil = new long[TimerKind.values().length];

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
    this.state = state;
    this.log = new StateLog(state);
    this.items = items;
    this.decoded = new DecodedItems(decodedBytes);
    this.kv = index;
    this.writes = new IndexWrites(index, MAX_HELD_INDEX_WRITES);
    this.itemWrites = new ItemWrites(items, MAX_HELD_ITEM_WRITES, MAX_HELD_ITEM_PAYLOAD_BYTES);
    Arrays.fill(quietUntil, Long.MIN_VALUE);
  }

  /**
   * Makes the index store match the item table, and returns how many items were indexed (0 when the
   * index store could be trusted as it was). Call it first, then {@link #startGeneration} before the
   * first change (Kafka Streams: in the first record or punctuation, when the item table can be
   * written), and {@link #closeIndex} when the stream thread stops using the stores.
   *
   * <p>The index store is trusted when it vouches for exactly the item table's state: its
   * generation and its count of changes.
   * <ul>
   *   <li>The item table gets a new random generation, written at once, before anything else
   *       changes, so an item table restored after a crash either has no change past the old
   *       generation or has a new one.</li>
   *   <li>It also counts its changes, a key rewritten by {@link #markChanges} after the transitions
   *       of each record or punctuation and written after the items of the batch it goes out with
   *       ({@link ItemWrites}): an item table that lost its held writes (a task closed dirty under
   *       at-least-once) has a smaller count than the index store saw. A close with changes not
   *       marked, or with item writes still held, vouches for nothing.</li>
   *   <li>The index store gets both only from {@link #closeIndex}, and opening removes them first,
   *       so no index state written after an open is vouched for without a close.</li>
   * </ul>
   * A crash, a dirty close, or a task that ran elsewhere in between makes them differ; then the
   * index is rebuilt from the item table, in bounded steps ({@link #rebuildStep}) so that a task's
   * start never waits for a scan of its whole backlog.
   *
   * @return true when the index can be used at once; false when it is being rebuilt
   */
  public boolean openIndex() {
    return open(ItemSource.NONE);
  }

  /**
   * {@link #openIndex}, and before it the item table's own check: with a state log, the item table is
   * trusted when it vouches for the state store's generation and count of changes (written by
   * {@link #closeIndex}, removed by every open), and otherwise rebuilt at once from the state log's
   * live entries and their records, which {@code source} reads from the items topic
   * ({@link ItemTableRebuild}); the index is then rebuilt too.
   *
   * @return true when the index can be used at once; false when it is being rebuilt
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
    if (state.get(ITEMS_GENERATION_KEY) == null && state.get(ITEMS_HIGH_WATER_KEY) == null) {
      if (isEmptyTable()) {
        legacy.restoreInto(items);
      }
      if (!isEmptyTable()) {
        migrateLegacyTable();
        writes.flush();
        kv.put(INDEX_GENERATION_KEY, null);
        startRebuild();
        return false;
      }
    }
    byte[] hw = state.get(ITEMS_HIGH_WATER_KEY);
    highWater = hw == null ? -1 : ByteBuffer.wrap(hw).getLong();
    byte[] itemsGeneration = state.get(ITEMS_GENERATION_KEY);
    byte[] itemsChanges = state.get(ITEMS_CHANGES_KEY);
    changes = itemsChanges == null ? 0 : ByteBuffer.wrap(itemsChanges).getLong();
    byte[] expected = itemsGeneration == null ? null : vouch(itemsGeneration, changes);
    boolean tableTrusted = true;
    if (state != items) {
      byte[] tableVouch = items.get(ITEMS_VOUCH_KEY);
      items.put(ITEMS_VOUCH_KEY, null);
      tableTrusted = expected != null ? Arrays.equals(expected, tableVouch) : tableVouch == null && isEmptyTable();
    }
    writes.flush();
    byte[] indexVouch = kv.get(INDEX_GENERATION_KEY);
    kv.put(INDEX_GENERATION_KEY, null);
    if (!tableTrusted) {
      rebuildItemTable(source);
      startRebuild();
      return false;
    }
    boolean trusted = expected != null && Arrays.equals(expected, indexVouch);
    if (!trusted) {
      startRebuild();
      return false;
    }
    loadCountsAndLeases();
    return true;
  }

  /**
   * Copies every item of an item table kept before the state log (whole stored items) into the state
   * log (written at the next commit), and leaves in the table what it holds now: the items alone.
   */
  private void migrateLegacyTable() {
    byte[] hw = items.get(ITEMS_HIGH_WATER_KEY);
    highWater = hw == null ? -1 : ByteBuffer.wrap(hw).getLong();
    long n = 0;
    byte[] from = {KeyFamily.ITEM};
    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)))) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        long offset = ItemKeySchema.offset(e.key.get());
        StoredItem whole = OrdoSerdes.STORED_ITEM.decode(e.value);
        log.put(offset, whole);
        batch.add(KeyValue.pair(e.key, OrdoSerdes.ITEM.encode(whole.getItem())));
        highWater = Math.max(highWater, offset);
        n++;
      }
    }
    items.putAll(batch); // after the scan, which reads a snapshot anyway
    heldMeta.put(ITEMS_HIGH_WATER_KEY, ByteBuffer.allocate(8).putLong(highWater).array());
    changes = 0;
    changesUnmarked = true;
    migrated = n;
  }

  /** Items of a pre-state-log item table copied into the state log when this store opened (0: none). */
  public long migratedItems() {
    return migrated;
  }

  private long migrated;

  /** True when the item table holds no item. */
  private boolean isEmptyTable() {
    byte[] from = {KeyFamily.ITEM};
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)))) {
      return !it.hasNext();
    }
  }

  /**
   * Empties the item table and fills it from the state log's live entries and their records on the
   * items topic. Entries whose record is gone are dropped from the log (at the next write of it).
   */
  private void rebuildItemTable(ItemSource source) {
    itemWrites.flush();
    decoded.clear();
    byte[] from = {KeyFamily.ITEM};
    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(from), Bytes.wrap(OrderedBytes.prefixEnd(from)))) {
      while (it.hasNext()) {
        batch.add(KeyValue.pair(it.next().key, null));
        if (batch.size() >= REBUILD_BATCH) {
          items.putAll(batch);
          batch.clear();
        }
      }
    }
    items.putAll(batch);
    batch.clear();
    // The cold items first, whole from the state store; their entries, if a block still has one, are left out.
    long coldBelow = log.coldBelow();
    java.util.TreeMap<Long, StoredItem> coldAbove = new java.util.TreeMap<>();
    long cold = 0;
    try (KeyValueIterator<Bytes, byte[]> it = log.coldItems()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        long offset = OrderedBytes.getLong(e.key.get(), 1);
        StoredItem whole = OrdoSerdes.STORED_ITEM.decode(e.value);
        if (offset >= coldBelow) {
          coldAbove.put(offset, whole); // moved in a batch whose end the changelog lacks (at-least-once)
        }
        batch.add(KeyValue.pair(Bytes.wrap(ItemKeySchema.key(offset)), OrdoSerdes.ITEM.encode(whole.getItem())));
        cold++;
        if (batch.size() >= REBUILD_BATCH) {
          items.putAll(batch);
          batch.clear();
        }
      }
    }
    List<Long> lost = new ArrayList<>();
    itemRebuild = ItemTableRebuild.run(log, source, highWater, o -> o < coldBelow || coldAbove.containsKey(o), (offset, item) -> {
      batch.add(KeyValue.pair(Bytes.wrap(ItemKeySchema.key(offset)), item));
      if (batch.size() >= REBUILD_BATCH) {
        items.putAll(batch);
        batch.clear();
      }
    }, lost::add);
    items.putAll(batch);
    itemRebuild = new ItemTableRebuild.Result(itemRebuild.entries() + cold, itemRebuild.items() + cold, itemRebuild.lost());
    for (long offset : lost) {
      log.put(offset, null);
    }
    // Cold copies above the watermark are the first live items past it, in offset order (they are
    // moved so): out of their blocks, and the watermark past them, as the lost batch would have left it.
    for (Map.Entry<Long, StoredItem> e : coldAbove.entrySet()) {
      log.moveToCold(e.getKey(), e.getValue());
    }
    if (!coldAbove.isEmpty()) {
      log.raiseColdBelow(coldAbove.lastKey() + 1);
    }
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
    int moved = 0;
    long from = log.coldBelow();
    while (moved < max) {
      Object[] first = log.firstLive(from, 64);
      if (first == null) {
        break;
      }
      long offset = (Long) first[0];
      long enqueuedAt = first[1] instanceof StoredItem s ? s.getEnqueuedAt()
          : ((dev.ordo.schema.ItemStateEntry) first[1]).getEnqueuedAt();
      if (offset >= highWater - spanRecords && enqueuedAt >= now - coldAfterMs) {
        break;
      }
      StoredItem item = get(offset);
      if (item == null) {
        throw new IllegalStateException("offset " + offset + " is live in the state log but not in the item table");
      }
      log.moveToCold(offset, item);
      log.raiseColdBelow(offset + 1);
      from = offset + 1;
      moved++;
    }
    if (moved > 0) {
      changes++;
      changesUnmarked = true;
    }
    return moved;
  }

  /** Every live item below this offset is kept whole in the state store (0 without a state log). */
  public long coldBelow() {
    return log.coldBelow();
  }

  /** Items written to the item table per batch while it is rebuilt. */
  private static final int REBUILD_BATCH = 1_024;

  /** What the last rebuild of the item table from the state log found, or null when there was none. */
  public ItemTableRebuild.Result lastItemTableRebuild() {
    return itemRebuild;
  }

  /** Reads what {@link #closeIndex} left of the counts and the lease timers into memory. */
  private void loadCountsAndLeases() {
    counts.clear();
    namespaceCounts.clear();
    leaseTimers.clear();
    fair.clear();
    try (KeyValueIterator<Bytes, byte[]> it = kv.prefixScan(Bytes.wrap(new byte[] {KeyFamily.GROUPS}),
        new BytesSerializer())) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        fair.load(e.key.get(), e.value);
      }
    }
    try (KeyValueIterator<Bytes, byte[]> it = kv.prefixScan(Bytes.wrap(new byte[] {KeyFamily.COUNTS}),
        new BytesSerializer())) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        counts.put(e.key.get(), CountsKeySchema.counts(e.value));
      }
    }
    namespaceCounts.clear();
    counts.forEach((key, c) -> {
      long[] ns = namespaceCounts.computeIfAbsent(CountsKeySchema.names(key)[0], k -> new long[CountsKeySchema.STATES]);
      for (int i = 0; i < c.length; i++) {
        ns[i] += c[i];
      }
    });
    overflowing.clear();
    namespaceCounts.forEach((ns, c) -> {
      if (c[4] > 0) {
        overflowing.add(ns);
      }
    });
    try (KeyValueIterator<Bytes, byte[]> it = kv.prefixScan(Bytes.wrap(TimerKeySchema.prefix(TimerKind.LEASE.code)),
        new BytesSerializer())) {
      while (it.hasNext()) {
        byte[] key = it.next().key.get();
        leaseTimers.add(new TimerEntry(TimerKind.LEASE, TimerKeySchema.dueAt(key), TimerKeySchema.offset(key)));
      }
    }
  }

  /** Starts a new generation of the item table (a changelogged write): call it before the first change. */
  public void startGeneration() {
    generation = new byte[GENERATION_BYTES];
    new SecureRandom().nextBytes(generation);
    state.put(ITEMS_GENERATION_KEY, generation);
  }

  /**
   * Gives the index store the item table's current generation as the stream thread stops using the
   * stores in order: the next {@link #openIndex} can then skip the rebuild. Writes the index store
   * only (no changelog, so no record context is needed).
   */
  public void closeIndex() {
    writes.flush();
    if (generation == null || changesUnmarked || !itemWrites.isEmpty() || !heldMeta.isEmpty() || log.hasChanges()) {
      return; // nothing to vouch for, or an item table that may lack changes: the next open rebuilds
    }
    if (state != items) {
      items.put(ITEMS_VOUCH_KEY, vouch(generation, changes));
    }
    // What lives in memory goes to the store first, the generation that vouches for it last.
    deleteFamilyPrefix(new byte[] {KeyFamily.COUNTS});
    for (Map.Entry<byte[], long[]> e : counts.entrySet()) {
      long[] c = e.getValue();
      kv.put(Bytes.wrap(e.getKey()), CountsKeySchema.value(c));
    }
    deleteFamilyPrefix(new byte[] {KeyFamily.GROUPS});
    fair.forEach((k, e) -> kv.put(Bytes.wrap(FairShares.key(k)), FairShares.value(e)));
    deleteFamilyPrefix(TimerKeySchema.prefix(TimerKind.LEASE.code));
    for (TimerEntry t : leaseTimers) {
      kv.put(Bytes.wrap(TimerKeySchema.key(TimerKind.LEASE.code, t.dueAt(), t.offset())), EMPTY);
    }
    kv.put(INDEX_GENERATION_KEY, vouch(generation, changes));
  }

  /**
   * The layout of the index store's keys: a vouch of another layout never matches, so an index
   * written by an older version is rebuilt, not misread. 2: the ready and age keys got a lane; 3: the
   * ready keys a fair-queueing slot, the group queues ({@code [0x24]}) and the group state ({@code [0x48]});
   * 4: flat groups' items in the ready index, a count of queued items in the group state (decisions D48);
   * 5: ordered groups' order index ({@code [0x2C]}), and only a group's head in the ready index (decisions D60).
   */
  static final byte INDEX_FORMAT = 5;

  /**
   * What the index store keeps to vouch that it matches an item table: the index's key layout, the
   * table's generation and its change count.
   */
  private static byte[] vouch(byte[] generation, long changes) {
    return ByteBuffer.allocate(1 + generation.length + 8).put(INDEX_FORMAT).put(generation).putLong(changes).array();
  }

  private void startRebuild() {
    rebuilding = true;
    rebuildFamily = 0;
    rebuildKey = new byte[] {KeyFamily.INDEX_FAMILIES[0]};
    rebuildFrom = Long.MIN_VALUE;
    heads = new HeadCache(HEAD_CAPACITY);
    groupHeads = newGroupHeads();
    orderHeads = newGroupHeads();
    cursors = new ScanCursors();
    counts.clear();
    namespaceCounts.clear();
    overflowing.clear();
    leaseTimers.clear();
    fair.clear();
    Arrays.fill(quietUntil, Long.MIN_VALUE);
  }

  /**
   * The earliest time a timer of any kind may be due: the first lease timer's, and for the kinds
   * kept in the index the time before which {@link #dueTimers} is known to find nothing
   * ({@code Long.MIN_VALUE} for a kind not scanned since the store opened: a scan is needed).
   * Called for every record of a quiet task: no allocation, no store read.
   */
  public long nextTimerDue() {
    long next = leaseTimers.isEmpty() ? Long.MAX_VALUE : leaseTimers.first().dueAt();
    next = Math.min(next, quietUntil[TimerKind.DUE.ordinal()]);
    return Math.min(next, quietUntil[TimerKind.TTL.ordinal()]);
  }

  /**
   * Applies the index writes held on the heap to the index store now (reads of the store do it
   * anyway; this bounds how long they wait, and lets tools see them).
   */
  public void flushIndexWrites() {
    writes.flush();
  }

  /** True while the index is being rebuilt: its answers are incomplete until {@link #rebuildStep} ends it. */
  public boolean rebuilding() {
    return rebuilding;
  }

  /**
   * One bounded step of the rebuild: deletes entries of the old index, then indexes items of the
   * item table in offset order, from where the last step stopped, {@code max} of both at most.
   * Meanwhile {@link #transition} keeps the index up for the items already indexed and leaves the
   * others to the steps to come (they read the item table as it is then).
   *
   * @return how many items this step indexed
   */
  public long rebuildStep(int max) {
    if (!rebuilding) {
      return 0;
    }
    writes.flush();
    int budget = max;
    while (budget > 0 && rebuildFamily < KeyFamily.INDEX_FAMILIES.length) {
      byte family = KeyFamily.INDEX_FAMILIES[rebuildFamily];
      byte[] last = null;
      int deleted = 0;
      try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(rebuildKey),
          Bytes.wrap(OrderedBytes.prefixEnd(new byte[] {family})))) {
        while (deleted < budget && it.hasNext()) {
          last = it.next().key.get();
          kv.put(Bytes.wrap(last), null); // put(null), unlike delete, does not read the old value first
          deleted++;
        }
      }
      budget -= deleted;
      if (budget > 0) {
        rebuildFamily++; // the family is empty now
        if (rebuildFamily < KeyFamily.INDEX_FAMILIES.length) {
          rebuildKey = new byte[] {KeyFamily.INDEX_FAMILIES[rebuildFamily]};
        }
      } else {
        rebuildKey = OrderedBytes.successor(last);
      }
    }
    long n = 0;
    if (budget == 0) {
      return n;
    }
    itemWrites.flush();
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(ItemKeySchema.key(rebuildFrom)),
        Bytes.wrap(ItemKeySchema.key(Long.MAX_VALUE)))) {
      while (n < budget && it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        long offset = ItemKeySchema.offset(e.key.get());
        StoredItem item = join(offset, e.value);
        if (item == null) {
          continue; // gone from the state log: the table's delete is on its way
        }
        index(offset, item, null);
        if (ordered(item)) {
          orderChange(offset, null, item); // in offset order: the group's head comes first
        }
        addCount(item, +1);
        fair.change(null, item);
        rebuildFrom = offset + 1;
        n++;
      }
      if (!it.hasNext()) {
        rebuilding = false;
        heads = new HeadCache(HEAD_CAPACITY);
        groupHeads = newGroupHeads();
        orderHeads = newGroupHeads();
      }
    }
    return n;
  }

  /** True when a change of this item must also change the index (always, but during a rebuild). */
  private boolean indexed(long offset) {
    return !rebuilding || rebuildFamily >= KeyFamily.INDEX_FAMILIES.length && offset < rebuildFrom;
  }

  /** One pass over the keys with this prefix, deleting as it goes (a RocksDB iterator reads a snapshot). */
  private void deleteFamilyPrefix(byte[] prefix) {
    writes.flush();
    try (KeyValueIterator<Bytes, byte[]> it = kv.prefixScan(Bytes.wrap(prefix), new BytesSerializer())) {
      while (it.hasNext()) {
        kv.put(it.next().key, null);
      }
    }
  }

  /**
   * True the first time an offset of the items topic is seen, false when it was taken in before (a
   * replay after a crash under at-least-once): remembers the highest offset in the item table, which
   * records of one partition reach in order. Unlike looking the item up, it also knows an item that
   * was taken in and acked since, and it reads nothing from RocksDB.
   */
  public boolean firstSighting(long offset) {
    if (offset <= highWater) {
      return false;
    }
    highWater = offset;
    putMeta(ITEMS_HIGH_WATER_KEY, ByteBuffer.allocate(8).putLong(offset).array());
    return true;
  }

  /** The highest offset of the items topic taken in so far, kept in the state store; -1: none. */
  public long intakeHighWater() {
    return highWater;
  }

  /**
   * The items of the item table at offsets {@code from} (inclusive) to {@code to} (exclusive), in
   * offset order, at most {@code max}: a bounded step of a scan of the whole table (a purge job,
   * decisions D56). Held item writes are written out first, as a rebuild step does, so that the scan
   * sees every change made so far.
   */
  public List<Map.Entry<Long, StoredItem>> itemsBetween(long from, long to, int max) {
    List<Map.Entry<Long, StoredItem>> out = new ArrayList<>();
    if (from >= to || max <= 0) {
      return out;
    }
    itemWrites.flush();
    try (KeyValueIterator<Bytes, byte[]> it = items.range(Bytes.wrap(ItemKeySchema.key(from)),
        Bytes.wrap(ItemKeySchema.key(to - 1)))) {
      while (out.size() < max && it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        long offset = ItemKeySchema.offset(e.key.get());
        StoredItem item = join(offset, e.value);
        if (item != null) {
          out.add(Map.entry(offset, item));
        }
      }
    }
    return out;
  }

  /**
   * Writes the count of changes to the item table if transitions moved it since the last call. Call
   * it after the transitions of each record and punctuation: rewriting it at every transition was
   * a record-cache write per transition, two or three per item, for a value only the last write of
   * which reaches RocksDB and the changelog at a commit.
   */
  public void markChanges() {
    if (changesUnmarked) {
      putMeta(ITEMS_CHANGES_KEY, ByteBuffer.allocate(8).putLong(changes).array());
      changesUnmarked = false;
    }
  }

  /** A meta value of the state store: held until the next {@link #flushItemWrites}, or written at once when not holding. */
  private void putMeta(Bytes key, byte[] value) {
    heldMeta.put(key, value);
    if (!holding) {
      flushItemWrites();
    }
  }

  /**
   * From now on the item table's writes are held on the heap until {@link #flushItemWrites}, or
   * until 8,192 items or 4 MiB of payloads are held. Call it when something calls
   * {@link #flushItemWrites} before every commit of the item table's changes (the queue's
   * processor: Kafka Streams' cache flush, {@code CommitHook}); without it every write is applied at once.
   */
  public void holdItemWrites() {
    itemWrites.holdUntilFlush();
    holding = true;
  }

  /**
   * Applies the item table's held writes, items first, then the high-water mark and the count of
   * changes, in one batch: one RocksDB write batch, and the changelog records in that order.
   */
  public void flushItemWrites() {
    itemWrites.flush();
    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(log.writes());
    for (Map.Entry<Bytes, byte[]> e : heldMeta.entrySet()) {
      batch.add(KeyValue.pair(e.getKey(), e.getValue()));
    }
    heldMeta.clear();
    if (!batch.isEmpty()) {
      state.putAll(batch);
    }
  }

  /** The entries of a state log block's value (its record on the state store's changelog), in offset order. */
  public static List<dev.ordo.schema.ItemStateEntry> stateBlockEntries(byte[] value) {
    return StateLog.entriesOf(value);
  }

  /** Blocks of the state log written since the store was made (0 without a state log). */
  public long stateBlocksWritten() {
    return log.blocksWritten();
  }

  /**
   * The first {@code n} ready items of a topic in the order dispatch serves them, leasing nothing
   * ({@link HeadPeek}; what it leaves out is said there).
   */
  public List<HeadPeek.Entry> peek(String namespace, String topic, int n) {
    return HeadPeek.first(new HeadPeek.Reader() {
      @Override
      public List<byte[]> indexRange(byte[] from, byte[] to, int max) {
        return loader(to).load(from, max);
      }

      @Override
      public StoredItem item(long offset) {
        return get(offset);
      }
    }, namespace, topic, n);
  }

  /** The item at {@code offset}, or null when there is none. */
  public StoredItem get(long offset) {
    StoredItem known = decoded.get(offset);
    if (known != null) {
      return known;
    }
    Object state = log.stateOf(offset);
    if (state == null || state instanceof StoredItem) {
      return (StoredItem) state; // none, or whole (changed since the last commit, or cold)
    }
    Item item;
    if (itemWrites.holds(offset)) {
      item = itemWrites.heldItem(offset);
    } else {
      byte[] value = items.get(Bytes.wrap(ItemKeySchema.key(offset)));
      item = value == null ? null : OrdoSerdes.ITEM.decode(value);
    }
    if (item == null) {
      throw new IllegalStateException("offset " + offset + " is live in the state log but not in the item table");
    }
    StoredItem whole = StateEntries.itemOf((ItemStateEntry) state, item);
    decoded.put(offset, whole);
    return whole;
  }

  /** The item at {@code offset}, its state from the state log and {@code value} from the item table; null when gone. */
  private StoredItem join(long offset, byte[] value) {
    StoredItem known = decoded.get(offset);
    if (known != null) {
      return known;
    }
    Object state = log.stateOf(offset);
    if (state == null || state instanceof StoredItem) {
      return (StoredItem) state;
    }
    return StateEntries.itemOf((ItemStateEntry) state, OrdoSerdes.ITEM.decode(value));
  }

  /**
   * Replaces {@code before} (what the table holds for {@code offset}, null when new) by
   * {@code after} (null to delete), with its index entries and counts.
   */
  public void transition(long offset, StoredItem before, StoredItem after) {
    if (after == null) {
      itemWrites.delete(offset);
      decoded.remove(offset);
    } else {
      if (before == null || after.getItem() != before.getItem()) {
        // What it was enqueued with: written when taken in. A change of state keeps the same item
        // (Lifecycle), so a lease or a retry writes nothing here; the state is in the log.
        byte[] encoded = before == null && offset == encodedOffset ? encodedItem : null;
        itemWrites.put(offset, after.getItem(), encoded, before == null);
      }
      decoded.put(offset, after);
    }
    log.put(offset, after);
    if (!holding) {
      flushItemWrites(); // without a commit to wait for, the state goes out with the item
    }
    changes++;
    changesUnmarked = true;
    if (!indexed(offset)) {
      return; // the rebuild indexes the item as the table holds it when it gets there
    }
    reindex(offset, before, after);
  }

  /** The offset {@link #encodedItem} is the item of, when it is about to be taken in. */
  private long encodedOffset = -1;
  private byte[] encodedItem;

  /**
   * Says that the item about to be taken in at {@code offset} (by the next {@link #transition} from
   * nothing there) is the single-object encoding {@code encoded}, exactly as the item table keeps it:
   * its record's value, when the record has no Kafka headers to merge and no registry framing. The
   * table then stores those bytes instead of encoding the item again.
   */
  public void takingIn(long offset, byte[] encoded) {
    encodedOffset = offset;
    encodedItem = encoded;
  }

  /** Moves the index entries, counts and fair shares of an item from {@code before} to {@code after}. */
  private void reindex(long offset, StoredItem before, StoredItem after) {
    if (before != null) {
      unindex(offset, before, after);
    }
    if (after != null) {
      index(offset, after, before);
    }
    if (ordered(before) || ordered(after)) {
      orderChange(offset, ordered(before) ? before : null, ordered(after) ? after : null);
    }
    fair.change(before, after);
    if (before == null || after == null || before.getState() != after.getState()) {
      if (before != null) {
        addCount(before, -1);
      }
      if (after != null) {
        addCount(after, +1);
      }
    }
  }

  /**
   * Up to {@code max} of a group's queued ready items at a priority, in the group's dequeue order (lane,
   * slot, ready time, offset). The ready index ({@link #readyHead}) holds only the first of them. A
   * group's flat items (decisions D48) are not here: they are in the ready index themselves.
   */
  public List<ReadyEntry> groupHead(String namespace, String topic, int priority, String group, int max) {
    byte[] gp = GroupQueueKeySchema.prefix(namespace, topic, priority, group);
    List<byte[]> keys = groupHeads.first(gp, max, loader(GroupQueueKeySchema.upperBound(gp)));
    List<ReadyEntry> out = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      out.add(new ReadyEntry(priority, GroupQueueKeySchema.sidelined(key), GroupQueueKeySchema.slot(key),
          GroupQueueKeySchema.readyAt(key), GroupQueueKeySchema.offset(key)));
    }
    return out;
  }

  /** Items of a group key leased on this partition, over its namespace's topics and priorities. */
  public long groupLeased(String namespace, String group) {
    return fair.leased(namespace, group);
  }

  /**
   * Up to {@code max} entries of a topic's ready index in dequeue order, without removing them: its
   * ready items without a group key, the flat items of groups (decisions D48), and the first queued
   * ready item of each group key and priority (the rest of a group's queue is read with {@link #groupHead}).
   */
  public List<ReadyEntry> readyHead(String namespace, String topic, int max) {
    byte[] prefix = ReadyKeySchema.prefix(namespace, topic);
    List<byte[]> keys = heads.first(prefix, max, loader(ReadyKeySchema.upperBound(prefix)));
    List<ReadyEntry> out = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      out.add(new ReadyEntry(ReadyKeySchema.priority(key), ReadyKeySchema.sidelined(key), ReadyKeySchema.slot(key),
          ReadyKeySchema.readyAt(key), ReadyKeySchema.offset(key)));
    }
    return out;
  }

  /** The virtual time of a topic's priority for fair queueing (0 when nothing of it is ready or leased). */
  public long virtualTime(String namespace, String topic, int priority) {
    return fair.virtualTime(namespace, topic, priority);
  }

  /** The last slot a group got at a topic's priority, or null when it has nothing ready or leased there. */
  public Long groupLastSlot(String namespace, String topic, int priority, String group) {
    return fair.lastSlot(namespace, topic, priority, group);
  }

  /** Fair queueing's state, read-only (tests). */
  public FairShares fairShares() {
    return fair;
  }

  /** Ready time of the topic's oldest ready item (of either lane), or null when none is ready. */
  public Long oldestReadyAt(String namespace, String topic) {
    Long fresh = oldestReadyAt(namespace, topic, false);
    Long backlog = oldestReadyAt(namespace, topic, true);
    if (fresh == null || backlog == null) {
      return fresh == null ? backlog : fresh; // (no conditional expression: it would unbox a null)
    }
    return Math.min(fresh, backlog);
  }

  private Long oldestReadyAt(String namespace, String topic, boolean sidelined) {
    byte[] prefix = AgeKeySchema.prefix(namespace, topic, sidelined);
    List<byte[]> keys = heads.first(prefix, 1, loader(AgeKeySchema.upperBound(prefix)));
    return keys.isEmpty() ? null : AgeKeySchema.readyAt(keys.get(0));
  }

  /**
   * Offsets of up to {@code max} of the topic's fresh-lane ready items that became ready before
   * {@code readyBefore}, longest ready first: the items that sidelining moves to the backlog lane.
   * O(log n + k) from the age index's fresh-lane head, whatever the backlog.
   */
  public List<Long> readyBefore(String namespace, String topic, long readyBefore, int max) {
    byte[] prefix = AgeKeySchema.prefix(namespace, topic, false);
    HeadCache.Loader loader = loader(AgeKeySchema.upperBound(prefix));
    List<byte[]> first = heads.first(prefix, 1, loader);
    if (first.isEmpty() || AgeKeySchema.readyAt(first.get(0)) >= readyBefore) {
      return List.of(); // the common case, at every dispatch of a namespace that sidelines: one look
    }
    List<byte[]> keys = heads.first(prefix, max, loader);
    List<Long> out = new ArrayList<>();
    for (byte[] key : keys) {
      if (AgeKeySchema.readyAt(key) >= readyBefore) {
        break;
      }
      out.add(AgeKeySchema.offset(key));
    }
    return out;
  }

  /** Reads live keys from a point up to {@code upper} (inclusive): the only store scans of ready and age ranges. */
  private HeadCache.Loader loader(byte[] upper) {
    return (from, max) -> {
      List<byte[]> keys = new ArrayList<>(Math.min(max, 1024));
      if (OrderedBytes.compare(from, upper) > 0) {
        return keys;
      }
      writes.flush();
      try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(from), Bytes.wrap(upper))) {
        while (keys.size() < max && it.hasNext()) {
          keys.add(it.next().key.get());
        }
      }
      return keys;
    };
  }

  /** Up to {@code max} timers of {@code kind} due at or before {@code now}, earliest first. */
  public List<TimerEntry> dueTimers(TimerKind kind, long now, int max) {
    byte[] prefix = TimerKeySchema.prefix(kind.code);
    byte[] upper = TimerKeySchema.dueBy(kind.code, now);
    List<TimerEntry> out = new ArrayList<>();
    if (max <= 0) {
      // An empty answer here means "not looked", not "none due": it must not move the cursor.
      return out;
    }
    if (kind == TimerKind.LEASE) {
      for (TimerEntry t : leaseTimers) {
        if (t.dueAt() > now || out.size() == max) {
          break;
        }
        out.add(t);
      }
      return out;
    }
    if (now < quietUntil[kind.ordinal()]) {
      return out;
    }
    byte[] start = cursors.start(prefix);
    if (OrderedBytes.compare(start, upper) <= 0) {
      writes.flush();
      try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(start), Bytes.wrap(upper))) {
        while (it.hasNext() && out.size() < max) {
          byte[] key = it.next().key.get();
          if (out.isEmpty()) {
            cursors.found(prefix, key);
          }
          out.add(new TimerEntry(kind, TimerKeySchema.dueAt(key), TimerKeySchema.offset(key)));
        }
      }
    }
    if (out.isEmpty()) {
      cursors.emptyUpTo(prefix, upper);
      quietUntil[kind.ordinal()] = nextDue(kind, upper);
    }
    return out;
  }

  /** Due time of the first live timer of {@code kind} after {@code after}; MAX_VALUE when none. */
  private long nextDue(TimerKind kind, byte[] after) {
    byte[] upper = TimerKeySchema.dueBy(kind.code, Long.MAX_VALUE);
    if (OrderedBytes.compare(after, upper) >= 0) {
      return Long.MAX_VALUE;
    }
    writes.flush();
    try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(OrderedBytes.successor(after)), Bytes.wrap(upper))) {
      return it.hasNext() ? TimerKeySchema.dueAt(it.next().key.get()) : Long.MAX_VALUE;
    }
  }

  /** The counts of one topic; zeros when it has no items. */
  public TopicCounts counts(String namespace, String topic) {
    long[] c = counts.get(CountsKeySchema.key(namespace, topic));
    return c == null ? new TopicCounts(namespace, topic, 0, 0, 0, 0, 0)
        : new TopicCounts(namespace, topic, c[0], c[1], c[2], c[3], c[4]);
  }

  /** The counts of a namespace on this partition, summed over its topics (topic {@code "*"}); zeros when it has none. */
  @Override
  public TopicCounts namespaceCounts(String namespace) {
    long[] c = namespaceCounts.get(namespace);
    return c == null ? new TopicCounts(namespace, "*", 0, 0, 0, 0, 0)
        : new TopicCounts(namespace, "*", c[0], c[1], c[2], c[3], c[4]);
  }

  /** True when items wait in OVERFLOW on this partition (no allocation: asked for every record of a quiet task). */
  public boolean hasOverflow() {
    return !overflowing.isEmpty();
  }

  /** The namespaces with items in OVERFLOW on this partition. */
  @Override
  public Set<String> overflowNamespaces() {
    return java.util.Collections.unmodifiableSet(overflowing);
  }

  /** The offsets of up to {@code max} OVERFLOW items of a namespace, in arrival (offset) order. */
  @Override
  public List<Long> overflowHead(String namespace, int max) {
    List<Long> out = new ArrayList<>();
    if (max <= 0) {
      return out;
    }
    byte[] prefix = OverflowKeySchema.prefix(namespace);
    byte[] upper = OverflowKeySchema.upperBound(prefix);
    byte[] start = cursors.start(prefix);
    if (OrderedBytes.compare(start, upper) > 0) {
      return out;
    }
    writes.flush();
    try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(start), Bytes.wrap(upper))) {
      while (it.hasNext() && out.size() < max) {
        byte[] key = it.next().key.get();
        if (out.isEmpty()) {
          cursors.found(prefix, key);
        }
        out.add(OverflowKeySchema.offset(key));
      }
    }
    if (out.isEmpty()) {
      cursors.emptyUpTo(prefix, upper);
    }
    return out;
  }

  /** The topics of a namespace that hold items on this partition, by name. */
  public List<TopicCounts> topics(String namespace) {
    byte[] prefix = CountsKeySchema.namespacePrefix(namespace);
    List<TopicCounts> out = new ArrayList<>();
    for (Map.Entry<byte[], long[]> e : counts.tailMap(prefix, true).entrySet()) {
      if (!startsWith(e.getKey(), prefix)) {
        break;
      }
      out.add(toCounts(e.getKey(), e.getValue()));
    }
    return out;
  }

  /** Every topic with items on this partition, across namespaces. */
  public List<TopicCounts> allTopics() {
    List<TopicCounts> out = new ArrayList<>(counts.size());
    counts.forEach((k, c) -> out.add(toCounts(k, c)));
    return out;
  }

  private static TopicCounts toCounts(byte[] key, long[] c) {
    String[] names = CountsKeySchema.names(key);
    return new TopicCounts(names[0], names[1], c[0], c[1], c[2], c[3], c[4]);
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  private void addCount(StoredItem item, int delta) {
    String namespace = item.getItem().getNamespace();
    byte[] key = CountsKeySchema.key(namespace, item.getItem().getTopic());
    int state = stateIndex(item.getState());
    long[] c = counts.computeIfAbsent(key, k -> new long[CountsKeySchema.STATES]);
    c[state] += delta;
    if (allZero(c)) {
      counts.remove(key);
    }
    long[] ns = namespaceCounts.computeIfAbsent(namespace, k -> new long[CountsKeySchema.STATES]);
    ns[state] += delta;
    if (state == 4) {
      if (ns[4] > 0) {
        overflowing.add(namespace);
      } else {
        overflowing.remove(namespace);
      }
    }
    if (allZero(ns)) {
      namespaceCounts.remove(namespace);
    }
  }

  private static boolean allZero(long[] c) {
    for (long n : c) {
      if (n != 0) {
        return false;
      }
    }
    return true;
  }

  private static int stateIndex(ItemState state) {
    return switch (state) {
      case READY -> 0;
      case DELAYED -> 1;
      case LEASED -> 2;
      case PARKED -> 3;
      case OVERFLOW -> 4;
    };
  }

  /** Removes the entries of {@code old} that {@code next} (may be null) does not have. */
  private void unindex(long offset, StoredItem old, StoredItem next) {
    if (old.getState() == ItemState.READY && !sameReady(old, next)) {
      String ns = old.getItem().getNamespace();
      String topic = old.getItem().getTopic();
      int priority = old.getItem().getPriority();
      byte[] rp = ReadyKeySchema.prefix(ns, topic);
      byte[] rk = ReadyKeySchema.key(rp, priority, old.getSidelined(), old.getSlot(), old.getReadyAt(), offset);
      String group = old.getItem().getGroupKey();
      if (ordered(old)) {
        // An ordered group's ready key: its head's only, moved by orderChange.
      } else if (group == null || old.getFlat()) {
        removeReady(rp, rk);
      } else {
        byte[] gp = GroupQueueKeySchema.prefix(ns, topic, priority, group);
        removeFromGroup(ns, topic, priority, group, rp, rk, gp,
            GroupQueueKeySchema.key(gp, old.getSidelined(), old.getSlot(), old.getReadyAt(), offset));
      }
      byte[] ap = AgeKeySchema.prefix(ns, topic, old.getSidelined());
      byte[] ak = AgeKeySchema.key(ap, old.getReadyAt(), offset);
      writes.delete(ak);
      heads.removed(ap, ak);
    }
    if (old.getState() == ItemState.OVERFLOW && (next == null || next.getState() != ItemState.OVERFLOW)) {
      byte[] op = OverflowKeySchema.prefix(old.getItem().getNamespace());
      byte[] ok = OverflowKeySchema.key(op, offset);
      writes.delete(ok);
      cursors.removed(op, ok);
    }
    Long oldTimer = timerDue(old);
    if (oldTimer != null && !oldTimer.equals(timerDue(next)) || oldTimer != null && timerKind(old) != timerKind(next)) {
      removeTimer(timerKind(old), oldTimer, offset);
    }
    Long oldTtl = old.getExpiresAt();
    if (oldTtl != null && (next == null || !oldTtl.equals(next.getExpiresAt()))) {
      removeTimer(TimerKind.TTL, oldTtl, offset);
    }
  }

  /**
   * Takes a group's ready item (ready key {@code rk}, group-queue key {@code gk}) out of its queue
   * and, when it was the group's head, out of the ready index, and brings the group's next item in:
   * the ready index holds the group's first item only.
   */
  private void removeFromGroup(String ns, String topic, int priority, String group, byte[] rp, byte[] rk, byte[] gp,
      byte[] gk) {
    if (fair.queued(ns, topic, priority, group) <= 1) {
      // The fair shares (changed after the index) count this item alone: it is the head, and the
      // queue is empty after it. No look-up, and none later reaches the store.
      writes.delete(gk);
      groupHeads.empty(gp);
      removeReady(rp, rk);
      return;
    }
    // Before the delete: a read of the store applies the held writes, and finds the item and its next.
    HeadCache.Removal removal = groupHeads.removedFrom(gp, gk, groupLoader(gp));
    writes.delete(gk);
    if (removal.wasFirst()) {
      removeReady(rp, rk);
      if (removal.next() != null) {
        putReady(rp, readyKeyOf(rp, priority, removal.next()));
      }
    }
  }

  /** Adds the entries of {@code item} that {@code previous} (may be null) did not have. */
  private void index(long offset, StoredItem item, StoredItem previous) {
    if (item.getState() == ItemState.READY && !sameReady(item, previous)) {
      String ns = item.getItem().getNamespace();
      String topic = item.getItem().getTopic();
      int priority = item.getItem().getPriority();
      byte[] rp = ReadyKeySchema.prefix(ns, topic);
      byte[] rk = ReadyKeySchema.key(rp, priority, item.getSidelined(), item.getSlot(), item.getReadyAt(), offset);
      String group = item.getItem().getGroupKey();
      if (ordered(item)) {
        // An ordered group's ready key: its head's only, moved by orderChange.
      } else if (group == null || item.getFlat()) {
        putReady(rp, rk); // its own entry: no group, or a group without a limit (decisions D48)
      } else {
        // Into the group's queue; into the ready index only as the group's new first item.
        byte[] gp = GroupQueueKeySchema.prefix(ns, topic, priority, group);
        byte[] gk = GroupQueueKeySchema.key(gp, item.getSidelined(), item.getSlot(), item.getReadyAt(), offset);
        // The fair shares are not yet changed: they count the item's previous READY state, whose
        // entries unindex has just removed, under its previous priority (a restored change may move
        // a ready item to another priority at once) and layout. Nothing else queued: the queue is empty.
        long othersReady = fair.queued(ns, topic, priority, group)
            - (previous != null && previous.getState() == ItemState.READY && !previous.getFlat()
                && previous.getItem().getPriority() == priority ? 1 : 0);
        byte[] first;
        if (othersReady <= 0) {
          groupHeads.only(gp, gk);
          first = null;
        } else {
          // Before the write: a read of the store here must not find the item already.
          first = groupHeads.firstThenInserted(gp, gk, groupLoader(gp));
        }
        writes.putNew(gk, EMPTY);
        if (first == null || OrderedBytes.compare(gk, first) < 0) {
          if (first != null) {
            removeReady(rp, readyKeyOf(rp, priority, first));
          }
          putReady(rp, rk);
        }
      }
      byte[] ap = AgeKeySchema.prefix(ns, topic, item.getSidelined());
      byte[] ak = AgeKeySchema.key(ap, item.getReadyAt(), offset);
      writes.putNew(ak, EMPTY);
      heads.inserted(ap, ak);
    }
    if (item.getState() == ItemState.OVERFLOW && (previous == null || previous.getState() != ItemState.OVERFLOW)) {
      byte[] op = OverflowKeySchema.prefix(item.getItem().getNamespace());
      byte[] ok = OverflowKeySchema.key(op, offset);
      writes.putNew(ok, EMPTY);
      cursors.inserted(op, ok);
    }
    Long due = timerDue(item);
    if (due != null && (previous == null || !due.equals(timerDue(previous)) || timerKind(previous) != timerKind(item))) {
      addTimer(timerKind(item), due, offset);
    }
    Long ttl = item.getExpiresAt();
    if (ttl != null && (previous == null || !ttl.equals(previous.getExpiresAt()))) {
      addTimer(TimerKind.TTL, ttl, offset);
    }
  }

  /** True for an item of an ordered group (decisions D60): the order index decides its ready key. */
  private static boolean ordered(StoredItem item) {
    return item != null && item.getOrdered() && item.getItem().getGroupKey() != null;
  }

  /**
   * Keeps an ordered group's order index and its head's ready key (decisions D60): every live item of
   * the group has an order key ({@link OrderKeySchema}, by offset); the ready index holds the ready
   * key of the group's first (its head) when that is READY, and no other item's. {@code before} and
   * {@code after} are the item's ordered states (null: not there, or not ordered). Called after
   * {@link #unindex} and {@link #index}, which leave ordered items' ready keys alone; the other items
   * of the group read here ({@link #get}) are as the store holds them, changed by earlier transitions.
   */
  private void orderChange(long offset, StoredItem before, StoredItem after) {
    if (before != null && after != null && sameGroup(before, after)) {
      byte[] op = orderPrefix(after);
      List<byte[]> first = orderHeads.first(op, 1, loader(OrderKeySchema.upperBound(op)));
      if (first.isEmpty() || OrderKeySchema.offset(first.get(0)) != offset) {
        return; // not the head: no ready key before or after
      }
      boolean readyBefore = before.getState() == ItemState.READY;
      boolean readyAfter = after.getState() == ItemState.READY;
      if (readyBefore && readyAfter && sameReady(after, before)) {
        return;
      }
      if (readyBefore) {
        removeReady(ReadyKeySchema.prefix(before.getItem().getNamespace(), before.getItem().getTopic()),
            readyKeyOf(offset, before));
      }
      if (readyAfter) {
        putReady(ReadyKeySchema.prefix(after.getItem().getNamespace(), after.getItem().getTopic()),
            readyKeyOf(offset, after));
      }
      return;
    }
    if (before != null) { // leaves the group: the next one may be its new head
      byte[] op = orderPrefix(before);
      byte[] ok = OrderKeySchema.key(op, offset);
      HeadCache.Removal removal = orderHeads.removedFrom(op, ok, loader(OrderKeySchema.upperBound(op)));
      writes.delete(ok);
      if (removal.wasFirst()) {
        if (before.getState() == ItemState.READY) {
          removeReady(ReadyKeySchema.prefix(before.getItem().getNamespace(), before.getItem().getTopic()),
              readyKeyOf(offset, before));
        }
        if (removal.next() != null) {
          headReady(OrderKeySchema.offset(removal.next()), true);
        }
      }
    }
    if (after != null) { // joins the group: its head when nothing older is there
      byte[] op = orderPrefix(after);
      byte[] ok = OrderKeySchema.key(op, offset);
      byte[] first = orderHeads.firstThenInserted(op, ok, loader(OrderKeySchema.upperBound(op)));
      writes.putNew(ok, EMPTY);
      if (first == null || OrderedBytes.compare(ok, first) < 0) {
        if (first != null) {
          headReady(OrderKeySchema.offset(first), false); // an older one came back: no longer the head
        }
        if (after.getState() == ItemState.READY) {
          putReady(ReadyKeySchema.prefix(after.getItem().getNamespace(), after.getItem().getTopic()),
              readyKeyOf(offset, after));
        }
      }
    }
  }

  /** Puts (or removes) the ready key of the ordered item at {@code offset}, when it is READY. */
  private void headReady(long offset, boolean put) {
    StoredItem head = get(offset);
    if (head == null || head.getState() != ItemState.READY) {
      return;
    }
    byte[] rp = ReadyKeySchema.prefix(head.getItem().getNamespace(), head.getItem().getTopic());
    if (put) {
      putReady(rp, readyKeyOf(offset, head));
    } else {
      removeReady(rp, readyKeyOf(offset, head));
    }
  }

  private static boolean sameGroup(StoredItem a, StoredItem b) {
    return a.getItem().getNamespace().equals(b.getItem().getNamespace())
        && a.getItem().getTopic().equals(b.getItem().getTopic())
        && a.getItem().getGroupKey().equals(b.getItem().getGroupKey());
  }

  private static byte[] orderPrefix(StoredItem item) {
    return OrderKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic(), item.getItem().getGroupKey());
  }

  private static byte[] readyKeyOf(long offset, StoredItem item) {
    return ReadyKeySchema.key(ReadyKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic()),
        item.getItem().getPriority(), item.getSidelined(), item.getSlot(), item.getReadyAt(), offset);
  }

  /**
   * The offset of an ordered group's head (its oldest live item, whatever its state), or null when the
   * group has no live item on this partition (decisions D60).
   */
  public Long orderedHead(String namespace, String topic, String group) {
    byte[] op = OrderKeySchema.prefix(namespace, topic, group);
    List<byte[]> first = orderHeads.first(op, 1, loader(OrderKeySchema.upperBound(op)));
    return first.isEmpty() ? null : OrderKeySchema.offset(first.get(0));
  }

  private void putReady(byte[] prefix, byte[] key) {
    writes.putNew(key, EMPTY);
    heads.inserted(prefix, key);
  }

  private void removeReady(byte[] prefix, byte[] key) {
    writes.delete(key);
    heads.removed(prefix, key);
  }

  /** Reads a group's queue (prefix {@code gp}) from the store; its upper bound made only when it reads. */
  private HeadCache.Loader groupLoader(byte[] gp) {
    return (from, max) -> loader(GroupQueueKeySchema.upperBound(gp)).load(from, max);
  }

  /** The ready key of the item a group-queue key names. */
  private static byte[] readyKeyOf(byte[] readyPrefix, int priority, byte[] groupKey) {
    return ReadyKeySchema.key(readyPrefix, priority, GroupQueueKeySchema.sidelined(groupKey),
        GroupQueueKeySchema.slot(groupKey), GroupQueueKeySchema.readyAt(groupKey), GroupQueueKeySchema.offset(groupKey));
  }

  /**
   * 64 keys per group at most, read 32 at a time: a group's queue is read from RocksDB once per 32
   * items it hands out, and each such read first applies the held index writes (8 keys at a time made
   * that every 8th item: the e2e bench with 1,000 group keys ran at 0.63 of the run without); at the
   * 10,000 prefixes a cache holds, at most ~45 MB.
   */
  private static HeadCache newGroupHeads() {
    return new HeadCache(64, 32);
  }

  private static boolean sameReady(StoredItem a, StoredItem b) {
    return b != null && b.getState() == ItemState.READY && a.getReadyAt() == b.getReadyAt()
        && a.getItem().getPriority() == b.getItem().getPriority() && a.getSidelined() == b.getSidelined()
        && a.getSlot() == b.getSlot() && a.getFlat() == b.getFlat();
  }

  private static TimerKind timerKind(StoredItem item) {
    if (item == null) {
      return null;
    }
    return switch (item.getState()) {
      case DELAYED -> TimerKind.DUE;
      case LEASED -> TimerKind.LEASE;
      default -> null;
    };
  }

  private static Long timerDue(StoredItem item) {
    if (item == null) {
      return null;
    }
    return switch (item.getState()) {
      case DELAYED -> item.getReadyAt();
      case LEASED -> item.getLeaseExpiresAt();
      default -> null;
    };
  }

  private void addTimer(TimerKind kind, long due, long offset) {
    if (kind == TimerKind.LEASE) {
      leaseTimers.add(new TimerEntry(kind, due, offset));
      return;
    }
    quietUntil[kind.ordinal()] = Math.min(quietUntil[kind.ordinal()], due);
    byte[] key = TimerKeySchema.key(kind.code, due, offset);
    writes.putNew(key, EMPTY);
    cursors.inserted(TimerKeySchema.prefix(kind.code), key);
  }

  private void removeTimer(TimerKind kind, long due, long offset) {
    if (kind == TimerKind.LEASE) {
      leaseTimers.remove(new TimerEntry(kind, due, offset));
      return;
    }
    byte[] key = TimerKeySchema.key(kind.code, due, offset);
    writes.delete(key);
    cursors.removed(TimerKeySchema.prefix(kind.code), key);
  }

  /** Identity serializer for prefix scans over byte keys. */
  private static final class BytesSerializer implements org.apache.kafka.common.serialization.Serializer<Bytes> {
    @Override
    public byte[] serialize(String topic, Bytes data) {
      return data == null ? null : data.get();
    }
  }
}
