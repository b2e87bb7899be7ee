package dev.ordo.topology.internal;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.TimerEntry;
import dev.ordo.store.TimerKind;
import dev.ordo.topology.QueueMetrics;

/**
 * A timer run: due TTLs, delays and lease expiries fired, OVERFLOW items admitted ({@link Intake}), and
 * the topics whose demand waited at a gate or a pause offered to dispatch again once it opened (at most a
 * batch of each). Owns when the soft state of rates was last pruned (every {@link #PRUNE_EVERY_MS}).
 */
final class Timers {
  private static final long PRUNE_EVERY_MS = 10_000;

  private final Intake intake;
  private final RateGates gates;
  private final ItemChanges changes;
  private final DemandBook demands;
  private final PauseGate pauses;
  private final QueueDefaults defaults;
  private final int timerBatch;
  private final long redeliveryDelayMs;
  /** When the arrival rates were last pruned. */
  private long prunedAt = Long.MIN_VALUE;

  /**
   * @param timerBatch the timers of each kind, and the OVERFLOW items per namespace, one run takes at most
   * @param redeliveryDelayMs the delay before an expired lease's item is ready again
   */
  Timers(Intake intake, RateGates gates, ItemChanges changes, DemandBook demands, PauseGate pauses,
      QueueDefaults defaults, int timerBatch, long redeliveryDelayMs) {
    this.intake = intake;
    this.gates = gates;
    this.changes = changes;
    this.demands = demands;
    this.pauses = pauses;
    this.defaults = defaults;
    this.timerBatch = timerBatch;
    this.redeliveryDelayMs = redeliveryDelayMs;
  }

  /** Prunes the arrival rates and the group-rate buckets when the last prune is {@link #PRUNE_EVERY_MS} old. */
  void prune(long now) {
    // (prunedAt starts at Long.MIN_VALUE, where now - prunedAt overflows: the first timer run prunes.)
    if (prunedAt == Long.MIN_VALUE || now - prunedAt >= PRUNE_EVERY_MS) {
      intake.prune(now);
      gates.prune(now);
      prunedAt = now;
    }
  }

  /** The timer run's plan ({@link QueuePlanner#onTimers}), after {@link #prune} and the demand's expiry. */
  Effects run(Plan plan) {
    int batch = timerBatch;
    long now = plan.now;
    for (TimerEntry t : plan.view.dueTimers(TimerKind.TTL, now, batch)) {
      StoredItem item = plan.get(t.offset());
      if (item == null || item.getExpiresAt() == null || item.getExpiresAt() != t.dueAt()) {
        continue;
      }
      changes.expire(plan, t.offset(), item);
    }
    for (TimerEntry t : plan.view.dueTimers(TimerKind.DUE, now, batch)) {
      StoredItem item = plan.get(t.offset());
      if (item == null || item.getState() != ItemState.DELAYED || item.getReadyAt() != t.dueAt()) {
        continue;
      }
      changes.change(plan, t.offset(), item, Lifecycle.due(item));
    }
    for (TimerEntry t : plan.view.dueTimers(TimerKind.LEASE, now, batch)) {
      StoredItem item = plan.get(t.offset());
      if (item == null || item.getState() != ItemState.LEASED || item.getLeaseExpiresAt() != t.dueAt()) {
        continue;
      }
      plan.effects.count(QueueMetrics.LEASE_EXPIRED);
      if (item.getLeasedAt() != null && item.getLeaseExpiresAt() == item.getLeasedAt() + item.getLeaseDurationMs()) {
        plan.effects.count(QueueMetrics.LEASE_EXPIRED_UNEXTENDED);
      }
      changes.apply(plan, t.offset(), item, Lifecycle.leaseExpired(item, now, redeliveryDelayMs, defaults.parkAfterMs()));
    }
    if (!plan.view.rebuilding()) {
      intake.admitOverflow(plan, batch);
      gates.offerThrottled(plan);
      gates.offerRateWaits(plan);
      offerResumed(plan);
    }
    return plan.effects;
  }

  /** Topics whose demand waited for a pause to end go to dispatch again once they are resumed. */
  private void offerResumed(Plan plan) {
    for (TopicRef t : pauses.resumed(r -> !demands.wanting(r.namespace(), r.topic()).isEmpty())) {
      plan.effects.topicReady(t.namespace(), t.topic());
    }
  }
}
