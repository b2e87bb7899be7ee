package dev.ordo.client;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * What of a namespace is paused (docs/queue.md, "Paused topics"): the whole namespace, and topics
 * paused on their own. While a topic is paused, or its namespace, its items are taken in, fall due
 * and expire as ever, but none is leased; leases already out run their course.
 *
 * @param namespace the namespace
 * @param pausedAt since when the whole namespace is paused; null: it is not
 * @param pausedTopics topics paused on their own, each with since when (sorted by topic)
 */
public record NamespacePause(String namespace, Instant pausedAt, Map<String, Instant> pausedTopics) {
  public NamespacePause {
    pausedTopics = pausedTopics == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(pausedTopics));
  }

  /** True when the whole namespace is paused. */
  public boolean namespacePaused() {
    return pausedAt != null;
  }

  /** True when items of {@code topic} are not leased: the topic is paused, or its namespace. */
  public boolean paused(String topic) {
    return pausedAt != null || pausedTopics.containsKey(topic);
  }

  /** True when nothing of the namespace is paused. */
  public boolean isEmpty() {
    return pausedAt == null && pausedTopics.isEmpty();
  }

  static NamespacePause fromRecord(String namespace, dev.ordo.schema.NamespacePolicy r) {
    if (r == null) {
      return new NamespacePause(namespace, null, Map.of());
    }
    Map<String, Instant> topics = new TreeMap<>();
    r.getPausedTopics().forEach((t, at) -> topics.put(t, Instant.ofEpochMilli(at)));
    return new NamespacePause(namespace, r.getPausedAt() == null ? null : Instant.ofEpochMilli(r.getPausedAt()), topics);
  }
}
