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
 *
 * <p>A demand with a limit (flow control, as AMQP's link credit: {@code Demand.limit}) counts what
 * the partition granted its requester, and is served only below the limit. The count outlives the
 * demand being served in full: it is kept, idle, until the demand's expiry, so that the requester's
 * next demand (a refresh, a freed slot) counts the items still in transit to it. A once demand
 * ({@code Demand.once}) is never kept: {@link #once} makes one for a single serving.
 */
public final class DemandBook {
  /** The topic key meaning "any topic of the namespace". */
  public static final String ANY_TOPIC = "*";

  /** One requester's open demand in one namespace: topic → items still wanted. */
  public static class Open {
    final Requester requester;
    final String namespace;
    final Map<String, Integer> remaining;
    long expiresAt;
    final boolean urgent;
    /** The most items this partition may grant the requester in all; -1: no limit. */
    final long limit;
    /** Items granted the requester: in all for a demand with a limit, since this demand otherwise. */
    long granted;

    Open(Requester requester, String namespace, Map<String, Integer> remaining, long expiresAt, boolean urgent) {
      this(requester, namespace, remaining, expiresAt, urgent, -1, 0);
    }

    Open(Requester requester, String namespace, Map<String, Integer> remaining, long expiresAt, boolean urgent,
        long limit, long granted) {
      this.requester = requester;
      this.namespace = namespace;
      this.remaining = remaining;
      this.expiresAt = expiresAt;
      this.urgent = urgent;
      this.limit = limit;
      this.granted = granted;
    }

    /** Items granted: in all under a limit, else since this demand was opened. */
    public long granted() {
      return granted;
    }

    /** How many more items the limit allows ({@link Integer#MAX_VALUE} without one). */
    int allowed() {
      return limit < 0 ? Integer.MAX_VALUE : (int) Math.max(0, Math.min(Integer.MAX_VALUE, limit - granted));
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

    /** Items of {@code topic} (or of any topic, for {@link #ANY_TOPIC}) it still takes, within its limit. */
    public int wanted(String topic) {
      return Math.min(remaining.getOrDefault(topic, 0), allowed());
    }

    /** Records that {@code n} items of {@code topicKey} were handed out. */
    public void served(String topicKey, int n) {
      granted += n;
      int left = remaining.getOrDefault(topicKey, 0) - n;
      if (left > 0) {
        remaining.put(topicKey, left);
      } else {
        remaining.remove(topicKey);
      }
    }

    public boolean satisfied() {
      return remaining.isEmpty() || allowed() == 0;
    }
  }

  private final LinkedHashMap<String, Open> open = new LinkedHashMap<>();
  /** Demands with a limit that were served to it or in full: kept for their count until they expire. */
  private final Map<String, Open> idle = new HashMap<>();
  /** No open demand expires before this (a lower bound: a refreshed demand may have moved on). */
  private long earliestExpiry = Long.MAX_VALUE;

  /** Opens, refreshes or adds to a requester's demand. Counts of 0 or less are ignored. */
  public Open put(Requester requester, String namespace, Map<String, Integer> topics, long expiresAt, boolean replace) {
    return put(requester, namespace, topics, expiresAt, replace, false);
  }

  /** {@link #put(Requester, String, Map, long, boolean)}, {@code urgent} when the requester waits on it. */
  public Open put(Requester requester, String namespace, Map<String, Integer> topics, long expiresAt, boolean replace,
      boolean urgent) {
    return put(requester, namespace, topics, expiresAt, replace, urgent, -1, 0);
  }

  /**
   * {@link #put(Requester, String, Map, long, boolean, boolean)} under flow control: with
   * {@code limit >= 0} the partition grants the requester at most {@code limit} items in all,
   * counting from what it granted it before (its open or idle demand's count) or, when it knows of
   * none, from {@code received}, the requester's own count; never below {@code received}.
   */
  public Open put(Requester requester, String namespace, Map<String, Integer> topics, long expiresAt, boolean replace,
      boolean urgent, long limit, long received) {
    String key = key(requester, namespace);
    Open existing = open.remove(key);
    if (existing == null) {
      existing = idle.remove(key);
    }
    Map<String, Integer> remaining = new HashMap<>();
    if (existing != null && !replace) {
      remaining.putAll(existing.remaining);
    }
    topics.forEach((topic, n) -> {
      if (n != null && n > 0) {
        remaining.merge(topic, n, Integer::sum);
      }
    });
    long granted = 0;
    if (limit >= 0) {
      granted = Math.max(received, existing != null && existing.limit >= 0 ? existing.granted : received);
    }
    Open demand = new Open(requester, namespace, remaining, expiresAt, urgent, limit, granted);
    keep(key, demand);
    return demand;
  }

  /**
   * A once demand ({@code Demand.once}): served by one record, then dropped, so it is not in the
   * book and leaves the requester's open demand alone. Under dispatch steps, {@link #hold} keeps
   * one that the step cut short until its continuation.
   */
  public Open once(Requester requester, String namespace, Map<String, Integer> topics, boolean urgent) {
    Map<String, Integer> remaining = new HashMap<>();
    topics.forEach((topic, n) -> {
      if (n != null && n > 0) {
        remaining.merge(topic, n, Integer::sum);
      }
    });
    return new Once(requester, namespace, remaining, urgent);
  }

  /** A once demand, which the book keys apart from its requester's open demand. */
  static final class Once extends Open {
    Once(Requester requester, String namespace, Map<String, Integer> remaining, boolean urgent) {
      super(requester, namespace, remaining, Long.MAX_VALUE, urgent);
    }
  }

  /** True for a once demand. */
  public static boolean isOnce(Open demand) {
    return demand instanceof Once;
  }

  /** Keeps a once demand a dispatch step cut short, for the continuation, until {@code expiresAt}. */
  public void hold(Open once, long expiresAt) {
    once.expiresAt = expiresAt;
    open.put(key(once), once);
    earliestExpiry = Math.min(earliestExpiry, expiresAt);
  }

  /** Drops a demand from the book (a once demand whose continuation ended). */
  public void drop(Open demand) {
    open.remove(key(demand), demand);
  }

  private static String key(Requester requester, String namespace) {
    return requester.getId() + "\u0000" + namespace;
  }

  private static String key(Open demand) {
    return key(demand.requester, demand.namespace) + (demand instanceof Once ? "\u0000once" : "");
  }

  /** An unsatisfied demand goes to the back of the line; a satisfied one with a limit waits idle. */
  private void keep(String key, Open demand) {
    if (!demand.satisfied()) {
      open.put(key, demand);
    } else if (demand.limit >= 0) {
      idle.put(key, demand);
    } else {
      return;
    }
    earliestExpiry = Math.min(earliestExpiry, demand.expiresAt);
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
    String key = key(demand);
    if (open.get(key) != demand) {
      return;
    }
    open.remove(key);
    if (demand instanceof Once) {
      if (!demand.satisfied()) {
        open.put(key, demand);
      }
      return;
    }
    keep(key, demand);
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
    for (Iterator<Open> it = idle.values().iterator(); it.hasNext(); ) {
      long expiresAt = it.next().expiresAt;
      if (expiresAt <= now) {
        it.remove();
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
