package dev.ordo.store;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.internal.AgeKeySchema;
import dev.ordo.store.internal.CountsKeySchema;
import dev.ordo.store.internal.ItemKeySchema;
import dev.ordo.store.internal.OrderedBytes;
import dev.ordo.store.internal.ReadyKeySchema;
import dev.ordo.store.internal.ScanCursors;
import dev.ordo.store.internal.TimerKeySchema;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One partition's queue: the item table and the indexes derived from it, in one key-value store
 * (RocksDB under Kafka Streams, changelogged).
 *
 * <p>The indexes are a function of the item: a READY item has a ready entry and an age entry, a
 * DELAYED item a DUE timer, a LEASED item a LEASE timer, any item with a TTL a TTL timer, and each
 * item counts once in its topic's state counts. {@link #transition} is the one way to change an
 * item: it writes the item and moves exactly the index entries that differ between the old and
 * new item, so the indexes cannot drift from the table. Not thread-safe: it belongs to the
 * partition's stream thread.
 */
public final class PriorityStore {
  public static final String STORE_NAME = "ordo-queue";
  private static final byte[] EMPTY = new byte[0];

  private final KeyValueStore<Bytes, byte[]> kv;
  private final ScanCursors cursors = new ScanCursors();

  public PriorityStore(KeyValueStore<Bytes, byte[]> kv) {
    this.kv = kv;
  }

  /** The item at {@code offset}, or null when there is none. */
  public StoredItem get(long offset) {
    byte[] value = kv.get(Bytes.wrap(ItemKeySchema.key(offset)));
    return value == null ? null : OrdoSerdes.STORED_ITEM.decode(value);
  }

  /**
   * Replaces {@code before} (what the table holds for {@code offset}, null when new) by
   * {@code after} (null to delete), with its index entries and counts.
   */
  public void transition(long offset, StoredItem before, StoredItem after) {
    if (after == null) {
      kv.delete(Bytes.wrap(ItemKeySchema.key(offset)));
    } else {
      kv.put(Bytes.wrap(ItemKeySchema.key(offset)), OrdoSerdes.STORED_ITEM.encode(after));
    }
    if (before != null) {
      unindex(offset, before, after);
    }
    if (after != null) {
      index(offset, after, before);
    }
    if (before == null || after == null || before.getState() != after.getState()) {
      if (before != null) {
        addCount(before, -1);
      }
      if (after != null) {
        addCount(after, +1);
      }
    }
  }

  /** Up to {@code max} ready items of a topic in dequeue order, without removing them. */
  public List<ReadyEntry> readyHead(String namespace, String topic, int max) {
    byte[] prefix = ReadyKeySchema.prefix(namespace, topic);
    byte[] upper = ReadyKeySchema.upperBound(prefix);
    List<ReadyEntry> out = new ArrayList<>(Math.min(max, 1024));
    if (max <= 0) {
      return out;
    }
    byte[] start = cursors.start(prefix);
    if (OrderedBytes.compare(start, upper) > 0) {
      return out;
    }
    try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(start), Bytes.wrap(upper))) {
      while (it.hasNext() && out.size() < max) {
        byte[] key = it.next().key.get();
        if (out.isEmpty()) {
          cursors.found(prefix, key);
        }
        out.add(new ReadyEntry(ReadyKeySchema.priority(key), ReadyKeySchema.readyAt(key), ReadyKeySchema.offset(key)));
      }
    }
    if (out.isEmpty()) {
      cursors.emptyUpTo(prefix, upper);
    }
    return out;
  }

  /** Ready time of the topic's oldest ready item, or null when none is ready. */
  public Long oldestReadyAt(String namespace, String topic) {
    byte[] prefix = AgeKeySchema.prefix(namespace, topic);
    byte[] upper = AgeKeySchema.upperBound(prefix);
    byte[] start = cursors.start(prefix);
    if (OrderedBytes.compare(start, upper) > 0) {
      return null;
    }
    try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(start), Bytes.wrap(upper))) {
      if (it.hasNext()) {
        byte[] key = it.next().key.get();
        cursors.found(prefix, key);
        return AgeKeySchema.readyAt(key);
      }
    }
    cursors.emptyUpTo(prefix, upper);
    return null;
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
    byte[] start = cursors.start(prefix);
    if (OrderedBytes.compare(start, upper) > 0) {
      return out;
    }
    try (KeyValueIterator<Bytes, byte[]> it = kv.range(Bytes.wrap(start), Bytes.wrap(upper))) {
      while (it.hasNext() && out.size() < max) {
        byte[] key = it.next().key.get();
        if (out.isEmpty()) {
          cursors.found(prefix, key);
        }
        out.add(new TimerEntry(kind, TimerKeySchema.dueAt(key), TimerKeySchema.offset(key)));
      }
    }
    if (out.isEmpty()) {
      cursors.emptyUpTo(prefix, upper);
    }
    return out;
  }

  /** The counts of one topic; zeros when it has no items. */
  public TopicCounts counts(String namespace, String topic) {
    byte[] value = kv.get(Bytes.wrap(CountsKeySchema.key(namespace, topic)));
    return toCounts(namespace, topic, value);
  }

  /** The topics of a namespace that hold items on this partition, by name. */
  public List<TopicCounts> topics(String namespace) {
    byte[] prefix = CountsKeySchema.namespacePrefix(namespace);
    List<TopicCounts> out = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = kv.prefixScan(Bytes.wrap(prefix), new BytesSerializer())) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kvp = it.next();
        String[] names = CountsKeySchema.names(kvp.key.get());
        out.add(toCounts(names[0], names[1], kvp.value));
      }
    }
    return out;
  }

  /** Every topic with items on this partition, across namespaces. */
  public List<TopicCounts> allTopics() {
    byte[] prefix = new byte[] {dev.ordo.store.internal.KeyFamily.COUNTS};
    List<TopicCounts> out = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = kv.prefixScan(Bytes.wrap(prefix), new BytesSerializer())) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kvp = it.next();
        String[] names = CountsKeySchema.names(kvp.key.get());
        out.add(toCounts(names[0], names[1], kvp.value));
      }
    }
    return out;
  }

  private static TopicCounts toCounts(String namespace, String topic, byte[] value) {
    if (value == null) {
      return new TopicCounts(namespace, topic, 0, 0, 0, 0);
    }
    long[] c = CountsKeySchema.counts(value);
    return new TopicCounts(namespace, topic, c[0], c[1], c[2], c[3]);
  }

  private void addCount(StoredItem item, int delta) {
    String ns = item.getItem().getNamespace();
    String topic = item.getItem().getTopic();
    Bytes key = Bytes.wrap(CountsKeySchema.key(ns, topic));
    byte[] value = kv.get(key);
    long[] c = value == null ? new long[4] : CountsKeySchema.counts(value);
    c[stateIndex(item.getState())] += delta;
    if (c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0) {
      kv.delete(key);
    } else {
      kv.put(key, CountsKeySchema.value(c[0], c[1], c[2], c[3]));
    }
  }

  private static int stateIndex(ItemState state) {
    return switch (state) {
      case READY -> 0;
      case DELAYED -> 1;
      case LEASED -> 2;
      case PARKED -> 3;
    };
  }

  /** Removes the entries of {@code old} that {@code next} (may be null) does not have. */
  private void unindex(long offset, StoredItem old, StoredItem next) {
    if (old.getState() == ItemState.READY && !sameReady(old, next)) {
      byte[] rp = ReadyKeySchema.prefix(old.getItem().getNamespace(), old.getItem().getTopic());
      byte[] rk = ReadyKeySchema.key(rp, old.getItem().getPriority(), old.getReadyAt(), offset);
      kv.delete(Bytes.wrap(rk));
      cursors.removed(rp, rk);
      byte[] ap = AgeKeySchema.prefix(old.getItem().getNamespace(), old.getItem().getTopic());
      byte[] ak = AgeKeySchema.key(ap, old.getReadyAt(), offset);
      kv.delete(Bytes.wrap(ak));
      cursors.removed(ap, ak);
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

  /** Adds the entries of {@code item} that {@code previous} (may be null) did not have. */
  private void index(long offset, StoredItem item, StoredItem previous) {
    if (item.getState() == ItemState.READY && !sameReady(item, previous)) {
      byte[] rp = ReadyKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic());
      byte[] rk = ReadyKeySchema.key(rp, item.getItem().getPriority(), item.getReadyAt(), offset);
      kv.put(Bytes.wrap(rk), EMPTY);
      cursors.inserted(rp, rk);
      byte[] ap = AgeKeySchema.prefix(item.getItem().getNamespace(), item.getItem().getTopic());
      byte[] ak = AgeKeySchema.key(ap, item.getReadyAt(), offset);
      kv.put(Bytes.wrap(ak), EMPTY);
      cursors.inserted(ap, ak);
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

  private static boolean sameReady(StoredItem a, StoredItem b) {
    return b != null && b.getState() == ItemState.READY && a.getReadyAt() == b.getReadyAt()
        && a.getItem().getPriority() == b.getItem().getPriority();
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
    byte[] key = TimerKeySchema.key(kind.code, due, offset);
    kv.put(Bytes.wrap(key), EMPTY);
    cursors.inserted(TimerKeySchema.prefix(kind.code), key);
  }

  private void removeTimer(TimerKind kind, long due, long offset) {
    byte[] key = TimerKeySchema.key(kind.code, due, offset);
    kv.delete(Bytes.wrap(key));
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
