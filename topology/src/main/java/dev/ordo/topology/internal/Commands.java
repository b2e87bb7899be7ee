package dev.ordo.topology.internal;

import dev.ordo.api.NamespacePattern;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import dev.ordo.schema.ReEntry;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.topology.QueueMetrics;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides a command: refused with a reason, or applied and answered. A demand goes into the open demand
 * ({@link DemandBook}) and is served at once ({@link Dispatch}); a command on an item (ack, nack, extend,
 * release, cancel, a parked item's re-entry) changes it through {@link ItemChanges}, within the
 * namespaces the command may act on. It keeps no state: what one command collects is its plan's.
 */
final class Commands {
  private final int partition;
  private final int deliveriesPartitions;
  private final QueueDefaults defaults;
  private final DemandBook demands;
  private final Dispatch dispatch;
  private final ItemChanges changes;

  /** @param deliveriesPartitions the partitions of the deliveries topic, where a requester's answers go */
  Commands(int partition, int deliveriesPartitions, QueueDefaults defaults, DemandBook demands, Dispatch dispatch,
      ItemChanges changes) {
    this.partition = partition;
    this.deliveriesPartitions = deliveriesPartitions;
    this.defaults = defaults;
    this.demands = demands;
    this.dispatch = dispatch;
    this.changes = changes;
  }

  /** A command: refused with a reason, or applied and answered ({@link QueuePlanner#onCommand}). */
  Effects onCommand(Plan plan, Command command) {
    Requester requester = command.getRequester();
    plan.scope = command.getNamespaces();
    String unroutable = Validation.replyProblem(requester, deliveriesPartitions);
    if (unroutable != null) {
      plan.effects.refuse(unroutable, QueueMetrics.INVALID_COMMAND);
      plan.effects.count(QueueMetrics.UNROUTABLE_REPLY);
      return plan.effects;
    }
    try {
      command(plan, requester, command.getBody());
    } catch (InvalidInput e) {
      plan.effects.refuse(e.getMessage(), QueueMetrics.INVALID_COMMAND);
      Outcome refused = invalidOutcome(command.getBody(), e.getMessage());
      if (refused != null && requester != null) {
        plan.effects.answer(requester, refused, command.getUrgent());
      }
    }
    return plan.effects;
  }

  /** The INVALID outcome of a refused command, or null for commands nobody waits an answer to. */
  private static Outcome invalidOutcome(Object body, String why) {
    String itemId = "";
    CommandKind kind;
    if (body instanceof Ack a) {
      kind = CommandKind.ACK;
      itemId = a.getItemId();
    } else if (body instanceof Nack n) {
      kind = CommandKind.NACK;
      itemId = n.getItemId();
    } else if (body instanceof Extend x) {
      kind = CommandKind.EXTEND;
      itemId = x.getItemId();
    } else if (body instanceof Release r) {
      kind = CommandKind.RELEASE;
      itemId = r.getItemId();
    } else if (body instanceof Cancel c) {
      kind = CommandKind.CANCEL;
      itemId = c.getItemId();
    } else if (body instanceof Demand) {
      kind = CommandKind.DEMAND;
    } else {
      return null;
    }
    return outcome(itemId, kind, OutcomeResult.INVALID, why);
  }

  static Outcome outcome(String itemId, CommandKind kind, OutcomeResult result, String detail) {
    return new Outcome(itemId, kind, result, detail, null, null, null, null, null);
  }

  private void reply(Plan plan, Requester requester, Outcome outcome) {
    if (plan.collected != null) {
      plan.collected.add(outcome);
    } else if (requester != null) {
      plan.effects.answer(requester, outcome, plan.urgent);
    }
  }

  private void command(Plan plan, Requester requester, Object body) {
    if (body instanceof Demand demand) {
      onDemand(plan, requester, demand);
    } else if (body instanceof Ack ack) {
      onAck(plan, requester, ack);
    } else if (body instanceof Acks acks) {
      onAcks(plan, requester, acks);
    } else if (body instanceof Nack nack) {
      onNack(plan, requester, nack);
    } else if (body instanceof Extend extend) {
      onExtend(plan, requester, extend);
    } else if (body instanceof Release release) {
      onRelease(plan, requester, release);
    } else if (body instanceof ReEntry reEntry) {
      onReEntry(plan, reEntry);
    } else if (body instanceof Cancel cancel) {
      onCancel(plan, requester, cancel);
    } else {
      throw new InvalidInput("unknown command body " + body);
    }
  }

  private void onDemand(Plan plan, Requester requester, Demand demand) {
    Validation.demand(requester, demand);
    plan.effects.count(QueueMetrics.DEMANDS);
    if (demand.getOnce()) {
      onceDemand(plan, requester, demand);
      return;
    }
    DemandBook.Open open = demands.put(requester, demand.getNamespace(), demand.getTopics(),
        plan.now + demand.getValidForMs(), demand.getReplace(), plan.urgent, demand.getLimit(), demand.getReceived());
    if (!plan.view.rebuilding()) { // else served when the index is rebuilt
      dispatch.serve(plan, open);
      demands.afterServing(open);
    }
    if (demand.getAnswerShort() && !open.satisfied() && !dispatch.pending()) {
      // The requester counts on this partition's items: say at once that not all of them are here.
      // (Not while a dispatch step left demand pending: the rest may well be here, and comes.)
      plan.effects.answer(requester, dispatch.shortAnswer(), plan.urgent);
    }
  }

  /**
   * A once demand: served now and dropped. One the dispatch step cut short waits in the book for the
   * continuation ({@link Dispatch#continueDispatch}), for at most its validity; one not served in full is
   * answered with what it was granted ({@link Dispatch#answerOnce}).
   */
  private void onceDemand(Plan plan, Requester requester, Demand demand) {
    DemandBook.Open once = demands.once(requester, demand.getNamespace(), demand.getTopics(), plan.urgent);
    if (!plan.view.rebuilding()) { // else nothing now: the requester asks elsewhere or again
      boolean cut = dispatch.serveCut(plan, once);
      if (cut && !once.satisfied()) {
        demands.hold(once, plan.now + demand.getValidForMs());
        return;
      }
    }
    if (!once.satisfied()) {
      dispatch.answerOnce(plan, once);
    }
  }

  /** The item a lease command names, or null after answering UNKNOWN_ITEM / STALE_LEASE. */
  private StoredItem leased(Plan plan, Requester requester, CommandKind kind, long offset, String itemId, String leaseId) {
    StoredItem item = own(plan, requester, kind, offset, itemId);
    if (item == null) {
      return null;
    }
    if (!Lifecycle.holds(item, leaseId)) {
      plan.effects.count(QueueMetrics.STALE_LEASE);
      plan.effects.staleLease(item);
      reply(plan, requester, outcome(itemId, kind, OutcomeResult.STALE_LEASE,
          "lease " + leaseId + " is not the item's current lease (state " + item.getState() + ")"));
      return null;
    }
    return item;
  }

  /** The item at {@code offset}, or null after answering UNKNOWN_ITEM. */
  private StoredItem own(Plan plan, Requester requester, CommandKind kind, long offset, String itemId) {
    StoredItem item = plan.get(offset);
    if (item == null) {
      plan.effects.count(QueueMetrics.UNKNOWN_ITEM);
      reply(plan, requester,
          outcome(itemId, kind, OutcomeResult.UNKNOWN_ITEM, "no such item (acked, expired or never enqueued)"));
      return null;
    }
    String namespace = item.getItem().getNamespace();
    List<String> scope = plan.scope;
    if (scope != null && !NamespacePattern.anyMatches(scope, namespace)) {
      plan.effects.count(QueueMetrics.FORBIDDEN);
      Outcome forbidden = outcome(itemId, kind, OutcomeResult.INVALID,
          "the item is in namespace '" + namespace + "', which the command's namespaces " + scope + " do not cover");
      forbidden.setForbiddenNamespace(namespace);
      reply(plan, requester, forbidden);
      return null;
    }
    return item;
  }

  private void onAck(Plan plan, Requester requester, Ack ack) {
    long offset = Validation.itemOn(partition, ack.getItemId(), CommandKind.ACK);
    StoredItem item = leased(plan, requester, CommandKind.ACK, offset, ack.getItemId(), ack.getLeaseId());
    if (item == null) {
      return;
    }
    changes.change(plan, offset, item, null);
    plan.effects.count(QueueMetrics.ACKED);
    reply(plan, requester, outcome(ack.getItemId(), CommandKind.ACK, OutcomeResult.APPLIED, null));
  }

  /**
   * Several acks in one command: each is applied as a single ack would be, a refused one (an ID of
   * another partition, say) answered INVALID without stopping the others, and the requester gets
   * all outcomes in one delivery.
   */
  private void onAcks(Plan plan, Requester requester, Acks acks) {
    List<Outcome> outcomes = new ArrayList<>(acks.getAcks().size());
    plan.collected = outcomes;
    try {
      for (Ack ack : acks.getAcks()) {
        try {
          onAck(plan, requester, ack);
        } catch (InvalidInput e) {
          plan.effects.count(QueueMetrics.INVALID_COMMAND);
          outcomes.add(outcome(ack.getItemId(), CommandKind.ACK, OutcomeResult.INVALID, e.getMessage()));
        }
      }
    } finally {
      plan.collected = null;
    }
    if (requester != null) {
      plan.effects.answer(requester, new Outcomes(outcomes), plan.urgent);
    }
  }

  private void onNack(Plan plan, Requester requester, Nack nack) {
    Validation.nack(nack);
    long offset = Validation.itemOn(partition, nack.getItemId(), CommandKind.NACK);
    StoredItem item = leased(plan, requester, CommandKind.NACK, offset, nack.getItemId(), nack.getLeaseId());
    if (item == null) {
      return;
    }
    plan.effects.count(QueueMetrics.NACKED);
    Decision decision = Lifecycle.nack(item, nack.getDelayMs(), nack.getMetadata(), nack.getError(),
        nack.getDeadLetter(), plan.now, defaults.parkAfterMs());
    changes.apply(plan, offset, item, decision);
    Outcome applied = outcome(nack.getItemId(), CommandKind.NACK, OutcomeResult.APPLIED, null);
    if (decision instanceof Decision.DeadLetter d) {
      applied.setDetail("dead-lettered: " + d.reason());
      applied.setDeadLetterReason(d.reason());
    } else if (decision instanceof Decision.Drop drop) {
      applied.setDetail(drop.why());
    }
    reply(plan, requester, applied);
  }

  private void onExtend(Plan plan, Requester requester, Extend extend) {
    Validation.extend(extend);
    long offset = Validation.itemOn(partition, extend.getItemId(), CommandKind.EXTEND);
    StoredItem item = leased(plan, requester, CommandKind.EXTEND, offset, extend.getItemId(), extend.getLeaseId());
    if (item == null) {
      return;
    }
    StoredItem extended = Lifecycle.extend(item, extend.getLeaseDurationMs(), plan.now);
    changes.change(plan, offset, item, extended);
    plan.effects.count(QueueMetrics.EXTENDED);
    Outcome applied = outcome(extend.getItemId(), CommandKind.EXTEND, OutcomeResult.APPLIED, null);
    applied.setLeaseExpiresAt(extended.getLeaseExpiresAt());
    reply(plan, requester, applied);
  }

  private void onRelease(Plan plan, Requester requester, Release release) {
    long offset = Validation.itemOn(partition, release.getItemId(), CommandKind.RELEASE);
    StoredItem item = leased(plan, requester, CommandKind.RELEASE, offset, release.getItemId(), release.getLeaseId());
    if (item == null) {
      return;
    }
    if (release.getReturned() != null) {
      // Given back unseen by a client library: undone as if never granted, whatever the semantics.
      changes.apply(plan, offset, item, new Decision.Keep(Lifecycle.returned(item)));
      plan.effects.count(QueueMetrics.returned(release.getReturned()));
      reply(plan, requester, outcome(release.getItemId(), CommandKind.RELEASE, OutcomeResult.APPLIED, null));
      return;
    }
    Decision decision = Lifecycle.released(item, plan.now);
    changes.apply(plan, offset, item, decision);
    plan.effects.count(QueueMetrics.RELEASED);
    reply(plan, requester, outcome(release.getItemId(), CommandKind.RELEASE, OutcomeResult.APPLIED,
        decision instanceof Decision.Drop drop ? drop.why() : null));
  }

  private void onCancel(Plan plan, Requester requester, Cancel cancel) {
    long offset = Validation.itemOn(partition, cancel.getItemId(), CommandKind.CANCEL);
    StoredItem item = own(plan, requester, CommandKind.CANCEL, offset, cancel.getItemId());
    if (item == null) {
      return;
    }
    changes.change(plan, offset, item, null);
    plan.effects.count(QueueMetrics.CANCELLED);
    reply(plan, requester, outcome(cancel.getItemId(), CommandKind.CANCEL, OutcomeResult.APPLIED, null));
  }

  private void onReEntry(Plan plan, ReEntry reEntry) {
    long offset = Validation.itemOn(partition, reEntry.getItemId(), CommandKind.REENTRY);
    StoredItem item = plan.get(offset);
    if (item == null || item.getState() != ItemState.PARKED || item.getReadyAt() != reEntry.getDueAt()) {
      plan.effects.count(QueueMetrics.REENTRY_DROPPED); // cancelled, expired or already back: stale
      return;
    }
    changes.change(plan, offset, item, Lifecycle.reenter(item, reEntry.getDueAt(), plan.now));
    plan.effects.count(QueueMetrics.REENTERED);
  }
}
