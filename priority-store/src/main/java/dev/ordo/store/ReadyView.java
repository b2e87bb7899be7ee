package dev.ordo.store;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.FairShares;
import dev.ordo.store.internal.GroupQueueKeySchema;
import dev.ordo.store.internal.HeadCache;
import dev.ordo.store.internal.OrderedBytes;
import dev.ordo.store.internal.ReadyKeySchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The ready index ({@code [0x20]}, {@link ReadyKeySchema}) and the groups' queues ({@code [0x24]},
 * {@link GroupQueueKeySchema}), docs/store.md "Key layouts". A READY item without a group key, or of
 * a flat group (decisions D48), has its own ready key; a READY item of a queued group has a
 * group-queue key, and the ready index holds the ready key of each queue's first item only (its
 * head, derived: moved here as the queue's first changes). Ordered groups' items have neither
 * ({@link OrderView} puts their heads' ready keys through {@link #put} and {@link #remove}). The first
 * keys of each ready range and of each group's queue are held on the heap ({@link HeadCache}).
 */
final class ReadyView {
  /** Slots of {@link #keysOf}: the item's own ready key, its group-queue key. */
  static final int OWN = 0;
  static final int QUEUED = 1;
  private static final byte[][] NONE = new byte[2][];

  private final IndexStore index;
  private final FairShares fair;
  /** The first keys of every ready range read so far. */
  private HeadCache heads = new HeadCache(PriorityStore.HEAD_CAPACITY);
  /** The first keys of the groups' queues: many small prefixes, so few keys each. */
  private HeadCache groupHeads = newGroupHeads();

  ReadyView(IndexStore index, FairShares fair) {
    this.index = index;
    this.fair = fair;
  }

  /**
   * An item's keys here: {@code [OWN, QUEUED]}, null where it has none; both null unless READY, and for
   * an ordered group's item (a pure function of the item; a queue's head also has a derived ready key).
   */
  static byte[][] keysOf(long offset, StoredItem item) {
    if (item == null || item.getState() != ItemState.READY || OrderView.ordered(item)) {
      return NONE;
    }
    String group = item.getItem().getGroupKey();
    if (group == null || item.getFlat()) {
      return new byte[][] {readyKeyOf(offset, item), null};
    }
    byte[] gp = GroupQueueKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic(),
        item.getItem().getPriority(), group);
    return new byte[][] {null, GroupQueueKeySchema.key(gp, item.getSidelined(), item.getSlot(), item.getReadyAt(), offset)};
  }

  /** True when both items have the same keys here (mostly: neither READY), without making them. */
  static boolean sameKeys(StoredItem a, StoredItem b) {
    boolean inA = a != null && a.getState() == ItemState.READY && !OrderView.ordered(a);
    boolean inB = b != null && b.getState() == ItemState.READY && !OrderView.ordered(b);
    return !inA && !inB || inA && inB && a.getFlat() == b.getFlat() && sameReadyKey(a, b) && KeyDiff.sameGroup(a, b);
  }

  /** The same fields of a ready key (the topic aside). */
  static boolean sameReadyKey(StoredItem a, StoredItem b) {
    return a.getReadyAt() == b.getReadyAt() && a.getItem().getPriority() == b.getItem().getPriority()
        && a.getSidelined() == b.getSidelined() && a.getSlot() == b.getSlot();
  }

  /** The ready key of an item, whatever its state and group. */
  static byte[] readyKeyOf(long offset, StoredItem item) {
    return ReadyKeySchema.key(ReadyKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic()),
        item.getItem().getPriority(), item.getSidelined(), item.getSlot(), item.getReadyAt(), offset);
  }

  /**
   * Moves the item's keys from {@code before}'s to {@code after}'s, removals first, and the heads of
   * the queues they leave or join. The fair shares must not be changed yet: they count {@code before}.
   */
  void change(long offset, StoredItem before, StoredItem after) {
    if (sameKeys(before, after)) {
      return;
    }
    byte[][] b = keysOf(offset, before);
    byte[][] a = keysOf(offset, after);
    if (KeyDiff.removed(b, a, OWN)) {
      remove(b[OWN]);
    }
    if (KeyDiff.removed(b, a, QUEUED)) {
      leaveQueue(before, b[QUEUED]);
    }
    if (KeyDiff.added(b, a, OWN)) {
      put(a[OWN]); // its own entry: no group, or a group without a limit (decisions D48)
    }
    if (KeyDiff.added(b, a, QUEUED)) {
      joinQueue(after, a[QUEUED], b[QUEUED]);
    }
  }

  /**
   * Takes a group's ready item (group-queue key {@code gk}) out of its queue and, when it was the
   * group's head, its ready key out of the ready index, and brings the group's next item in.
   */
  private void leaveQueue(StoredItem item, byte[] gk) {
    String ns = item.getItem().getNamespace();
    String topic = item.getItem().getTopic();
    int priority = item.getItem().getPriority();
    byte[] gp = Arrays.copyOf(gk, gk.length - GroupQueueKeySchema.SUFFIX_SIZE);
    byte[] rp = ReadyKeySchema.prefix(ns, topic);
    if (fair.queued(ns, topic, priority, item.getItem().getGroupKey()) <= 1) {
      // The fair shares (changed after the index) count this item alone: it is the head, and the
      // queue is empty after it. No look-up, and none later reaches the store.
      index.delete(gk);
      groupHeads.empty(gp);
      remove(rp, readyKeyOf(rp, priority, gk));
      return;
    }
    // Before the delete: a read of the store applies the held writes, and finds the item and its next.
    HeadCache.Removal removal = groupHeads.removedFrom(gp, gk, index.loader(GroupQueueKeySchema.upperBound(gp)));
    index.delete(gk);
    if (removal.wasFirst()) {
      remove(rp, readyKeyOf(rp, priority, gk));
      if (removal.next() != null) {
        put(rp, readyKeyOf(rp, priority, removal.next()));
      }
    }
  }

  /**
   * Puts a group's ready item (group-queue key {@code gk}) into its queue and, when it is the group's
   * new first, its ready key into the ready index in place of the old first's. {@code beforeKey}: the
   * item's group-queue key before (null: none), just removed but still counted by the fair shares.
   */
  private void joinQueue(StoredItem item, byte[] gk, byte[] beforeKey) {
    String ns = item.getItem().getNamespace();
    String topic = item.getItem().getTopic();
    int priority = item.getItem().getPriority();
    int gpLength = gk.length - GroupQueueKeySchema.SUFFIX_SIZE;
    byte[] gp = Arrays.copyOf(gk, gpLength);
    // The fair shares are not yet changed: they count the item's previous state, whose keys are gone
    // already, in its previous queue (a restored change may move a ready item to another priority at
    // once). Nothing else queued: the queue is empty.
    boolean wasHere = beforeKey != null && beforeKey.length == gk.length
        && Arrays.equals(beforeKey, 0, gpLength, gk, 0, gpLength);
    long othersReady = fair.queued(ns, topic, priority, item.getItem().getGroupKey()) - (wasHere ? 1 : 0);
    byte[] first;
    if (othersReady <= 0) {
      groupHeads.only(gp, gk);
      first = null;
    } else {
      // Before the write: a read of the store here must not find the item already.
      first = groupHeads.firstThenInserted(gp, gk, index.loader(GroupQueueKeySchema.upperBound(gp)));
    }
    index.put(gk);
    if (first == null || OrderedBytes.compare(gk, first) < 0) {
      byte[] rp = ReadyKeySchema.prefix(ns, topic);
      if (first != null) {
        remove(rp, readyKeyOf(rp, priority, first));
      }
      put(rp, readyKeyOf(rp, priority, gk));
    }
  }

  /** The ready key of the item a group-queue key names. */
  private static byte[] readyKeyOf(byte[] readyPrefix, int priority, byte[] groupKey) {
    return ReadyKeySchema.key(readyPrefix, priority, GroupQueueKeySchema.sidelined(groupKey),
        GroupQueueKeySchema.slot(groupKey), GroupQueueKeySchema.readyAt(groupKey), GroupQueueKeySchema.offset(groupKey));
  }

  /** Puts a ready key into the index (an item's own, or a head's). */
  void put(byte[] key) {
    put(Arrays.copyOf(key, key.length - ReadyKeySchema.SUFFIX_SIZE), key);
  }

  /** Removes a ready key from the index. */
  void remove(byte[] key) {
    remove(Arrays.copyOf(key, key.length - ReadyKeySchema.SUFFIX_SIZE), key);
  }

  private void put(byte[] prefix, byte[] key) {
    index.put(key);
    heads.inserted(prefix, key);
  }

  private void remove(byte[] prefix, byte[] key) {
    index.delete(key);
    heads.removed(prefix, key);
  }

  /** See {@link PriorityStore#readyHead}. */
  List<ReadyEntry> readyHead(String namespace, String topic, int max) {
    byte[] prefix = ReadyKeySchema.prefix(namespace, topic);
    List<byte[]> keys = heads.first(prefix, max, index.loader(ReadyKeySchema.upperBound(prefix)));
    List<ReadyEntry> out = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      out.add(new ReadyEntry(ReadyKeySchema.priority(key), ReadyKeySchema.sidelined(key), ReadyKeySchema.slot(key),
          ReadyKeySchema.readyAt(key), ReadyKeySchema.offset(key)));
    }
    return out;
  }

  /** See {@link PriorityStore#groupHead}. */
  List<ReadyEntry> groupHead(String namespace, String topic, int priority, String group, int max) {
    byte[] gp = GroupQueueKeySchema.prefix(namespace, topic, priority, group);
    List<byte[]> keys = groupHeads.first(gp, max, index.loader(GroupQueueKeySchema.upperBound(gp)));
    List<ReadyEntry> out = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      out.add(new ReadyEntry(priority, GroupQueueKeySchema.sidelined(key), GroupQueueKeySchema.slot(key),
          GroupQueueKeySchema.readyAt(key), GroupQueueKeySchema.offset(key)));
    }
    return out;
  }

  /** Forgets the heads held (a rebuild starts or ends). */
  void reset() {
    heads = new HeadCache(PriorityStore.HEAD_CAPACITY);
    groupHeads = newGroupHeads();
  }

  /**
   * 64 keys per group at most, read 32 at a time: a group's queue is read from RocksDB once per 32
   * items it hands out, and each such read first applies the held index writes (8 keys at a time made
   * that every 8th item: the e2e bench with 1,000 group keys ran at 0.63 of the run without); at the
   * 10,000 prefixes a cache holds, at most ~45 MB.
   */
  static HeadCache newGroupHeads() {
    return new HeadCache(64, 32);
  }
}
