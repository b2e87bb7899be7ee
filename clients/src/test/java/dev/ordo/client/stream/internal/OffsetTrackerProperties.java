package dev.ordo.client.stream.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * A partition simulated without Kafka: a log with gaps (transaction markers, compaction), a reader that
 * fetches in batches into a waiting queue, hands records out in order, finishes them in any order, reopens
 * some (a clogged stream) and seeks back to the committable offset, as {@code StreamConsumer} does. Whatever
 * the interleaving, the committed offset never passes a record that did not finish.
 */
class OffsetTrackerProperties {

  @Property(seed = "20261108", tries = 3000)
  void theCommittableOffsetNeverPassesAnUnfinishedRecord(
      @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 1, max = 3) Integer> gaps,
      @ForAll @Size(max = 400) List<@IntRange(min = 0, max = 599) Integer> actions) {
    Partition p = new Partition(gaps);
    for (int action : actions) {
      p.act(action);
      p.checkInvariants();
    }
  }

  @Property(seed = "20261108", tries = 3000)
  void onceEveryRecordFinishedTheCommittableOffsetIsTheEndOfTheLog(
      @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 1, max = 3) Integer> gaps,
      @ForAll @Size(max = 400) List<@IntRange(min = 0, max = 599) Integer> actions) {
    Partition p = new Partition(gaps);
    for (int action : actions) {
      p.act(action);
    }
    p.drain();
    p.checkInvariants();
    assertEquals(p.logEnd, p.tracker.committable(), () -> "after draining: " + p);
    assertTrue(p.tracker.idle());
  }

  @Property(seed = "20261108", tries = 3000)
  void aRecordRunsAgainOnlyIfItWasReopened(
      @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 1, max = 3) Integer> gaps,
      @ForAll @Size(max = 400) List<@IntRange(min = 0, max = 599) Integer> actions) {
    Partition p = new Partition(gaps);
    for (int action : actions) {
      p.act(action);
    }
    p.drain();
    for (long offset : p.log) {
      int starts = p.starts.getOrDefault(offset, 0);
      int reopens = p.reopens.getOrDefault(offset, 0);
      assertEquals(1 + reopens, starts, () -> "record " + offset + " started " + starts + " times, reopened "
          + reopens + ": " + p);
    }
  }

  /** The reader and its worker slots, around one tracker. */
  static final class Partition {
    final List<Long> log = new ArrayList<>();
    final long logEnd;
    final OffsetTracker tracker;
    final ArrayDeque<Long> pending = new ArrayDeque<>();
    final List<Long> running = new ArrayList<>();
    final Set<Long> finished = new HashSet<>();
    final Map<Long, Integer> starts = new HashMap<>();
    final Map<Long, Integer> reopens = new HashMap<>();
    long position;
    long lastCommittable;

    Partition(List<Integer> gaps) {
      long offset = 1_000;
      position = offset;
      tracker = new OffsetTracker(offset);
      lastCommittable = offset;
      for (int gap : gaps) {
        log.add(offset);
        offset += gap;
      }
      logEnd = offset; // past the last record, after any trailing gap
    }

    void act(int action) {
      int arg = action / 6;
      switch (action % 6) {
        case 0 -> fetch(1 + arg % 7);
        case 1 -> start(1 + arg % 4);
        case 2 -> finish(arg);
        case 3 -> reopen(arg);
        case 4 -> rewind();
        default -> readUpTo();
      }
    }

    /** Poll: up to n records from the fetch position join the waiting queue; at the end, the position reaches the log end. */
    void fetch(int n) {
      int fetched = 0;
      for (long offset : log) {
        if (offset >= position && fetched < n) {
          pending.add(offset);
          position = offset + 1;
          fetched++;
        }
      }
      if (fetched < n) {
        position = Math.max(position, logEnd);
      }
    }

    void start(int n) {
      for (int i = 0; i < n && !pending.isEmpty(); ) {
        long offset = pending.poll();
        if (tracker.start(offset)) {
          running.add(offset);
          starts.merge(offset, 1, Integer::sum);
          i++;
        }
      }
    }

    void finish(int pick) {
      if (!running.isEmpty()) {
        long offset = running.remove(pick % running.size());
        tracker.finish(offset);
        finished.add(offset);
      }
    }

    /** A failure while clogged: not settled, fetched again from the committable offset. */
    void reopen(int pick) {
      if (!running.isEmpty()) {
        long offset = running.remove(pick % running.size());
        tracker.reopen(offset);
        reopens.merge(offset, 1, Integer::sum);
        rewind();
      }
    }

    void rewind() {
      pending.clear();
      position = tracker.committable();
    }

    void readUpTo() {
      if (pending.isEmpty()) {
        tracker.readUpTo(position);
      }
    }

    /** Runs everything to the end: finishes what runs, fetches and starts the rest, until nothing is left. */
    void drain() {
      for (int round = 0; round < 10_000; round++) {
        while (!running.isEmpty()) {
          finish(0);
        }
        fetch(10);
        start(10);
        if (running.isEmpty() && pending.isEmpty() && position >= logEnd) {
          readUpTo();
          return;
        }
      }
      throw new AssertionError("did not drain: " + this);
    }

    void checkInvariants() {
      long committable = tracker.committable();
      for (long offset : log) {
        if (offset < committable) {
          assertTrue(finished.contains(offset), () -> "committable " + committable + " passes record " + offset
              + ", which never finished: " + this);
        }
      }
      assertTrue(committable >= lastCommittable, () -> "committable went back from " + lastCommittable + " to "
          + committable + ": " + this);
      lastCommittable = committable;
      assertTrue(committable <= logEnd, () -> "committable " + committable + " beyond the log end " + logEnd);
      assertEquals(running.size(), tracker.running(), () -> "running count: " + this);
    }

    @Override
    public String toString() {
      return "log=" + log + " end=" + logEnd + " position=" + position + " pending=" + pending + " running=" + running
          + " finished=" + finished + " " + tracker;
    }
  }
}
