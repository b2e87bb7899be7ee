package dev.ordo.topology.internal;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Rate;
import dev.ordo.schema.StoredItem;
import dev.ordo.topology.QueueMetrics;
import java.util.ArrayList;
import java.util.List;

/**
 * Takes items in: a new item refused, dropped (its time to live already passed), kept in OVERFLOW (over
 * its namespace's admission rate or backlog limit), leased at once to an open demand, or stored READY,
 * DELAYED or PARKED; and OVERFLOW items admitted as their namespaces' limits allow. Owns the arrival
 * rates and the admission buckets ({@link ArrivalRates}, {@link Admission}), soft state.
 */
final class Intake {
  private final PolicyRules rules;
  private final FairSlots slots;
  private final ItemChanges changes;
  private final Dispatch dispatch;
  private final RateGates gates;
  private final DemandBook demands;
  private final PauseGate pauses;
  private final QueueDefaults defaults;
  private final int payloadLimit;
  private final int headersLimit;
  private final ArrivalRates arrivals = new ArrivalRates();
  private final Admission admission;

  /**
   * @param load what the other partitions report of each namespace (for shares of its admission limits)
   * @param payloadLimit the server's payload limit ({@code ordo.payload.max.bytes})
   * @param headersLimit the server's headers limit ({@code ordo.headers.max.bytes})
   */
  Intake(int partition, NamespaceLoad load, PolicyRules rules, FairSlots slots, ItemChanges changes, Dispatch dispatch,
      RateGates gates, DemandBook demands, PauseGate pauses, QueueDefaults defaults, int payloadLimit, int headersLimit) {
    this.rules = rules;
    this.slots = slots;
    this.changes = changes;
    this.dispatch = dispatch;
    this.gates = gates;
    this.demands = demands;
    this.pauses = pauses;
    this.defaults = defaults;
    this.payloadLimit = payloadLimit;
    this.headersLimit = headersLimit;
    this.admission = new Admission(partition, load, arrivals);
  }

  /** A new item read at {@code offset} of the items topic, appended at {@code appendedAt} ({@link QueuePlanner#onItem}). */
  Effects onItem(Plan plan, long offset, long appendedAt, Item item) {
    long now = plan.now;
    NamespaceRules ns;
    try {
      Validation.item(item, payloadLimit, headersLimit);
      ns = rules.of(item.getNamespace());
      Validation.payload(item, ns.payloadLimit());
    } catch (InvalidInput e) {
      plan.effects.refuse(e.getMessage(), QueueMetrics.MALFORMED);
      return plan.effects;
    }
    StoredItem stored = Lifecycle.admit(item, appendedAt, now, ns.defaults(), ns.semantics());
    if (item.getGroupKey() != null && rules.ordered(item.getNamespace(), item.getTopic())) {
      stored.setOrdered(true); // fixed for the item's life: the store orders its group by it (D60)
    }
    if (stored.getExpiresAt() != null && stored.getExpiresAt() <= now) {
      changes.expiredOnArrival(plan, offset, stored);
      return plan.effects;
    }
    plan.effects.count(QueueMetrics.ENQUEUED);
    arrivals.arrived(item.getNamespace(), item.getTopic(), now);
    if (ns.limitsAdmission() && !admission.admitArrival(item.getNamespace(), ns, plan.view, now)) {
      plan.effects.count(QueueMetrics.OVERFLOWED);
      changes.change(plan, offset, null, Lifecycle.overflow(stored));
      return plan.effects;
    }
    if (stored.getState() == ItemState.READY) {
      slots.enterReady(plan, stored);
      if (!plan.view.rebuilding() && leaseOnArrival(plan, offset, stored)) {
        return plan.effects;
      }
    }
    changes.change(plan, offset, null, stored);
    return plan.effects;
  }

  /**
   * An item that arrives READY while an open demand wants its topic is leased at once, without ever
   * being written as READY: after every record and timer run no open demand wants a topic that has
   * ready items (they would have been dispatched), so the new item is its topic's head, and the
   * demand first in the round-robin order that wants it gets it, as a dispatch would give it.
   * While a dispatch step left demand unserved ({@link Dispatch#pending}) that holds only when its
   * namespace has no READY item (the step took the last ones): with one, the item goes READY, behind
   * it, and the continuation serves both in order. Without that case, every item arriving while a
   * step was pending went through the ready index even with nothing before it (docs/benchmarks.md at 328b420,
   * "Dispatch steps that lease on arrival").
   */
  private boolean leaseOnArrival(Plan plan, long offset, StoredItem ready) {
    if (demands.isEmpty()) {
      return false;
    }
    if (dispatch.pending() && plan.view.namespaceCounts(ready.getItem().getNamespace()).ready() > 0) {
      return false; // ready items of its namespace may come before this one
    }
    String topic = ready.getItem().getTopic();
    List<DemandBook.Open> wanting = demands.wanting(ready.getItem().getNamespace(), topic);
    if (wanting.isEmpty()) {
      return false;
    }
    if (pauses.holds(ready.getItem().getNamespace(), topic)) {
      return false; // it waits READY for the resume
    }
    String group = ready.getItem().getGroupKey();
    if (ready.getOrdered()
        && !OrderedGroups.mayLease(offset, true, plan.view.orderedHead(ready.getItem().getNamespace(), topic, group))) {
      plan.effects.count(QueueMetrics.ORDER_WAITED);
      return false; // an older item of its ordered group is there: it waits behind it (D60)
    }
    Rate rate = null;
    if (group != null) {
      String held = gates.groupHeld(plan, ready.getItem().getNamespace(), group, topic);
      if (held != null) {
        return false; // it waits READY until the group has a lease free, or a token of its rate
      }
      rate = gates.heldRate();
    }
    if (gates.allowance(plan, ready.getItem().getNamespace(), 1) == 0) {
      gates.throttled(ready.getItem().getNamespace(), topic);
      return false; // it waits READY for the rate
    }
    DemandBook.Open open = wanting.get(0);
    String key = open.wanted(topic) > 0 ? topic : DemandBook.ANY_TOPIC;
    dispatch.lease(plan, offset, null, ready, open.requester(), open.urgent());
    if (rate != null) {
      gates.tokenTaken(ready.getItem().getNamespace(), group, rate, plan.now);
    }
    open.served(key, 1);
    demands.afterServing(open);
    return true;
  }

  /** Admits OVERFLOW items, oldest first per namespace, as many as the namespace's limits allow now (a timer run's). */
  void admitOverflow(Plan plan, int batch) {
    for (String namespace : new ArrayList<>(plan.view.overflowNamespaces())) {
      long n = admission.admittable(namespace, rules.of(namespace), plan.view, plan.now, batch);
      if (n <= 0) {
        continue;
      }
      for (long offset : plan.view.overflowHead(namespace, (int) n)) {
        StoredItem item = plan.get(offset);
        if (item == null || item.getState() != ItemState.OVERFLOW) {
          continue; // its time to live ran out in this timer run
        }
        changes.change(plan, offset, item, Lifecycle.admitted(item, plan.now, defaults.parkAfterMs()));
        plan.effects.count(QueueMetrics.ADMITTED);
      }
    }
  }

  /** Items of the topic arriving on this partition a second, recently. */
  double arrivalsPerSecond(String namespace, String topic, long now) {
    return arrivals.perSecond(namespace, topic, now);
  }

  /** Drops the arrival rates of topics that went quiet. */
  void prune(long now) {
    arrivals.prune(now);
  }
}
