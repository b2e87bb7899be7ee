package dev.ordo.delay;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The records a forwarder holds aside in memory until their due time (less than the shortest tier from due),
 * per partition in offset order. Pure: times are passed in. {@code PartitionProgress} lists the same
 * offsets in the committed metadata; this keeps the records themselves.
 *
 * @see dev.ordo.delay.internal.PartitionProgress
 */
final class HeldRecords {
  /** A record held aside and when it is next to be decided. */
  record Held(ConsumerRecord<byte[], byte[]> record, long until) {}

  private final Map<TopicPartition, Aside> byPartition = new HashMap<>();

  /** The records held aside of {@code tp}, made empty if there are none yet. */
  Aside of(TopicPartition tp) {
    return byPartition.computeIfAbsent(tp, k -> new Aside());
  }

  /** The partitions seen and their records held aside. */
  Set<Map.Entry<TopicPartition, Aside>> partitions() {
    return byPartition.entrySet();
  }

  /** The earliest time any record held aside is due, {@link Long#MAX_VALUE} if none is held. */
  long nextDue() {
    long next = Long.MAX_VALUE;
    for (Aside aside : byPartition.values()) {
      next = Math.min(next, aside.earliestDue());
    }
    return next;
  }

  /** How many records are held aside in all. */
  int size() {
    int n = 0;
    for (Aside aside : byPartition.values()) {
      n += aside.byOffset.size();
    }
    return n;
  }

  /** Drops the records held aside of {@code partitions} (revoked, lost, or about to be restored). */
  void forget(Collection<TopicPartition> partitions) {
    byPartition.keySet().removeAll(partitions);
  }

  /** The records held aside of one partition, by offset. */
  static final class Aside {
    private final TreeMap<Long, Held> byOffset = new TreeMap<>();

    boolean contains(long offset) {
      return byOffset.containsKey(offset);
    }

    /** Holds {@code record} aside until {@code until}, replacing its earlier time if it was held. */
    void hold(ConsumerRecord<byte[], byte[]> record, long until) {
      byOffset.put(record.offset(), new Held(record, until));
    }

    void release(long offset) {
      byOffset.remove(offset);
    }

    /** The records due at {@code now}, in offset order; a copy, so they may be released or held again meanwhile. */
    List<Held> due(long now) {
      List<Held> due = new ArrayList<>();
      for (Held h : byOffset.values()) {
        if (h.until() <= now) {
          due.add(h);
        }
      }
      return due;
    }

    /** The earliest time a record held aside here is due, {@link Long#MAX_VALUE} if none is held. */
    long earliestDue() {
      long next = Long.MAX_VALUE;
      for (Held h : byOffset.values()) {
        next = Math.min(next, h.until());
      }
      return next;
    }

    int size() {
      return byOffset.size();
    }
  }
}
