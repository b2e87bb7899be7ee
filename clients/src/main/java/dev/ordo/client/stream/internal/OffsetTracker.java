package dev.ordo.client.stream.internal;

import java.util.Map;
import java.util.TreeMap;

/**
 * The records of one partition that a stream consumer started and finished, and the offset it may
 * commit: the first record it started and has not finished, or, when every started record is
 * finished, one past the last one it started. Records of a partition run in parallel and finish in any
 * order; the committed offset never passes one that is not finished, so a restart or a new owner of
 * the partition resumes there and nothing is skipped (at-least-once: finished records above it run again).
 *
 * <p>How the consumer uses it, per partition, on its poll thread only:
 * <ol>
 *   <li>{@link #start} each fetched record in offset order when it hands it to a worker. After a seek
 *       back the same records are fetched again: {@code start} answers false for those running or
 *       finished, so each runs once.</li>
 *   <li>{@link #finish} it when it is settled: its handler succeeded, or its retry copy or dead letter
 *       was durably written.</li>
 *   <li>{@link #reopen} it when it failed but was neither retried nor dead-lettered (the clog guard
 *       holds the stream): it counts as not started, and the consumer seeks back to
 *       {@link #committable()} so that it is fetched and started again.</li>
 *   <li>{@link #readUpTo} the consumer's position when every fetched record was started: offsets below
 *       it that were never handed out are gaps (transaction markers, compacted records).</li>
 * </ol>
 *
 * <p>Why the committed offset never passes an unfinished record: a record below {@code next} that
 * was fetched is in the map or below the floor (records start in fetch order, and a seek back only
 * goes to the committable offset, which is at or below every record in the map), and the committable
 * offset is the first map entry that is not finished, or {@code next} when there is none. A record at
 * or above {@code next} was not started yet, so it is not below the committable offset either.
 */
public final class OffsetTracker {
  private enum State { RUNNING, DONE, REOPENED }

  /** Started records at or above the floor; the first entry is never DONE (those are pruned). */
  private final TreeMap<Long, State> open = new TreeMap<>();
  /** One past the highest offset started or read past. */
  private long next;
  private int running;

  /** @param position the offset of the first record that will be fetched */
  public OffsetTracker(long position) {
    this.next = position;
  }

  /**
   * Marks the record at {@code offset} running. False if it is running or finished already (fetched
   * again after a seek back): don't run it again.
   */
  public boolean start(long offset) {
    if (offset < floor()) {
      return false;
    }
    State s = open.get(offset);
    if (s == State.RUNNING || s == State.DONE) {
      return false;
    }
    open.put(offset, State.RUNNING);
    running++;
    next = Math.max(next, offset + 1);
    return true;
  }

  /** The record at {@code offset} is settled. Ignored unless it is running. */
  public void finish(long offset) {
    if (open.get(offset) == State.RUNNING) {
      open.put(offset, State.DONE);
      running--;
      prune();
    }
  }

  /**
   * The record at {@code offset} failed and was not settled: it must be fetched and started again,
   * and until then the committable offset stays at or below it. Ignored unless it is running.
   */
  public void reopen(long offset) {
    if (open.get(offset) == State.RUNNING) {
      open.put(offset, State.REOPENED);
      running--;
    }
  }

  /**
   * Every record below {@code position} (the consumer's fetch position) was fetched and started or
   * skipped: offsets between the last started record and it are gaps, committable once nothing is open.
   */
  public void readUpTo(long position) {
    next = Math.max(next, position);
  }

  /** The offset to commit: no unfinished record lies below it. */
  public long committable() {
    return floor();
  }

  /** Records started and not finished or reopened. */
  public int running() {
    return running;
  }

  /** True when every record started was finished. */
  public boolean idle() {
    return open.isEmpty();
  }

  private long floor() {
    Map.Entry<Long, State> first = open.firstEntry();
    return first == null ? next : first.getKey();
  }

  private void prune() {
    Map.Entry<Long, State> first;
    while ((first = open.firstEntry()) != null && first.getValue() == State.DONE) {
      open.pollFirstEntry();
    }
  }

  @Override
  public String toString() {
    return "OffsetTracker{committable=" + committable() + ", next=" + next + ", open=" + open + "}";
  }
}
