package dev.ordo.delay.internal;

import java.util.Collections;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * How far a forwarder got in one tier partition, as committed with its offsets, pure.
 *
 * <p>A forwarder holds a record that has less than the shortest tier to go aside (in memory) until it
 * is due and goes on with the records behind it, so the partition's progress is not one offset:
 * <ul>
 *   <li>{@code frontier}: every offset below it was examined: forwarded, or pending;
 *   <li>{@code pending}: examined offsets below the frontier not forwarded yet (held aside);
 *   <li>the committed offset is the lowest pending offset, or the frontier if none is pending.
 * </ul>
 * It travels in the committed offset's metadata ({@link #metadata()}), in the same transaction as the
 * records it accounts for. A forwarder that takes the partition over ({@link #restore}) reads again from
 * the committed offset, skips what is below the frontier and not pending ({@link #isForwarded}) and
 * decides the pending records afresh: nothing is lost, nothing forwarded twice.
 *
 * <p>Metadata format: {@code ordo1:<frontier>:<d1>,<d2>,...} with {@code di = pending offset -
 * committed offset}, in base 36. {@link #MAX_PENDING} keeps it under Kafka's default
 * {@code offset.metadata.max.bytes} (4096): a forwarder stops holding records aside beyond it.
 */
public final class PartitionProgress {
  public static final int MAX_PENDING = 256;
  private static final String PREFIX = "ordo1:";

  private long frontier;
  private final TreeSet<Long> pending;

  private PartitionProgress(long frontier, TreeSet<Long> pending) {
    this.frontier = frontier;
    this.pending = pending;
  }

  /** A partition with nothing committed: nothing is known to be forwarded. */
  public static PartitionProgress fresh() {
    return new PartitionProgress(-1, new TreeSet<>());
  }

  /**
   * The progress committed as {@code offset} with {@code metadata}; metadata that is not ours (or
   * absent) means everything below {@code offset} was forwarded and nothing above it.
   */
  public static PartitionProgress restore(long offset, String metadata) {
    if (metadata == null || !metadata.startsWith(PREFIX)) {
      return new PartitionProgress(offset, new TreeSet<>());
    }
    try {
      String[] parts = metadata.substring(PREFIX.length()).split(":", -1);
      if (parts.length != 2) {
        return new PartitionProgress(offset, new TreeSet<>());
      }
      long frontier = Long.parseLong(parts[0], 36);
      TreeSet<Long> pending = new TreeSet<>();
      if (!parts[1].isEmpty()) {
        for (String d : parts[1].split(",")) {
          pending.add(offset + Long.parseLong(d, 36));
        }
      }
      // Consistent with the committed offset: it is the first pending offset, or the frontier if none.
      boolean consistent = pending.isEmpty()
          ? frontier == offset
          : pending.first() == offset && pending.last() < frontier;
      if (!consistent) {
        return new PartitionProgress(offset, new TreeSet<>());
      }
      return new PartitionProgress(frontier, pending);
    } catch (RuntimeException e) {
      return new PartitionProgress(offset, new TreeSet<>());
    }
  }

  public PartitionProgress copy() {
    return new PartitionProgress(frontier, new TreeSet<>(pending));
  }

  /** True if {@code offset} was forwarded already (examined, not pending): skip it. */
  public boolean isForwarded(long offset) {
    return offset < frontier && !pending.contains(offset);
  }

  /** {@code offset} was forwarded (in the transaction about to commit). */
  public void forwarded(long offset) {
    pending.remove(offset);
    frontier = Math.max(frontier, offset + 1);
  }

  /** {@code offset} is held aside, not forwarded yet. */
  public void held(long offset) {
    pending.add(offset);
    frontier = Math.max(frontier, offset + 1);
  }

  public boolean isPending(long offset) {
    return pending.contains(offset);
  }

  public int pendingCount() {
    return pending.size();
  }

  public NavigableSet<Long> pending() {
    return Collections.unmodifiableNavigableSet(pending);
  }

  public long frontier() {
    return frontier;
  }

  /** The offset to commit: where a new owner starts reading. */
  public long committedOffset() {
    return pending.isEmpty() ? frontier : pending.first();
  }

  /** The rest of the progress, for the committed offset's metadata. */
  public String metadata() {
    long base = committedOffset();
    StringBuilder b = new StringBuilder(PREFIX).append(Long.toString(frontier, 36)).append(':');
    boolean first = true;
    for (long p : pending) {
      if (!first) {
        b.append(',');
      }
      b.append(Long.toString(p - base, 36));
      first = false;
    }
    return b.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionProgress p && p.frontier == frontier && p.pending.equals(pending);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(frontier) * 31 + pending.hashCode();
  }

  @Override
  public String toString() {
    return "PartitionProgress[frontier=" + frontier + ", pending=" + pending + "]";
  }
}
