package dev.ordo.client.dlq;

import dev.ordo.api.ItemHeaders;
import java.time.Instant;
import java.util.List;

/**
 * One dead letter as an operator sees it. A dead queue item ({@link #itemId()} set) has its
 * namespace, topic, priority, payload and metadata as they were when it died; a dead record of a
 * stream consumer, a delay tier or a malformed input has its raw key and value and where it was read.
 *
 * @param id where it is on {@code <cluster>.dlq}
 * @param reason a {@code DeadLetterReason}: MAX_ATTEMPTS, REJECTED, TTL_EXPIRED, MALFORMED, INVALID
 * @param redrivenTo the new item's ID (or {@code <topic>-<partition>@<offset>} of a record sent back
 *     to its source topic) once redriven; null otherwise
 * @param headers a dead item's headers (the Kafka headers it was enqueued with), restored by a redrive;
 *     {@link ItemHeaders#EMPTY} for none or a dead record
 * @param job the redrive or purge job that handled it; null while dead
 */
public record DeadLetterInfo(
    DeadLetterId id,
    DeadLetterStatus status,
    String reason,
    String detail,
    String itemId,
    String namespace,
    String topic,
    Integer priority,
    byte[] payload,
    byte[] metadata,
    String groupKey,
    String traceId,
    ItemHeaders headers,
    int attempts,
    String lastError,
    List<Attempt> history,
    Source source,
    Instant deadAt,
    byte[] rawKey,
    byte[] rawValue,
    String redrivenTo,
    String job,
    Instant handledAt) {

  /** One delivery attempt of the item. */
  public record Attempt(int attempt, Instant leasedAt, Instant endedAt, String outcome, String error) {}

  /** Where the dead item or record was read from: {@code <cluster>.items} for an item. */
  public record Source(String topic, Integer partition, Long offset) {}

  /** Whether a redrive can send it back: a queue item, or a record with its raw value and source topic. */
  public boolean redrivable() {
    return itemId != null && payload != null || rawValue != null && source != null && source.topic() != null;
  }
}
