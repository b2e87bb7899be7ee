package dev.ordo.topology.internal;

import dev.ordo.schema.Requester;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The open demand on one partition: soft state, so it lives in memory only. A demand lapses at
 * its expiry unless the requester refreshes it, so a consumer that died stops receiving items; a
 * task that moves loses its demand and the requesters, who refresh periodically, rebuild it.
 * Demands are served round-robin: a demand that was served moves to the back of the line.
 */
public final class DemandBook {
  /** The topic key meaning "any topic of the namespace". */
  public static final String ANY_TOPIC = "*";

  /** One requester's open demand in one namespace: topic → items still wanted. */
  public static final class Open {
    final Requester requester;
    final String namespace;
    final Map<String, Integer> remaining;
    long expiresAt;
    final boolean urgent;

    Open(Requester requester, String namespace, Map<String, Integer> remaining, long expiresAt, boolean urgent) {
      this.requester = requester;
      this.namespace = namespace;
      this.remaining = remaining;
      this.expiresAt = expiresAt;
      this.urgent = urgent;
    }

    /** The requester waits on this demand (a dequeue call), so what it is handed is committed at once. */
    public boolean urgent() {
      return urgent;
    }

    public Requester requester() {
      return requester;
    }

    public String namespace() {
      return namespace;
    }

    /** Topics with items still wanted (possibly {@link #ANY_TOPIC}). */
    public Map<String, Integer> remaining() {
      return remaining;
    }

    public int wanted(String topic) {
      return remaining.getOrDefault(topic, 0);
    }

    /** Records that {@code n} items of {@code topicKey} were handed out. */
    public void served(String topicKey, int n) {
      int left = remaining.getOrDefault(topicKey, 0) - n;
      if (left > 0) {
        remaining.put(topicKey, left);
      } else {
        remaining.remove(topicKey);
      }
    }

    public boolean satisfied() {
      return remaining.isEmpty();
    }
  }

  private final LinkedHashMap<String, Open> open = new LinkedHashMap<>();
  /** No open demand expires before this (a lower bound: a refreshed demand may have moved on). */
  private long earliestExpiry = Long.MAX_VALUE;

  /** Opens, refreshes or adds to a requester's demand. Counts of 0 or less are ignored. */
  public Open put(Requester requester, String namespace, Map<String, Integer> topics, long expiresAt, boolean replace) {
    return put(requester, namespace, topics, expiresAt, replace, false);
  }

  /** {@link #put(Requester, String, Map, long, boolean)}, {@code urgent} when the requester waits on it. */
  public Open put(Requester requester, String namespace, Map<String, Integer> topics, long expiresAt, boolean replace,
      boolean urgent) {
    String key = requester.getId() + "\u0000" + namespace;
    Open existing = open.remove(key);
    Map<String, Integer> remaining = new HashMap<>();
    if (existing != null && !replace) {
      remaining.putAll(existing.remaining);
    }
    topics.forEach((topic, n) -> {
      if (n != null && n > 0) {
        remaining.merge(topic, n, Integer::sum);
      }
    });
    Open demand = new Open(requester, namespace, remaining, expiresAt, urgent);
    if (!demand.satisfied()) {
      open.put(key, demand);
      earliestExpiry = Math.min(earliestExpiry, expiresAt);
    }
    return demand;
  }

  /** Open demands that want items of {@code topic} in {@code namespace}, in round-robin order. */
  public List<Open> wanting(String namespace, String topic) {
    List<Open> out = new ArrayList<>();
    for (Open d : open.values()) {
      if (d.namespace.equals(namespace) && (d.wanted(topic) > 0 || d.wanted(ANY_TOPIC) > 0)) {
        out.add(d);
      }
    }
    return out;
  }

  /** All open demands, in round-robin order. */
  public List<Open> all() {
    return new ArrayList<>(open.values());
  }

  /** After serving: drop a satisfied demand, else move it to the back of the line. */
  public void afterServing(Open demand) {
    String key = demand.requester.getId() + "\u0000" + demand.namespace;
    if (open.get(key) != demand) {
      return;
    }
    open.remove(key);
    if (!demand.satisfied()) {
      open.put(key, demand);
    }
  }

  /** Drops the demands whose expiry is at or before {@code now}; returns how many. */
  public int expire(long now) {
    int n = 0;
    long earliest = Long.MAX_VALUE;
    for (Iterator<Open> it = open.values().iterator(); it.hasNext(); ) {
      long expiresAt = it.next().expiresAt;
      if (expiresAt <= now) {
        it.remove();
        n++;
      } else {
        earliest = Math.min(earliest, expiresAt);
      }
    }
    earliestExpiry = earliest;
    return n;
  }

  /**
   * {@link #expire} when a demand may have lapsed by {@code now}, else nothing (one comparison): called
   * before demands are served, so that a lapsed demand is never served, whenever the task last ticked.
   */
  public int expireDue(long now) {
    return now >= earliestExpiry ? expire(now) : 0;
  }

  public boolean isEmpty() {
    return open.isEmpty();
  }

  public int size() {
    return open.size();
  }
}
