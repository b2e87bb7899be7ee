package dev.ordo.client;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * An item a dequeue leased to its caller, as the queue handed it out. The caller owns the lease until
 * {@link #leaseExpiresAt}: it acks, nacks or releases the item with {@link #id} and {@link #leaseId}
 * (or extends the lease), or lets the lease run out.
 *
 * <p>The byte arrays are the item's own, not copies: do not change them.
 *
 * @param id the item's ID
 * @param leaseId this delivery's lease, which every command on the item names
 * @param priority lower first
 * @param attempt 1 on the first delivery
 * @param payload the item's bytes
 * @param metadata what the enqueue (or the latest nack) attached; null when none
 * @param enqueuedAt when the queue took the item in
 * @param leaseExpiresAt when the lease runs out unless extended
 * @param semantics what a lease that runs out does to the item
 * @param groupKey the item's group (items of a group are handed out one at a time); null when none
 * @param traceId the trace the enqueue named; null when none
 * @param headers the Kafka headers of the record that enqueued it, in order; {@link ItemHeaders#EMPTY} when none
 */
public record QueueItem(ItemId id, String leaseId, String namespace, String topic, int priority, int attempt,
    byte[] payload, byte[] metadata, Instant enqueuedAt, Instant leaseExpiresAt, Semantics semantics,
    String groupKey, String traceId, ItemHeaders headers) {

  public QueueItem {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(leaseId, "leaseId");
    Objects.requireNonNull(payload, "payload");
    headers = headers == null ? ItemHeaders.EMPTY : headers;
  }

  /** This item with its lease ending at {@code expiresAt} instead (after an extend the queue applied). */
  public QueueItem withLeaseExpiresAt(Instant expiresAt) {
    return new QueueItem(id, leaseId, namespace, topic, priority, attempt, payload, metadata, enqueuedAt, expiresAt,
        semantics, groupKey, traceId, headers);
  }

  /** Equal when every component is, the arrays by content. */
  @Override
  public boolean equals(Object o) {
    return o instanceof QueueItem q && id.equals(q.id) && leaseId.equals(q.leaseId)
        && Objects.equals(namespace, q.namespace) && Objects.equals(topic, q.topic) && priority == q.priority
        && attempt == q.attempt && Arrays.equals(payload, q.payload) && Arrays.equals(metadata, q.metadata)
        && Objects.equals(enqueuedAt, q.enqueuedAt) && Objects.equals(leaseExpiresAt, q.leaseExpiresAt)
        && semantics == q.semantics && Objects.equals(groupKey, q.groupKey) && Objects.equals(traceId, q.traceId)
        && headers.equals(q.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, leaseId, attempt, Arrays.hashCode(payload));
  }

  /** Names the item, its lease and attempt, and the payload's size (not its bytes). */
  @Override
  public String toString() {
    return "QueueItem{" + id + " lease " + leaseId + " " + namespace + "/" + topic + " priority " + priority
        + " attempt " + attempt + ", " + payload.length + " bytes}";
  }
}
