package dev.ordo.topology.internal;

import dev.ordo.delay.Route;
import dev.ordo.delay.TierRouter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.List;

/**
 * Records an item's change in a {@link Plan}, and what follows from its new state: a fair-queueing slot
 * and layout when it becomes READY ({@link FairSlots}), its topic offered to dispatch when it has a READY
 * item again, a tier for its re-entry when it is PARKED, and the demand waiting on its group's limit
 * offered again when its lease ends. Every decider changes items through here, so every way to a state
 * takes the same rule. It keeps no state.
 */
final class ItemChanges {
  private final PolicyRules rules;
  private final FairSlots slots;
  /**
   * Routes a parked item's first hop: the longest tier within its wait (no slack; it re-enters
   * DELAYED for what is left). Null without tiers: then nothing parks ({@code parkAfterMs} is never reached).
   */
  private final TierRouter router;
  private final List<Duration> tiers;
  private final boolean ttlDeadLetter;

  /**
   * @param tiers the delay tiers (empty: none)
   * @param ttlDeadLetter whether an item whose time to live passed is dead-lettered ({@code ordo.ttl.dead.letter})
   */
  ItemChanges(PolicyRules rules, FairSlots slots, List<Duration> tiers, boolean ttlDeadLetter) {
    this.rules = rules;
    this.slots = slots;
    this.router = tiers.isEmpty() ? null : new TierRouter(tiers, Duration.ZERO);
    this.tiers = tiers;
    this.ttlDeadLetter = ttlDeadLetter;
  }

  /**
   * Records a change of the item at {@code offset}, and what follows from its new state. An item
   * that becomes READY (but an arrival: {@link Intake#onItem} gives it its slot) gets its fair-queueing
   * slot and layout here ({@link FairSlots#enterReady}), so every way back to READY (a nack, an expiry, a
   * release, a due time, an admission from OVERFLOW) takes the same rule.
   */
  void change(Plan plan, long offset, StoredItem before, StoredItem after) {
    if (after != null && before != null && after.getState() == ItemState.READY && before.getState() != ItemState.READY) {
      slots.enterReady(plan, after); // a fresh object from Lifecycle, not the store's
    }
    if (before != null && before.getState() == ItemState.LEASED && (after == null || after.getState() != ItemState.LEASED)
        && before.getItem().getGroupKey() != null) {
      groupLeaseEnded(plan, before.getItem().getNamespace(), before.getItem().getGroupKey());
    }
    Effects effects = plan.effects;
    effects.change(offset, before, after);
    plan.put(offset, after);
    StoredItem any = after != null ? after : before;
    Item item = any.getItem();
    effects.topicChanged(item.getNamespace(), item.getTopic());
    if (after == null) {
      if (before != null && before.getOrdered()) {
        // Its group's next item may be its new head, READY: the topic goes to dispatch (D60).
        effects.topicReady(item.getNamespace(), item.getTopic());
      }
      return;
    }
    if (after.getState() == ItemState.READY) {
      effects.topicReady(item.getNamespace(), item.getTopic());
    } else if (after.getState() == ItemState.PARKED) {
      park(plan, offset, after);
    }
  }

  /** Applies a nack or lease-expiry decision. */
  void apply(Plan plan, long offset, StoredItem before, Decision decision) {
    if (decision instanceof Decision.Keep keep) {
      change(plan, offset, before, keep.item());
    } else if (decision instanceof Decision.Drop) {
      change(plan, offset, before, null);
      plan.effects.count(QueueMetrics.AT_MOST_ONCE_DROPPED);
    } else if (decision instanceof Decision.DeadLetter dl) {
      change(plan, offset, before, null);
      deadLetter(plan, offset, dl.item(), dl.reason(), dl.detail());
    }
  }

  void deadLetter(Plan plan, long offset, StoredItem item, DeadLetterReason reason, String detail) {
    plan.effects.count(QueueMetrics.DEAD_LETTERED);
    plan.effects.deadLetter(offset, item, reason, detail);
  }

  /** Deletes an item whose time to live has passed (or dead-letters it, with {@code ordo.ttl.dead.letter}). */
  void expire(Plan plan, long offset, StoredItem item) {
    change(plan, offset, item, null);
    plan.effects.count(QueueMetrics.TTL_EXPIRED);
    if (ttlDeadLetter) {
      deadLetter(plan, offset, item, DeadLetterReason.TTL_EXPIRED, "time to live passed in state " + item.getState());
    }
  }

  /** The time to live of an arriving item had passed: counted, and dead-lettered with {@code ordo.ttl.dead.letter}. */
  void expiredOnArrival(Plan plan, long offset, StoredItem item) {
    plan.effects.count(QueueMetrics.TTL_EXPIRED);
    if (ttlDeadLetter) {
      deadLetter(plan, offset, item, DeadLetterReason.TTL_EXPIRED, "time to live passed before enqueue");
    }
  }

  /**
   * Moves a flat READY item (flat since before its group got a limit) into its group's queue, so
   * that from now on the group is passed over at one entry and this item is passed at most once
   * (decisions D48). Its ready key stays, so nothing is newly ready and no count changes: the
   * change is recorded without the topic being offered again.
   */
  void intoGroupQueue(Plan plan, long offset, StoredItem flat) {
    StoredItem queued = Lifecycle.copy(flat).setFlat(false).build();
    plan.effects.change(offset, flat, queued);
    plan.put(offset, queued);
  }

  /**
   * A lease of a group ended (ack, nack, expiry, release, cancel, TTL): if the group has a limit,
   * demands waiting on the namespace's topics with ready items are served again (the group's items
   * may be in any of them), as after an arrival.
   */
  private void groupLeaseEnded(Plan plan, String namespace, String group) {
    if (rules.groupLimit(namespace, group) == null) {
      return;
    }
    for (TopicCounts t : plan.view.topics(namespace)) {
      if (t.ready() > 0) {
        plan.effects.topicReady(namespace, t.topic());
      }
    }
  }

  /** A PARKED item's re-entry goes into the longest tier not longer than its remaining wait. */
  private void park(Plan plan, long offset, StoredItem item) {
    Route route = router == null ? null : router.route(item.getReadyAt(), plan.now);
    if (!(route instanceof Route.Tier tier)) {
      throw new IllegalStateException("parked item " + offset + " with " + (item.getReadyAt() - plan.now)
          + " ms left fits no tier of " + tiers);
    }
    plan.effects.count(QueueMetrics.PARKED);
    plan.effects.park(offset, item.getReadyAt(), tier.delay());
  }
}
