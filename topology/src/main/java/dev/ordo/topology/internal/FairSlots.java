package dev.ordo.topology.internal;

import dev.ordo.schema.Item;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.StoredItem;
import java.util.HashMap;

/**
 * Where an item becoming READY sorts among its topic's (docs/queue.md, "Fair queueing"): its
 * fair-queueing slot, and its layout, flat in the ready index or in its group's queue (decisions D48).
 * The slots of earlier items are the store's, and those given within one plan the plan's
 * ({@link Plan#groupSlots}): this keeps no state of its own.
 */
final class FairSlots {
  /** The slots between two items of a group of weight 1 (so weights down to 1e-6 keep a whole increment). */
  static final long SLOT_UNIT = 1_000_000;

  private final PolicyRules rules;
  private final RateGates gates;

  FairSlots(PolicyRules rules, RateGates gates) {
    this.rules = rules;
    this.gates = gates;
  }

  /**
   * Gives an item becoming READY its fair-queueing slot ({@link #slotFor}) and its layout: a group
   * without a concurrency limit in its namespace's policy puts its items in the ready index
   * itself ({@code flat}), a group with one in its own queue, so that the group at its limit is
   * passed over at one entry (decisions D48). The dispatch order is the same either way: both
   * sort by the ready key, fixed here.
   */
  void enterReady(Plan plan, StoredItem item) {
    item.setSlot(slotFor(plan, item));
    String group = item.getItem().getGroupKey();
    // An ordered group's items are in no group queue: the store keeps its head alone in the ready
    // index (decisions D60), so a limit passes it at one entry as it is.
    // A group with a rate is queued only while it has no token (so that over its rate it is passed at one
    // entry too); with a token it goes flat, and dispatch moves a flat item it meets over the rate.
    if (group == null) {
      item.setFlat(false);
    } else if (item.getOrdered()) {
      item.setFlat(true);
    } else {
      String namespace = item.getItem().getNamespace();
      NamespacePolicy policy = rules.policy(namespace);
      item.setFlat(rules.groupLimit(namespace, policy, group) == null
          && gates.rateOpen(namespace, policy, group, plan.now));
    }
  }

  /**
   * The fair-queueing slot of an item becoming READY (docs/queue.md, "Fair queueing"): start-time
   * fair queueing within its (namespace, topic, priority), {@code max(the group's last slot +
   * 1/weight, the virtual time)}, in units of {@link #SLOT_UNIT} per weight 1. Without a group
   * key an item is a group of its own: the virtual time. The virtual time is the largest slot
   * leased at the priority (kept by the store from the items' states, {@code FairShares}).
   */
  long slotFor(Plan plan, StoredItem item) {
    Item i = item.getItem();
    long virtualTime = plan.view.virtualTime(i.getNamespace(), i.getTopic(), i.getPriority());
    String group = i.getGroupKey();
    if (group == null) {
      return virtualTime;
    }
    if (plan.groupSlots == null) {
      plan.groupSlots = new HashMap<>();
    }
    Plan.GroupSlotKey key = new Plan.GroupSlotKey(i.getNamespace(), i.getTopic(), i.getPriority(), group);
    Long last = plan.groupSlots.get(key);
    if (last == null) {
      last = plan.view.groupLastSlot(i.getNamespace(), i.getTopic(), i.getPriority(), group);
    }
    long slot = last == null ? virtualTime : Math.max(last + slotIncrement(i.getNamespace(), i.getTopic(), group), virtualTime);
    plan.groupSlots.put(key, slot);
    return slot;
  }

  /**
   * Slots between two items of {@code group}: {@link #SLOT_UNIT} over its weight in the namespace's policy
   * (default 1); with shuffle sharding, over its weight divided by the shards its items of {@code topic}
   * spread over, so the group as a whole keeps its weight (decisions D62).
   */
  long slotIncrement(String namespace, String topic, String group) {
    NamespacePolicy policy = rules.policy(namespace);
    Double weight = policy == null || policy.getGroupWeights() == null ? null : policy.getGroupWeights().get(group);
    long increment = weight == null || !(weight > 0) ? SLOT_UNIT : Math.max(1, Math.round(SLOT_UNIT / weight));
    return rules.shards(policy) ? increment * rules.spread(policy, topic, group) : increment;
  }
}
