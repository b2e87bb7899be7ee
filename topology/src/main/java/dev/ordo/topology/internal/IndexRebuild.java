package dev.ordo.topology.internal;

import dev.ordo.store.PriorityStore;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.TopicMeters;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue task's index rebuild in steps (decisions D32): what a rebuilt item table's open had no time to
 * index (after a takeover or a crash, decisions D67), or all of it when the index store does not match
 * a trusted item table: a bounded step per punctuation ({@code ordo.rebuild.step}), held back
 * until the task processed its first record ({@link Cadence#rebuildHeld}); when it ends every topic
 * with ready items is dispatched to the demands that waited and every topic's stats published anew.
 * It counts the steps and logs the rebuild's length and the first lease after it. Owned by the
 * {@code QueueProcessor}, on the stream thread.
 */
final class IndexRebuild {
  private static final Logger log = LoggerFactory.getLogger(IndexRebuild.class);

  private final PriorityStore store;
  private final QueueMetrics metrics;
  private final TopicMeters meters;
  private final int partition;
  /** Items indexed per step ({@code QueueConfig#REBUILD_STEP_CONFIG}). */
  private final int step;
  /** When the task was initialized (wall ms). */
  private final long initializedAt;
  /** When the running rebuild started (System.nanoTime), for its log line. */
  private long startedNanos;
  /** When the rebuild ended (wall ms), until the first lease after it is logged; -1 otherwise. */
  private long rebuiltAt = -1;
  /** True once the task processed a record: until then (or {@link Cadence#REBUILD_HOLD_MS}) no step runs. */
  private boolean recordSeen;

  IndexRebuild(PriorityStore store, QueueMetrics metrics, TopicMeters meters, int partition, int step,
      long initializedAt) {
    this.store = store;
    this.metrics = metrics;
    this.meters = meters;
    this.partition = partition;
    this.step = step;
    this.initializedAt = initializedAt;
  }

  /** The store was opened untrusted: the first step at once (a new or small partition is done in it). */
  void start() {
    startedNanos = System.nanoTime();
    stepOnce();
    if (store.rebuilding()) {
      log.info("Partition {}: rebuilding the index in steps of {} items per punctuation, dispatching when done",
          partition, step);
    }
  }

  /** The task processed a record (logged when it is the first, during a rebuild). */
  void recordSeen(long now) {
    if (!recordSeen && store.rebuilding()) {
      log.info("Partition {}: first record {} ms after the task started, while rebuilding", partition, now - initializedAt);
    }
    recordSeen = true;
  }

  /**
   * At a tick while rebuilding: one step unless the rebuild is still held; true when the index is whole
   * (then the topics with ready items are in {@code readyTopics} and every topic in {@code dirty}).
   */
  boolean stepAtTick(long now, int demandsOpen, Set<TopicRef> readyTopics, StatsPublisher dirty) {
    if (Cadence.rebuildHeld(recordSeen, initializedAt, now)) {
      return false;
    }
    stepOnce();
    if (store.rebuilding()) {
      return false;
    }
    log.info("Partition {}: the index is rebuilt ({} ms); {} demands open", partition,
        (System.nanoTime() - startedNanos) / 1_000_000, demandsOpen);
    rebuiltAt = now;
    for (TopicCounts t : store.allTopics()) {
      TopicRef nsTopic = new TopicRef(t.namespace(), t.topic());
      dirty.markDirty(nsTopic);
      if (t.ready() > 0) {
        readyTopics.add(nsTopic);
      }
    }
    return true;
  }

  /** Something was leased: the first lease after a rebuild is logged with its distance from the rebuild's end. */
  void leased(long now) {
    if (rebuiltAt >= 0) {
      log.info("Partition {}: first lease after the rebuild, {} ms after it", partition, now - rebuiltAt);
      rebuiltAt = -1;
    }
  }

  private void stepOnce() {
    metrics.add(QueueMetrics.INDEX_REBUILT_ITEMS, store.rebuildStep(step));
    metrics.increment(QueueMetrics.INDEX_REBUILD_STEPS);
    meters.rebuilding(partition, store.rebuilding());
  }
}
