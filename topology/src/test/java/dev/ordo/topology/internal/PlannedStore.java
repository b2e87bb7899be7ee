package dev.ordo.topology.internal;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A planner of partition 0 with the server's defaults (lease 30 s, 5 attempts, a 1-minute tier), a
 * store, and its effects applied to the store as the processor would: for unit tests of the planner.
 */
final class PlannedStore {
  final QueuePlanner planner = new QueuePlanner(new QueuePlanner.Settings(new QueueDefaults(30_000, 5, null,
      600_000), List.of(Duration.ofMinutes(1)), 10_000, 10_000, 0, false, 1), 0, new SplittableRandom(1));
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
