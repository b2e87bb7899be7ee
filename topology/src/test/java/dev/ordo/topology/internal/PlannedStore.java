package dev.ordo.topology.internal;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueMetrics;
import java.util.ArrayList;
import java.util.List;

/** A planner's effects applied to a store as the processor would, for unit tests of the planner. */
final class PlannedStore {
  final PriorityStore store = QueuePlannerSimulationTest.newStore();
  final QueueMetrics metrics = new QueueMetrics();

  /** Applies {@code effects}: the store's changes and the counts; returns the items leased. */
  List<DeliveredItem> apply(Effects effects) {
    for (Effects.Change c : effects.changes()) {
      store.transition(c.offset(), c.before(), c.after());
    }
    store.markChanges();
    effects.counts().forEach(metrics::add);
    List<DeliveredItem> leased = new ArrayList<>();
    for (Effects.Leased l : effects.leased()) {
      leased.addAll(l.items());
    }
    return leased;
  }
}
