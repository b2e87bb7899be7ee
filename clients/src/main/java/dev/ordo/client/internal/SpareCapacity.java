package dev.ordo.client.internal;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A lease consumer's spare capacity, by the topics it serves (decisions D58). Pure: every call takes
 * {@code now}.
 *
 * <ul>
 *   <li><b>Busy ratio</b> of a topic: the fraction of the consumer's handler-slot time (its workers)
 *       spent running handlers of the topic's items over the window ({@link BusyRatio}); over all its
 *       topics, their sum. An item of a topic the consumer does not name (it serves {@code *}) counts
 *       under {@code *}.</li>
 *   <li><b>Empty dequeues</b>: polls of the consumer's deliveries that brought no item while it was idle
 *       (nothing running or waiting: it asked for work, waited a poll's full time, and got none), counted
 *       for each topic it serves.</li>
 * </ul>
 */
public final class SpareCapacity {
  private final Map<String, BusyRatio> busy = new LinkedHashMap<>();
  private final AtomicLong emptyDequeues = new AtomicLong();

  /**
   * @param topics the topics the consumer serves ({@code *}: any)
   * @param slots its handler slots (workers)
   */
  public SpareCapacity(Collection<String> topics, int slots, long windowMs, long now) {
    for (String topic : topics) {
      busy.put(topic, new BusyRatio(windowMs, slots, now));
    }
  }

  /** The topics it reports on. */
  public Collection<String> topics() {
    return busy.keySet();
  }

  /** A handler of an item of {@code topic} started at {@code now}. */
  public void handlerStarted(String topic, long now) {
    of(topic).add(1, now);
  }

  /** A handler of an item of {@code topic} ended at {@code now}. */
  public void handlerEnded(String topic, long now) {
    of(topic).add(-1, now);
  }

  /** A poll brought {@code items} items: an empty dequeue when none came and the consumer was {@code idle}. */
  public void polled(int items, boolean idle) {
    if (items == 0 && idle) {
      emptyDequeues.incrementAndGet();
    }
  }

  public long emptyDequeues() {
    return emptyDequeues.get();
  }

  /** The topic's busy ratio over the window ending at {@code now}; 0 for a topic it does not serve. */
  public double busyRatio(String topic, long now) {
    BusyRatio b = busy.get(topic);
    return b == null ? 0 : b.ratio(now);
  }

  /** The busy ratio over all its topics (the sum of theirs, which share one pool of slots). */
  public double busyRatio(long now) {
    double sum = 0;
    for (BusyRatio b : busy.values()) {
      sum += b.ratio(now);
    }
    return Math.min(1, sum);
  }

  private BusyRatio of(String topic) {
    BusyRatio b = busy.get(topic);
    if (b == null) {
      b = busy.get("*");
    }
    if (b == null) {
      b = busy.values().iterator().next(); // a topic it did not ask for (cannot happen): still busy time
    }
    return b;
  }
}
