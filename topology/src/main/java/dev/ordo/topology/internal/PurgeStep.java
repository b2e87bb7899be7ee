package dev.ordo.topology.internal;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.Purge;
import dev.ordo.schema.PurgeProgress;
import dev.ordo.schema.PurgeStatus;
import dev.ordo.schema.StoredItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One step of a purge job on one partition (decisions D56), decided in pure code: which items of a
 * window of the item table to delete, and the job's progress after it. The partition's processor
 * reads the window, applies the deletions and stores the progress in one transaction.
 *
 * <p>A job covers the items of its topic that the partition took in below {@code endOffset} (one
 * past the last record of {@code <cluster>.items} when the job was created) and, with
 * {@code enqueuedBefore}, were enqueued before it. It walks the item table in offset order from
 * {@code next}:
 * <ol>
 *   <li>The window is the items at offsets {@code next} to {@code min(endOffset, taken in + 1)}, at most
 *       {@link #SCAN_MAX}: a partition whose intake is behind the job's end waits for it, so that
 *       nothing below the end is missed.</li>
 *   <li>A matching item is deleted while the rate's tokens last; a leased one is left alone (counted
 *       in {@code leasedLeft}) unless the job includes leased items.</li>
 *   <li>{@code next} moves past what was looked at; when tokens run out it stops at the first
 *       matching item not deleted, so the next step starts there. At {@code endOffset} the job is DONE.</li>
 * </ol>
 * Deleted items are gone, so a step repeated after a crash (its transaction lost) deletes each item
 * once and counts it once: the counts are committed with the deletions.
 */
final class PurgeStep {
  /** Items of the item table one step looks at, at most. */
  static final int SCAN_MAX = 1_000;

  /** An item to delete: where, and what the table holds for it. */
  record Deletion(long offset, StoredItem item) {}

  /** What a step does. {@code changed}: the progress moved (it is stored and published). */
  record Result(List<Deletion> deletions, PurgeProgress progress, boolean changed) {}

  private PurgeStep() {}

  /** The progress of a job a Purge command starts on {@code partition}. */
  static PurgeProgress started(Purge p, int partition, long now) {
    return PurgeProgress.newBuilder().setJobId(p.getJobId()).setNamespace(p.getNamespace()).setTopic(p.getTopic())
        .setPartition(partition).setPartitions(p.getPartitions()).setEnqueuedBefore(p.getEnqueuedBefore())
        .setIncludeLeased(p.getIncludeLeased()).setStatus(p.getEndOffset() <= 0 ? PurgeStatus.DONE : PurgeStatus.RUNNING)
        .setNext(0).setEndOffset(p.getEndOffset()).setScanned(0).setPurged(new HashMap<>()).setLeasedLeft(0)
        .setCreatedAt(p.getCreatedAt()).setStartedAt(now).setUpdatedAt(now)
        .setFinishedAt(p.getEndOffset() <= 0 ? now : null).build();
  }

  /** The end of the window a step may read: the job's end, or what the partition has taken in. */
  static long windowEnd(PurgeProgress job, long intakeHighWater) {
    return Math.min(job.getEndOffset(), intakeHighWater + 1);
  }

  /** True when the item is one the job deletes (leased or not). */
  static boolean matches(PurgeProgress job, StoredItem item) {
    return item.getItem().getNamespace().equals(job.getNamespace()) && item.getItem().getTopic().equals(job.getTopic())
        && (job.getEnqueuedBefore() == null || item.getEnqueuedAt() < job.getEnqueuedBefore());
  }

  /**
   * @param window the items at offsets {@code job.next} to {@code windowEnd}, in order, at most {@link #SCAN_MAX}
   * @param windowEnd where the window ends (exclusive); the window may stop before it when it is full
   * @param tokens deletions the rate allows now
   */
  static Result plan(PurgeProgress job, List<Map.Entry<Long, StoredItem>> window, long windowEnd, long tokens,
      long now) {
    if (job.getStatus() == PurgeStatus.DONE || window.isEmpty() && windowEnd <= job.getNext()) {
      return new Result(List.of(), job, false); // done, or waiting for the intake
    }
    List<Deletion> deletions = new ArrayList<>();
    Map<String, Long> purged = new HashMap<>(job.getPurged());
    long scanned = job.getScanned();
    long leasedLeft = job.getLeasedLeft();
    long left = tokens;
    Long stoppedAt = null;
    for (Map.Entry<Long, StoredItem> e : window) {
      StoredItem item = e.getValue();
      if (matches(job, item)) {
        if (item.getState() == ItemState.LEASED && !job.getIncludeLeased()) {
          leasedLeft++;
        } else if (left > 0) {
          deletions.add(new Deletion(e.getKey(), item));
          purged.merge(item.getState().name(), 1L, Long::sum);
          left--;
        } else {
          stoppedAt = e.getKey(); // no token for it: the next step starts here
          break;
        }
      }
      scanned++;
    }
    long next = stoppedAt != null ? stoppedAt
        : window.size() >= SCAN_MAX ? window.get(window.size() - 1).getKey() + 1 : windowEnd;
    if (next == job.getNext() && deletions.isEmpty()) {
      return new Result(List.of(), job, false); // no token for the first match
    }
    boolean done = next >= job.getEndOffset();
    PurgeProgress after = PurgeProgress.newBuilder(job).setNext(next).setScanned(scanned).setPurged(purged)
        .setLeasedLeft(leasedLeft).setStatus(done ? PurgeStatus.DONE : PurgeStatus.RUNNING).setUpdatedAt(now)
        .setFinishedAt(done ? Long.valueOf(now) : null).build();
    return new Result(deletions, after, true);
  }
}
