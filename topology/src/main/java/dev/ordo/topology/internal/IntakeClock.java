package dev.ordo.topology.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest item timestamp each partition's stream thread has read from {@code items} (records
 * that reached the head of the partition's queue): how far the queue's intake has got, after which
 * {@link CommandTimestamps} puts the commands that cannot need a new item (decisions D46). One per topology; a
 * partition's entry is written and read by the one thread whose task holds the partition (its
 * {@code items} and {@code commands} partitions are in the same task), and a task moves between
 * threads only across a rebalance.
 */
public final class IntakeClock {
  /** No item read on the partition yet. */
  public static final long NONE = Long.MIN_VALUE;

  private final ConcurrentHashMap<Integer, long[]> newest = new ConcurrentHashMap<>();

  /** An item record of {@code partition} with this timestamp was read. */
  public void itemRead(int partition, long timestamp) {
    long[] n = newest.computeIfAbsent(partition, p -> new long[] {NONE});
    if (timestamp > n[0]) {
      n[0] = timestamp;
    }
  }

  /** The newest timestamp of an item read on {@code partition}, or {@link #NONE}. */
  public long newest(int partition) {
    long[] n = newest.get(partition);
    return n == null ? NONE : n[0];
  }
}
