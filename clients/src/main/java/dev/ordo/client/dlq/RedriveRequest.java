package dev.ordo.client.dlq;

import dev.ordo.api.Names;
import java.time.Duration;

/**
 * A redrive: which dead letters go back, where to, how fast. Without overrides an item goes back to
 * its own namespace and topic with its payload, metadata and priority; it gets a new ID, its
 * attempts start again, and its record carries the header {@value DeadLetters#REDRIVEN_FROM_HEADER}.
 *
 * @param namespace another namespace for the items, or null
 * @param topic another topic for the items, or null
 * @param priority another priority for the items, or null
 * @param ratePerSecond at most this many dead letters sent back a second; null: as fast as it goes
 * @param delay each item is delivered no sooner than this after it is sent back; null: at once
 */
public record RedriveRequest(DeadLetterSelection selection, String namespace, String topic, Integer priority,
    Double ratePerSecond, Duration delay) {
  public RedriveRequest {
    if (selection == null) {
      throw new IllegalArgumentException("selection is missing: ids, a filter, or all");
    }
    if (namespace != null) {
      Names.check("namespace", namespace);
    }
    if (topic != null) {
      Names.check("topic", topic);
      if (topic.equals("*")) {
        throw new IllegalArgumentException("topic '*' is reserved");
      }
    }
    if (ratePerSecond != null && !(ratePerSecond > 0 && ratePerSecond <= 1_000_000)) {
      throw new IllegalArgumentException("ratePerSecond must be a number > 0 and <= 1000000, got " + ratePerSecond);
    }
    if (delay != null && delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative, got " + delay);
    }
  }

  public static RedriveRequest of(DeadLetterSelection selection) {
    return new RedriveRequest(selection, null, null, null, null, null);
  }

  public RedriveRequest toNamespace(String ns) {
    return new RedriveRequest(selection, ns, topic, priority, ratePerSecond, delay);
  }

  public RedriveRequest toTopic(String t) {
    return new RedriveRequest(selection, namespace, t, priority, ratePerSecond, delay);
  }

  public RedriveRequest withPriority(int p) {
    return new RedriveRequest(selection, namespace, topic, p, ratePerSecond, delay);
  }

  public RedriveRequest atRate(double perSecond) {
    return new RedriveRequest(selection, namespace, topic, priority, perSecond, delay);
  }

  public RedriveRequest withDelay(Duration d) {
    return new RedriveRequest(selection, namespace, topic, priority, ratePerSecond, d);
  }
}
