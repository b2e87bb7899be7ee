package dev.ordo.topology.internal;

import dev.ordo.store.QueueView;
import dev.ordo.store.ReadyEntry;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The candidates of one serving ({@link Dispatch#serveMerged}): a priority queue over the topics' ready
 * index (read in growing windows, never past what the queue's smallest candidate needs), the
 * continuations of the groups taken from, and the items the plan sidelined. Made per serving, dropped
 * after it.
 */
final class ReadyMerge {
  record Candidate(ReadyEntry entry, String topic, boolean fromStore, int source) {}

  private static final int READY_INDEX = 0;
  static final int GROUP = 1;
  private static final int MOVED = 2;

  private final QueueView view;
  private final String namespace;
  private final PriorityQueue<Candidate> queue = new PriorityQueue<>((a, b) -> a.entry().compareTo(b.entry()));
  private final Map<String, Window> windows = new LinkedHashMap<>();
  private final Map<GroupKey, GroupCursor> groups = new HashMap<>();
  /** With topic weights: the candidates per topic, taken by turns ({@link TopicTurns.Merge}); else null. */
  private final TopicTurns.Merge<Candidate> weighted;

  /** A group's place in the merge: its topic, its priority and its key. */
  private record GroupKey(String topic, int priority, String group) {}

  /** How far a topic's ready index has been read. */
  private final class Window {
    final String topic;
    int size;
    ReadyEntry last;
    boolean exhausted;

    Window(String topic, int size) {
      this.topic = topic;
      this.size = Math.max(1, size);
    }

    void load() {
      List<ReadyEntry> entries = view.readyHead(namespace, topic, size);
      for (ReadyEntry e : entries) {
        if (last == null || e.compareTo(last) > 0) {
          add(new Candidate(e, topic, true, READY_INDEX));
        }
      }
      exhausted = entries.size() < size;
      if (!entries.isEmpty()) {
        last = entries.get(entries.size() - 1);
      }
      size = size * 2;
    }
  }

  /** How far a group's queue has been read. */
  private final class GroupCursor {
    final String topic;
    final int priority;
    final String group;
    List<ReadyEntry> loaded = List.of();
    int next;
    int size = 4;
    boolean exhausted;

    GroupCursor(String topic, int priority, String group) {
      this.topic = topic;
      this.priority = priority;
      this.group = group;
    }

    /** The group's entry after the ones handed out so far (the first is the ready index's), or null. */
    ReadyEntry take() {
      if (next >= loaded.size() && !exhausted) {
        loaded = view.groupHead(namespace, topic, priority, group, size);
        exhausted = loaded.size() < size;
        size *= 2;
      }
      return next < loaded.size() ? loaded.get(next++) : null;
    }
  }

  /**
   * @param plan the plan whose view is read and whose sidelined items are candidates
   * @param n the window of each topic's ready index read first
   * @param share the topics' turns by weight (null: none, one queue in dequeue order)
   */
  ReadyMerge(Plan plan, String namespace, List<String> topics, int n, TopicTurns.Share share) {
    this.view = plan.view;
    this.namespace = namespace;
    this.weighted = share == null ? null : new TopicTurns.Merge<>(share, Candidate::entry);
    for (String topic : topics) {
      Window w = new Window(topic, n);
      windows.put(topic, w);
      w.load();
      List<ReadyEntry> moved =
          plan.sidelinedPerTopic == null ? null : plan.sidelinedPerTopic.get(new TopicRef(namespace, topic));
      if (moved != null) {
        for (ReadyEntry m : moved) {
          add(new Candidate(m, topic, false, MOVED));
        }
      }
    }
  }

  private void add(Candidate c) {
    if (weighted != null) {
      weighted.add(c.topic(), c);
    } else {
      queue.add(c);
    }
  }

  /** The next candidate in dequeue order, or null when there is none. */
  Candidate next() {
    if (weighted != null) {
      for (Window w : windows.values()) {
        // As below, per topic: each topic's head must be known to take turns among them.
        Candidate head;
        while (!w.exhausted && weighted.takes(w.topic)
            && ((head = weighted.peek(w.topic)) == null || w.last == null || w.last.compareTo(head.entry()) < 0)) {
          w.load();
        }
      }
      return weighted.poll();
    }
    for (Window w : windows.values()) {
      // Entries not read yet sort after the window's last: read on while that is before the smallest.
      while (!w.exhausted && (queue.isEmpty() || w.last == null || w.last.compareTo(queue.peek().entry()) < 0)) {
        w.load();
      }
    }
    return queue.poll();
  }

  /** After a group's entry from the store was taken (or passed), its next joins the candidates. */
  void continueGroup(Candidate c, String group) {
    GroupKey key = new GroupKey(c.topic(), c.entry().priority(), group);
    GroupCursor cursor = groups.get(key);
    if (cursor == null) {
      cursor = new GroupCursor(c.topic(), c.entry().priority(), group);
      groups.put(key, cursor);
      cursor.take(); // the group's first: the ready index's entry just taken
    }
    ReadyEntry next = cursor.take();
    if (next != null) {
      add(new Candidate(next, c.topic(), true, GROUP));
    }
  }
}
