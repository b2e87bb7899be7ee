package dev.ordo.client.dlq;

import dev.ordo.api.Names;
import dev.ordo.schema.DeadLetterReason;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which dead letters a listing, redrive or purge selects; a null or empty part selects any.
 *
 * @param namespace the item's namespace (dead records of a stream consumer have none, so they never match one)
 * @param topic the item's topic, or for a dead record (no item) the Kafka topic it was read from
 * @param reasons any of these {@link DeadLetterReason} names
 * @param from dead at or after this (inclusive)
 * @param to dead before this (exclusive)
 */
public record DeadLetterFilter(String namespace, String topic, Set<String> reasons, Instant from, Instant to) {
  /** Selects every dead letter. */
  public static final DeadLetterFilter ANY = new DeadLetterFilter(null, null, Set.of(), null, null);

  public DeadLetterFilter {
    if (namespace != null) {
      Names.check("namespace", namespace);
    }
    if (topic != null) {
      Names.check("topic", topic);
    }
    reasons = reasons == null ? Set.of() : Set.copyOf(new TreeSet<>(reasons));
    for (String r : reasons) {
      if (Arrays.stream(DeadLetterReason.values()).noneMatch(v -> v.name().equals(r))) {
        throw new IllegalArgumentException("reason must be one of " + Arrays.toString(DeadLetterReason.values())
            + ", got '" + r + "'");
      }
    }
    if (from != null && to != null && !from.isBefore(to)) {
      throw new IllegalArgumentException("from must be before to, got from " + from + ", to " + to);
    }
  }

  /** Whether this filter selects everything. */
  public boolean isAny() {
    return namespace == null && topic == null && reasons.isEmpty() && from == null && to == null;
  }

  /**
   * Whether a dead letter with these properties is selected.
   *
   * @param itemNamespace null for a dead record
   * @param itemTopic the item's topic, or the dead record's source topic
   */
  public boolean matches(String itemNamespace, String itemTopic, String reason, long deadAtMs) {
    return (namespace == null || namespace.equals(itemNamespace))
        && (topic == null || topic.equals(itemTopic))
        && (reasons.isEmpty() || reasons.contains(reason))
        && (from == null || deadAtMs >= from.toEpochMilli())
        && (to == null || deadAtMs < to.toEpochMilli());
  }
}
