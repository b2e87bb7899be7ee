package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import java.util.List;
import java.util.Set;

/**
 * The reads a decision about one partition's queue makes: what an item is, what is ready next,
 * which timers are due. {@link PriorityStore} is one; the queue's planner sees nothing else of it.
 */
public interface QueueView {
  /** The item at {@code offset}, or null when there is none. */
  StoredItem get(long offset);

  /**
   * Up to {@code max} entries of a topic's ready index in dequeue order, without removing them: its
   * ready items without a group key, the flat items of groups, the first queued item of each group key
   * and priority (decisions D48), and each ordered group's head when it is ready (decisions D60).
   */
  List<ReadyEntry> readyHead(String namespace, String topic, int max);

  /**
   * Up to {@code max} of a group's queued ready items at a priority, in the group's dequeue order (lane,
   * slot, ready time, offset); the ready index holds the first only. A group's flat items are not here.
   */
  List<ReadyEntry> groupHead(String namespace, String topic, int priority, String group, int max);

  /** Items of a group key leased on this partition, over its namespace's topics and priorities. */
  long groupLeased(String namespace, String group);

  /** The virtual time of a topic's priority for fair queueing (0 when nothing of it is ready or leased). */
  long virtualTime(String namespace, String topic, int priority);

  /** The last slot a group got at a topic's priority, or null when it has nothing ready or leased there. */
  Long groupLastSlot(String namespace, String topic, int priority, String group);

  /**
   * Up to {@code max} fresh-lane ready items of a topic ready since before {@code readyBefore}, longest
   * first: the items that sidelining moves to the backlog lane; O(log n + k) whatever the backlog.
   */
  List<Long> readyBefore(String namespace, String topic, long readyBefore, int max);

  /** The topics of a namespace that hold items on this partition, by name. */
  List<TopicCounts> topics(String namespace);

  /** A namespace's counts on this partition, summed over its topics. */
  TopicCounts namespaceCounts(String namespace);

  /** The namespaces with items in OVERFLOW on this partition. */
  Set<String> overflowNamespaces();

  /** The offsets of up to {@code max} OVERFLOW items of a namespace, in arrival order. */
  List<Long> overflowHead(String namespace, int max);

  /** Up to {@code max} timers of {@code kind} due at or before {@code now}, earliest first. */
  List<TimerEntry> dueTimers(TimerKind kind, long now, int max);

  /**
   * The offset of an ordered group's head: its oldest live item on this partition, in any state; null
   * when the group has none (docs/queue.md, "Ordered groups").
   */
  Long orderedHead(String namespace, String topic, String group);

  /** True while the index is being rebuilt: no ready head and no timers can be trusted. */
  boolean rebuilding();
}
