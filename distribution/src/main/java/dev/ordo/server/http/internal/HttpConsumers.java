package dev.ordo.server.http.internal;

import dev.ordo.client.internal.BusyRatio;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Spare capacity of the workers that dequeue over HTTP (decisions D58), by (namespace, topic, group),
 * where the group is what the caller names in {@code X-Ordo-Consumer-Group}, or its principal. Pure:
 * every call takes {@code now}; the server's meters read it ({@code HttpConsumerMeters}).
 *
 * <ul>
 *   <li><b>Empty dequeues</b>: dequeues that ended with no item after their wait, counted for each
 *       topic they asked ({@code *} for any topic);</li>
 *   <li><b>Busy</b>: a group is busy while it holds items it dequeued over HTTP and has not settled
 *       (acked, nacked, released, cancelled, or let their lease run out) <em>and</em> none of its
 *       dequeues of the topic is waiting. A worker waiting in a dequeue is spare capacity; items out with
 *       nobody waiting for more means every worker is at work. The busy ratio is the fraction of the
 *       window the group was busy ({@link BusyRatio} with one slot).</li>
 * </ul>
 */
public final class HttpConsumers {
  /** One group's activity on one topic. */
  public record Key(String namespace, String topic, String group) {}

  private static final class Activity {
    final BusyRatio busy;
    long emptyDequeues;
    int waiting;
    int held;

    Activity(long windowMs, long now) {
      busy = new BusyRatio(windowMs, 1, now);
    }

    void update(long at) {
      busy.set(held > 0 && waiting == 0 ? 1 : 0, at);
    }
  }

  /** An item handed out over HTTP and not settled yet: whose it is, on which lease, until when. */
  private record Held(Key key, String leaseId, long expiresAt) {}

  private final long windowMs;
  private final Map<Key, Activity> activities = new HashMap<>();
  private final Map<String, Held> held = new HashMap<>();
  /** Held items by lease expiry, so that a lease running out ends the busy time when it ran out. */
  private final TreeMap<Long, List<String>> expiries = new TreeMap<>();

  public HttpConsumers(long windowMs) {
    this.windowMs = windowMs;
  }

  /**
   * A dequeue of {@code topics} started waiting.
   *
   * @return the keys seen for the first time (the caller registers their meters)
   */
  public synchronized List<Key> dequeueStarted(String namespace, Collection<String> topics, String group, long now) {
    expire(now);
    List<Key> fresh = new ArrayList<>();
    for (String topic : topics) {
      Key key = new Key(namespace, topic, group);
      Activity a = activities.get(key);
      if (a == null) {
        a = new Activity(windowMs, now);
        activities.put(key, a);
        fresh.add(key);
      }
      a.waiting++;
      a.update(now);
    }
    return fresh;
  }

  /**
   * The dequeue ended (answered, failed or timed out) with {@code items}: an empty one counts as an
   * empty dequeue; the items are held by the group until settled or their lease runs out.
   */
  public synchronized void dequeueEnded(String namespace, Collection<String> topics, String group,
      List<HandedOut> items, long now) {
    expire(now);
    for (String topic : topics) {
      Activity a = activities.get(new Key(namespace, topic, group));
      if (a != null) {
        a.waiting = Math.max(0, a.waiting - 1);
        if (items.isEmpty()) {
          a.emptyDequeues++;
        }
      }
    }
    for (HandedOut item : items) {
      Key key = topics.contains(item.topic()) ? new Key(namespace, item.topic(), group) : new Key(namespace, "*", group);
      Activity a = activities.get(key);
      if (a == null || item.leaseExpiresAt() <= now) {
        continue;
      }
      Held old = held.put(item.itemId(), new Held(key, item.leaseId(), item.leaseExpiresAt()));
      if (old != null) {
        drop(item.itemId(), old);
      }
      expiries.computeIfAbsent(item.leaseExpiresAt(), t -> new ArrayList<>()).add(item.itemId());
      a.held++;
    }
    for (String topic : topics) {
      Activity a = activities.get(new Key(namespace, topic, group));
      if (a != null) {
        a.update(now);
      }
    }
  }

  /** An item handed out by a dequeue: its ID, topic, lease and lease expiry (epoch ms). */
  public record HandedOut(String itemId, String topic, String leaseId, long leaseExpiresAt) {}

  /** The item was acked, nacked, released or cancelled on {@code leaseId} (null: any lease): no longer held. */
  public synchronized void settled(String itemId, String leaseId, long now) {
    expire(now);
    Held h = held.get(itemId);
    if (h == null || leaseId != null && !leaseId.equals(h.leaseId())) {
      return;
    }
    held.remove(itemId);
    removeExpiry(itemId, h.expiresAt());
    Activity a = activities.get(h.key());
    a.held--;
    a.update(now);
  }

  /** The item's lease was extended to {@code expiresAt}. */
  public synchronized void extended(String itemId, String leaseId, long expiresAt, long now) {
    expire(now);
    Held h = held.get(itemId);
    if (h == null || !h.leaseId().equals(leaseId)) {
      return;
    }
    removeExpiry(itemId, h.expiresAt());
    held.put(itemId, new Held(h.key(), leaseId, expiresAt));
    expiries.computeIfAbsent(expiresAt, t -> new ArrayList<>()).add(itemId);
  }

  /** Empty dequeues of the key so far. */
  public synchronized long emptyDequeues(Key key) {
    Activity a = activities.get(key);
    return a == null ? 0 : a.emptyDequeues;
  }

  /** The key's busy ratio over the window that ends at {@code now}. */
  public synchronized double busyRatio(Key key, long now) {
    expire(now);
    Activity a = activities.get(key);
    return a == null ? 0 : a.busy.ratio(now);
  }

  /** Items the key's group holds at {@code now}. */
  public synchronized int held(Key key, long now) {
    expire(now);
    Activity a = activities.get(key);
    return a == null ? 0 : a.held;
  }

  /** Leases that ran out by {@code now} end their items' busy time at their expiry, in expiry order. */
  private void expire(long now) {
    while (!expiries.isEmpty() && expiries.firstKey() <= now) {
      Map.Entry<Long, List<String>> first = expiries.pollFirstEntry();
      for (String itemId : first.getValue()) {
        Held h = held.remove(itemId);
        if (h != null) {
          Activity a = activities.get(h.key());
          a.held--;
          a.update(first.getKey());
        }
      }
    }
  }

  private void drop(String itemId, Held old) {
    removeExpiry(itemId, old.expiresAt());
    Activity a = activities.get(old.key());
    a.held--;
  }

  private void removeExpiry(String itemId, long at) {
    List<String> ids = expiries.get(at);
    if (ids != null) {
      ids.remove(itemId);
      if (ids.isEmpty()) {
        expiries.remove(at);
      }
    }
  }
}
