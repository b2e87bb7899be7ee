package dev.ordo.topology.internal;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Items arriving per second, per (namespace, topic) and per namespace, as exponentially decaying
 * averages over about {@link #TAU_MS}: each arrival adds {@code 1000 / TAU_MS} and the sum decays by
 * {@code e^(-Δt / TAU_MS)}, which estimates the recent rate without keeping the arrivals. Pure:
 * time is passed in. Entries that decayed to almost nothing are forgotten by {@link #prune}.
 */
final class ArrivalRates {
  static final double TAU_MS = 1_000;
  /** Below this rate (items/s) an entry is forgotten. */
  private static final double FORGET_BELOW = 0.01;

  private static final class Avg {
    double rate;
    long at;

    double at(long now) {
      return now <= at ? rate : rate * Math.exp(-(now - at) / TAU_MS);
    }

    void add(long now) {
      rate = at(now) + 1000.0 / TAU_MS;
      at = Math.max(at, now);
    }
  }

  private final Map<TopicRef, Avg> byTopic = new HashMap<>();
  private final Map<String, Avg> byNamespace = new HashMap<>();

  void arrived(String namespace, String topic, long now) {
    byTopic.computeIfAbsent(new TopicRef(namespace, topic), k -> new Avg()).add(now);
    byNamespace.computeIfAbsent(namespace, k -> new Avg()).add(now);
  }

  /** Items of the topic arriving a second, recently. */
  double perSecond(String namespace, String topic, long now) {
    Avg a = byTopic.get(new TopicRef(namespace, topic));
    return a == null ? 0 : a.at(now);
  }

  /** Items of the namespace arriving a second, recently. */
  double perSecond(String namespace, long now) {
    Avg a = byNamespace.get(namespace);
    return a == null ? 0 : a.at(now);
  }

  /** Forgets the averages that decayed below 0.01 items/s. */
  void prune(long now) {
    for (Iterator<Avg> it = byTopic.values().iterator(); it.hasNext(); ) {
      if (it.next().at(now) < FORGET_BELOW) {
        it.remove();
      }
    }
    for (Iterator<Avg> it = byNamespace.values().iterator(); it.hasNext(); ) {
      if (it.next().at(now) < FORGET_BELOW) {
        it.remove();
      }
    }
  }

  int size() {
    return byTopic.size() + byNamespace.size();
  }
}
