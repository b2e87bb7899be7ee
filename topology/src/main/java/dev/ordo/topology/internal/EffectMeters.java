package dev.ordo.topology.internal;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.TopicMeters;
import java.util.Map;

/** What a task's effects did, told to its per-topic meters ({@link TopicMeters}); stateless. */
final class EffectMeters {
  private EffectMeters() {}

  /**
   * The per-topic meters of what the effects did, read from the items' state changes: items taken
   * in, leases and their ages, ends of leases by how they ended (the attempt record a nack, an expiry
   * or a release appends), extends, and acks with the attempts they took (a leased item deleted by a
   * record whose effects counted acks: an ack or a batch of them).
   */
  static void measure(TopicMeters meters, Effects effects, long now) {
    boolean acks = effects.counts().containsKey(QueueMetrics.ACKED);
    boolean purged = effects.counts().containsKey(QueueMetrics.PURGED);
    for (StoredItem stale : effects.staleLeases()) {
      meters.staleLease(stale.getItem().getNamespace(), stale.getItem().getTopic());
    }
    for (Map.Entry<TopicRef, Long> w : effects.groupRateWaits().entrySet()) {
      meters.groupRateLimited(w.getKey().namespace(), w.getKey().topic(), w.getValue());
    }
    for (Effects.Change c : effects.changes()) {
      StoredItem before = c.before();
      StoredItem after = c.after();
      if (after == null) {
        if (before == null) {
          continue;
        }
        if (acks && before.getState() == ItemState.LEASED) {
          meters.acked(before.getItem().getNamespace(), before.getItem().getTopic(), before.getAttempts());
        } else if (!acks && !purged && before.getExpiresAt() != null && before.getExpiresAt() <= now) {
          meters.ttlExpired(before.getItem().getNamespace(), before.getItem().getTopic());
        }
        continue;
      }
      Item item = after.getItem();
      if (before == null) {
        meters.enqueued(item.getNamespace(), item.getTopic());
      }
      boolean leasedAfter = after.getState() == ItemState.LEASED;
      boolean leasedBefore = before != null && before.getState() == ItemState.LEASED;
      if (leasedAfter && !leasedBefore) {
        meters.leased(item.getNamespace(), item.getTopic(), after.getAttempts() == 1, now - after.getEnqueuedAt());
      } else if (leasedBefore && !leasedAfter && after.getHistory().size() > before.getHistory().size()) {
        meters.leaseEnded(item.getNamespace(), item.getTopic(),
            after.getHistory().get(after.getHistory().size() - 1).getOutcome());
      } else if (leasedBefore && leasedAfter && java.util.Objects.equals(before.getLeaseId(), after.getLeaseId())
          && !java.util.Objects.equals(before.getLeaseExpiresAt(), after.getLeaseExpiresAt())) {
        meters.extended(item.getNamespace(), item.getTopic());
      }
    }
  }
}
