package dev.ordo.store.internal;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * What fair queueing needs to know of a partition's items, derived from their states (docs/store.md,
 * "Fair shares"): per (namespace, topic, priority), the virtual time, and per (namespace, topic,
 * priority, group key), the group's READY and LEASED items, the last slot it was given and how many
 * of its READY items wait in its queue (not {@code flat}, decisions D48).
 *
 * <ul>
 *   <li>A group's entry counts its READY and LEASED items and holds the largest slot any of them had
 *       since the entry was made; it is removed when both counts reach zero, so an idle group holds
 *       nothing (issue 14: "a group with nothing ready and nothing leased is forgotten").</li>
 *   <li>The (namespace, topic, priority) entry counts all READY and LEASED items of that priority and
 *       holds the virtual time: the largest slot of an item leased since the entry was made. It goes
 *       when the priority has nothing ready or leased: then every group starts afresh at 0.</li>
 * </ul>
 *
 * <p>Kept up by {@code PriorityStore.transition} (so it cannot drift from the items), in memory
 * between an open and an orderly close like the topic counts, written to the index store
 * ({@code [0x48]} family) by the close and rebuilt from the item table when the index is: a rebuilt
 * entry's slot is the largest slot among the items present (leased ones, for the virtual time).
 * In memory a group's entries at its priorities sit together, one map entry per (namespace, topic,
 * group key) ({@code FairShareEntries}): a group spread over priorities keeps one object while it has items.
 */
public final class FairShares {
  /** {@code group} null: the (namespace, topic, priority) entry. */
  public record Key(String namespace, String topic, int priority, String group) {
    @Override
    public int hashCode() {
      // Not the record's polynomial hash: it collides by design on keys such as t1/3/g42 (Hashing).
      int h = Hashing.combine(namespace.hashCode(), topic.hashCode());
      h = Hashing.combine(h, priority);
      return Hashing.combine(h, group == null ? 0 : group.hashCode());
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && priority == k.priority && namespace.equals(k.namespace) && topic.equals(k.topic)
          && java.util.Objects.equals(group, k.group);
    }
  }

  private static final int READY = 0;
  private static final int LEASED = 1;
  private static final int SLOT = 2;
  /** A group's READY items in its queue, not flat in the ready index (decisions D48); 0 for a topic's entry. */
  private static final int QUEUED = 3;

  private final FairShareEntries entries = new FairShareEntries();
  /** Leased items per (namespace, group key), summed over the group's entries: its concurrency. */
  private final Map<GroupName, long[]> leasedByGroup = new HashMap<>();

  /** A group key in its namespace, hashed by {@link Hashing#combine} (not {@code List.of}'s polynomial hash). */
  private record GroupName(String namespace, String group) {
    @Override
    public int hashCode() {
      return Hashing.combine(namespace.hashCode(), group.hashCode());
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof GroupName n && group.equals(n.group) && namespace.equals(n.namespace);
    }
  }

  /** Accounts for an item going from {@code before} to {@code after} (either may be null). */
  public void change(StoredItem before, StoredItem after) {
    boolean was = counted(before);
    boolean is = counted(after);
    if (!was && !is) {
      return;
    }
    if (was && is && sameEntries(before, after) && move(before, after)) {
      return; // a lease, a release, a nack to READY, an extension: the same entries, one look-up each
    }
    if (!is) { // an ack, a delay, a cancel: out of its entries, each looked up once
      Key topic = topicKey(before);
      dropIfIdle(topic, add(topic, before, -1));
      Key group = groupKey(before);
      if (group != null) {
        dropIfIdle(group, add(group, before, -1));
      }
      return;
    }
    if (!was) { // a new item, or one back from DELAYED or PARKED: into its entries, each looked up once
      Key topic = topicKey(after);
      long[] t = add(topic, after, +1);
      if (after.getState() == ItemState.LEASED) {
        t[SLOT] = Math.max(t[SLOT], after.getSlot()); // the virtual time (see the comment below)
      }
      dropIfIdle(topic, t);
      Key group = groupKey(after);
      if (group != null) {
        long[] g = add(group, after, +1);
        g[SLOT] = Math.max(g[SLOT], after.getSlot());
        dropIfIdle(group, g);
      }
      return;
    }
    // Counted before and after under other entries (its priority changed): out of the old ones, into the new.
    Key topicBefore = topicKey(before);
    Key groupBefore = groupKey(before);
    add(topicBefore, before, -1);
    if (groupBefore != null) {
      add(groupBefore, before, -1);
    }
    Key topicAfter = topicKey(after);
    long[] t = add(topicAfter, after, +1);
    if (after.getState() == ItemState.LEASED) {
      // A lease: the virtual time moves up to its slot. Any change to LEASED counts (an extension
      // changes nothing, its slot is in already), so that a change seen coalesced (DELAYED to
      // LEASED in one restored record, RestoreFollower) or none at all (a rebuild) counts too.
      t[SLOT] = Math.max(t[SLOT], after.getSlot());
    }
    Key groupAfter = groupKey(after);
    if (groupAfter != null) {
      long[] g = add(groupAfter, after, +1);
      g[SLOT] = Math.max(g[SLOT], after.getSlot());
    }
    dropIfIdle(topicAfter);
    dropIfIdle(groupAfter);
    dropIfIdle(topicBefore);
    dropIfIdle(groupBefore);
  }

  /**
   * An item counted before and after under the same entries: its count moves between READY and
   * LEASED within them, and the slots move up as {@link #change}'s general path moves them. False,
   * changing nothing, when an entry is missing (not expected: the item was counted in it).
   */
  private boolean move(StoredItem before, StoredItem after) {
    Key topic = topicKey(after);
    long[] t = entries.get(topic);
    Key group = groupKey(after);
    long[] g = group == null ? null : entries.get(group);
    if (t == null || group != null && g == null) {
      return false;
    }
    int from = before.getState() == ItemState.LEASED ? LEASED : READY;
    int to = after.getState() == ItemState.LEASED ? LEASED : READY;
    if (from != to) {
      t[from]--;
      t[to]++;
    }
    if (to == LEASED) {
      t[SLOT] = Math.max(t[SLOT], after.getSlot());
    }
    if (g != null) {
      if (from != to) {
        g[from]--;
        g[to]++;
        addLeased(group, to == LEASED ? +1 : -1);
      }
      g[QUEUED] += inQueue(after) - inQueue(before); // also a READY item moved between the layouts
      g[SLOT] = Math.max(g[SLOT], after.getSlot());
    }
    return true;
  }

  private static boolean sameEntries(StoredItem a, StoredItem b) {
    Item x = a.getItem();
    Item y = b.getItem();
    return x == y || x.getPriority() == y.getPriority() && x.getNamespace().equals(y.getNamespace())
        && x.getTopic().equals(y.getTopic()) && java.util.Objects.equals(x.getGroupKey(), y.getGroupKey());
  }

  /** The topic priority's virtual time: 0 when it has nothing ready or leased. */
  public long virtualTime(String namespace, String topic, int priority) {
    long[] e = entries.get(new Key(namespace, topic, priority, null));
    return e == null ? 0 : e[SLOT];
  }

  /** The group's last slot at the priority, or null when the group has nothing ready or leased there. */
  public Long lastSlot(String namespace, String topic, int priority, String group) {
    long[] e = entries.get(new Key(namespace, topic, priority, group));
    return e == null ? null : e[SLOT];
  }

  /** The group's READY items at the priority (both lanes, both layouts). */
  public long ready(String namespace, String topic, int priority, String group) {
    long[] e = entries.get(new Key(namespace, topic, priority, group));
    return e == null ? 0 : e[READY];
  }

  /** The group's READY items at the priority that wait in its queue (both lanes): 0 when the queue is empty. */
  public long queued(String namespace, String topic, int priority, String group) {
    long[] e = entries.get(new Key(namespace, topic, priority, group));
    return e == null ? 0 : e[QUEUED];
  }

  /** {ready, leased, slot, queued} of an entry, or null; for tests and stats. */
  public long[] entry(Key key) {
    long[] e = entries.get(key);
    return e == null ? null : e.clone();
  }

  public int size() {
    return entries.size();
  }

  public void clear() {
    entries.clear();
    leasedByGroup.clear();
  }

  public void forEach(BiConsumer<Key, long[]> action) {
    entries.forEach((k, v) -> action.accept(k, v.clone()));
  }

  private long[] add(Key key, StoredItem item, int delta) {
    long[] e = entries.getOrAdd(key);
    boolean leased = item.getState() == ItemState.LEASED;
    e[leased ? LEASED : READY] += delta;
    if (key.group() != null) {
      e[QUEUED] += delta * inQueue(item);
    }
    if (leased && key.group() != null) {
      addLeased(key, delta);
    }
    return e;
  }

  private void addLeased(Key key, long delta) {
    GroupName g = new GroupName(key.namespace(), key.group());
    long[] n = leasedByGroup.computeIfAbsent(g, k -> new long[1]);
    n[0] += delta;
    if (n[0] <= 0) {
      leasedByGroup.remove(g);
    }
  }

  /** Items of a group key leased, over its namespace's topics and priorities on this partition. */
  public long leased(String namespace, String group) {
    long[] n = leasedByGroup.get(new GroupName(namespace, group));
    return n == null ? 0 : n[0];
  }

  private void dropIfIdle(Key key, long[] e) {
    if (e[READY] <= 0 && e[LEASED] <= 0) {
      entries.remove(key);
    }
  }

  private void dropIfIdle(Key key) {
    if (key == null) {
      return;
    }
    long[] e = entries.get(key);
    if (e != null && e[READY] <= 0 && e[LEASED] <= 0) {
      entries.remove(key);
    }
  }

  /** 1 when {@code s} is a READY item of a group key that waits in its group's queue, else 0. */
  private static int inQueue(StoredItem s) {
    return s.getState() == ItemState.READY && s.getItem().getGroupKey() != null && !s.getFlat() && !s.getOrdered()
        ? 1 : 0; // an ordered group's items are in no group queue (decisions D60)
  }

  private static boolean counted(StoredItem s) {
    return s != null && (s.getState() == ItemState.READY || s.getState() == ItemState.LEASED);
  }

  private static Key topicKey(StoredItem s) {
    return new Key(s.getItem().getNamespace(), s.getItem().getTopic(), s.getItem().getPriority(), null);
  }

  private static Key groupKey(StoredItem s) {
    String group = s.getItem().getGroupKey();
    return group == null ? null : new Key(s.getItem().getNamespace(), s.getItem().getTopic(), s.getItem().getPriority(), group);
  }

  // ---- in the index store ----

  /**
   * {@code [0x48][namespace][0x00][topic][0x00][priority: 4][group length: 4, -1 for none][group UTF-8]}:
   * the group is length-prefixed, not terminated, so any group key round-trips. Only read back whole
   * (no range of it is scanned in order), so its byte order does not matter.
   */
  public static byte[] key(Key k) {
    byte[] names = NameKey.encode(k.namespace(), k.topic());
    byte[] group = k.group() == null ? new byte[0] : k.group().getBytes(StandardCharsets.UTF_8);
    ByteBuffer buf = ByteBuffer.allocate(1 + names.length + 4 + 4 + group.length);
    buf.put(KeyFamily.GROUPS).put(names).putInt(k.priority()).putInt(k.group() == null ? -1 : group.length).put(group);
    return buf.array();
  }

  public static Key decodeKey(byte[] key) {
    ByteBuffer buf = ByteBuffer.wrap(key);
    buf.get();
    String[] names = NameKey.decode(buf);
    int priority = buf.getInt();
    int len = buf.getInt();
    String group = len < 0 ? null : new String(key, buf.position(), len, StandardCharsets.UTF_8);
    return new Key(names[0], names[1], priority, group);
  }

  public static byte[] value(long[] e) {
    return ByteBuffer.allocate(32).putLong(e[READY]).putLong(e[LEASED]).putLong(e[SLOT]).putLong(e[QUEUED]).array();
  }

  /** Puts an entry read back from the index store. */
  public void load(byte[] key, byte[] value) {
    ByteBuffer buf = ByteBuffer.wrap(value);
    Key k = decodeKey(key);
    long[] e = {buf.getLong(), buf.getLong(), buf.getLong(), buf.getLong()};
    entries.put(k, e);
    if (k.group() != null && e[LEASED] > 0) {
      addLeased(k, e[LEASED]);
    }
  }
}
