package dev.ordo.topology.internal;

import dev.ordo.schema.Outcome;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.QueueView;
import dev.ordo.store.ReadyEntry;
import dev.ordo.topology.internal.NamespaceRules.RateLimit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One plan's memory: the effects decided so far and the items they changed, which the plan reads
 * instead of the store's (still unchanged) copies, and what the deciders note while they plan. Made
 * once per item, command, timer run or dispatch ({@link QueuePlanner}) and dropped with it; it decides
 * nothing. The maps are made on first use.
 */
final class Plan {
  private static final StoredItem DELETED = new StoredItem();

  final QueueView view;
  final long now;
  /** The command asked for a quick answer ({@code Command.urgent}). */
  final boolean urgent;
  final Effects effects = new Effects();
  /** Items changed by this plan, by offset ({@link #DELETED} when deleted). */
  private final Map<Long, StoredItem> changed = new HashMap<>();
  /** Items of a (namespace, group key) leased by this plan: the store counts them once it is applied ({@link RateGates}). */
  Map<GroupRef, Integer> leasedPerGroup;
  /** Outcomes of an {@code Acks} command while it is planned, answered together; otherwise null ({@link Commands}). */
  List<Outcome> collected;
  /** The slots this plan gave, by (namespace, topic, priority, group): the store learns them when it is applied ({@link FairSlots}). */
  Map<GroupSlotKey, Long> groupSlots;
  /** Items this plan moved to the backlog lane, by (namespace, topic), as entries of that lane; or null ({@code Dispatch.sideline}). */
  Map<TopicRef, List<ReadyEntry>> sidelinedPerTopic;
  /** Leases left under the dispatch rate of namespaces that have one, by namespace, as of this plan ({@link RateGates}). */
  Map<String, Allowance> allowances;
  /** Leases this plan may still make ({@link QueuePlanner.Settings#dispatchStep}). */
  int stepLeft;
  /** The namespaces a command on an item may act on ({@code Command.namespaces}); null: any. */
  List<String> scope;

  /** A key of {@link #leasedPerGroup}: a group of a namespace. */
  record GroupRef(String namespace, String group) {}

  /** A key of {@link #groupSlots}: a record, not a {@code List.of} of four boxed parts. */
  record GroupSlotKey(String namespace, String topic, int priority, String group) {}

  /** A namespace's dispatch rate and share as one plan sees them, and the leases it has left. */
  static final class Allowance {
    private final RateLimit rate;
    private final double share;
    long left;

    Allowance(RateLimit rate, double share) {
      this.rate = rate;
      this.share = share;
    }

    RateLimit rate() {
      return rate;
    }

    double share() {
      return share;
    }
  }

  /** @param stepLeft the leases the plan may make ({@link Integer#MAX_VALUE}: no dispatch step) */
  Plan(QueueView view, long now, boolean urgent, int stepLeft) {
    this.view = view;
    this.now = now;
    this.urgent = urgent;
    this.stepLeft = stepLeft;
  }

  /** The item at {@code offset} as this plan has it: its own change, else the store's; null when there is none. */
  StoredItem get(long offset) {
    StoredItem mine = changed.get(offset);
    if (mine != null) {
      return mine == DELETED ? null : mine;
    }
    return view.get(offset);
  }

  /** Notes the item at {@code offset} as this plan changed it ({@code after} null: deleted). */
  void put(long offset, StoredItem after) {
    changed.put(offset, after == null ? DELETED : after);
  }
}
