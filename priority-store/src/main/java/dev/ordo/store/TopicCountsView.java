package dev.ordo.store;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.CountsKeySchema;
import dev.ordo.store.internal.KeyFamily;
import dev.ordo.store.internal.OrderedBytes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The counts of each topic by state ({@code [0x40]}, {@link CountsKeySchema}), each namespace's sums
 * and the namespaces with OVERFLOW items, on the heap between an open and an orderly close: an item
 * counts once, under (its topic's counts key, its state). A transition changes counts of one topic at
 * every state change, and writing them through was a RocksDB write per transition (and a version for
 * every scan to step over); between an open and an orderly close nobody reads them from the store (a
 * crash makes the next open rebuild them).
 */
final class TopicCountsView {
  /** Every topic's counts by counts key, in key order; a topic whose counts are all zero is not here. */
  private final TreeMap<byte[], long[]> counts = new TreeMap<>(OrderedBytes::compare);
  /** Per namespace with items on the partition, its counts summed over its topics. */
  private final Map<String, long[]> namespaceCounts = new HashMap<>();
  /** The namespaces with OVERFLOW items. */
  private final TreeSet<String> overflowing = new TreeSet<>();

  /** Where an item counts: its state's index in the counts ({@code 0..4}: ready, delayed, leased, parked, overflow). */
  static int stateIndex(ItemState state) {
    return switch (state) {
      case READY -> 0;
      case DELAYED -> 1;
      case LEASED -> 2;
      case PARKED -> 3;
      case OVERFLOW -> 4;
    };
  }

  /** True when both items count in the same place (the same state of the same topic, or neither there). */
  static boolean sameKeys(StoredItem a, StoredItem b) {
    return a == null ? b == null : b != null && a.getState() == b.getState() && KeyDiff.sameTopic(a, b);
  }

  /** Moves the item's count from where {@code before} counted to where {@code after} counts. */
  void change(StoredItem before, StoredItem after) {
    if (sameKeys(before, after)) {
      return;
    }
    if (before != null) {
      add(before, -1);
    }
    if (after != null) {
      add(after, +1);
    }
  }

  private void add(StoredItem item, int delta) {
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

  TopicCounts counts(String namespace, String topic) {
    long[] c = counts.get(CountsKeySchema.key(namespace, topic));
    return c == null ? new TopicCounts(namespace, topic, 0, 0, 0, 0, 0)
        : new TopicCounts(namespace, topic, c[0], c[1], c[2], c[3], c[4]);
  }

  TopicCounts namespaceCounts(String namespace) {
    long[] c = namespaceCounts.get(namespace);
    return c == null ? new TopicCounts(namespace, "*", 0, 0, 0, 0, 0)
        : new TopicCounts(namespace, "*", c[0], c[1], c[2], c[3], c[4]);
  }

  boolean hasOverflow() {
    return !overflowing.isEmpty();
  }

  Set<String> overflowNamespaces() {
    return Collections.unmodifiableSet(overflowing);
  }

  /** The topics of a namespace that hold items, by name. */
  List<TopicCounts> topics(String namespace) {
    byte[] prefix = CountsKeySchema.namespacePrefix(namespace);
    List<TopicCounts> out = new ArrayList<>();
    for (Map.Entry<byte[], long[]> e : counts.tailMap(prefix, true).entrySet()) {
      byte[] key = e.getKey();
      if (key.length < prefix.length || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
        break;
      }
      out.add(toCounts(key, e.getValue()));
    }
    return out;
  }

  List<TopicCounts> allTopics() {
    List<TopicCounts> out = new ArrayList<>(counts.size());
    counts.forEach((k, c) -> out.add(toCounts(k, c)));
    return out;
  }

  private static TopicCounts toCounts(byte[] key, long[] c) {
    String[] names = CountsKeySchema.names(key);
    return new TopicCounts(names[0], names[1], c[0], c[1], c[2], c[3], c[4]);
  }

  /** Forgets every count (a rebuild starts: it counts the items again). */
  void reset() {
    counts.clear();
    namespaceCounts.clear();
    overflowing.clear();
  }

  /** Reads what {@link #save} left in the index store. */
  void load(IndexStore index) {
    reset();
    try (KeyValueIterator<Bytes, byte[]> it = index.prefixScan(new byte[] {KeyFamily.COUNTS})) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        counts.put(e.key.get(), CountsKeySchema.counts(e.value));
      }
    }
    counts.forEach((key, c) -> {
      long[] ns = namespaceCounts.computeIfAbsent(CountsKeySchema.names(key)[0], k -> new long[CountsKeySchema.STATES]);
      for (int i = 0; i < c.length; i++) {
        ns[i] += c[i];
      }
    });
    namespaceCounts.forEach((ns, c) -> {
      if (c[4] > 0) {
        overflowing.add(ns);
      }
    });
  }

  /** Writes the counts to the index store (an orderly close), replacing what was there. */
  void save(IndexStore index) {
    index.deletePrefix(new byte[] {KeyFamily.COUNTS});
    for (Map.Entry<byte[], long[]> e : counts.entrySet()) {
      index.store().put(Bytes.wrap(e.getKey()), CountsKeySchema.value(e.getValue()));
    }
  }
}
