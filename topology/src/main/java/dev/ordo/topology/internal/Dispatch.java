package dev.ordo.topology.internal;

import dev.ordo.api.ItemId;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Rate;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueMetrics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Serves open demand from the ready items: in priority order, within a priority by fair-queueing slot
 * ({@link FairSlots}), a multi-topic demand's topics by weight where its namespace sets some
 * ({@link TopicTurns}), past paused topics and closed gates ({@link PauseGate}, {@link RateGates}), at
 * most a dispatch step of leases a plan ({@link QueuePlanner.Settings#dispatchStep}). Owns whether a
 * step left demand unserved ({@link #pending}), the topics' turns and the source of lease IDs.
 */
final class Dispatch {
  /** Items one dispatch of a topic moves to its backlog lane at most (the rest at the next). */
  static final int SIDELINE_BATCH = 256;

  private final int partition;
  /** The source of lease IDs (seeded in simulations). */
  private final SplittableRandom random;
  private final DemandBook demands;
  private final PauseGate pauses;
  private final PolicyRules rules;
  private final RateGates gates;
  private final ItemChanges changes;
  /** The topics' turns of namespaces with topic weights (docs/queue.md, "Topic weights"): soft state. */
  private final TopicTurns topicTurns = new TopicTurns();
  /**
   * A plan stopped leasing at the dispatch step while an open demand still wanted items that were
   * ready: {@link #continueDispatch} goes on serving the open demands, and until then no arrival is
   * leased on arrival (it could pass ready items).
   */
  private boolean pending;

  Dispatch(int partition, SplittableRandom random, DemandBook demands, PauseGate pauses, PolicyRules rules,
      RateGates gates, ItemChanges changes) {
    this.partition = partition;
    this.random = random;
    this.demands = demands;
    this.pauses = pauses;
    this.rules = rules;
    this.gates = gates;
    this.changes = changes;
  }

  /** True while open demand was left unserved at the dispatch step with items ready for it. */
  boolean pending() {
    return pending;
  }

  /**
   * Serves every open demand that wants one of {@code readyTopics}, in the demands' round-robin order
   * ({@link QueuePlanner#dispatch}).
   */
  Effects dispatch(Plan plan, Collection<TopicRef> readyTopics) {
    if (readyTopics.isEmpty() || plan.view.rebuilding()) {
      return plan.effects;
    }
    List<TopicRef> touched = new ArrayList<>(readyTopics);
    readyTopics.clear();
    if (demands.isEmpty()) {
      return plan.effects;
    }
    for (TopicRef nsTopic : touched) {
      for (DemandBook.Open open : demands.wanting(nsTopic.namespace(), nsTopic.topic())) {
        if (rules.topicWeights(open) != null) {
          serve(plan, open); // its topics share by weight: all of them at once
        } else {
          serveTopic(plan, open, nsTopic.topic());
        }
        demands.afterServing(open);
      }
    }
    return plan.effects;
  }

  /** Goes on serving the open demands a dispatch step left unserved ({@link QueuePlanner#continueDispatch}). */
  Effects continueDispatch(Plan plan) {
    if (!pending || plan.view.rebuilding()) {
      return plan.effects;
    }
    pending = false;
    for (DemandBook.Open open : demands.all()) {
      if (plan.stepLeft == 0) {
        pending = true; // the demands after this one wait for the next step
        return plan.effects;
      }
      boolean cut = serveCut(plan, open);
      if (DemandBook.isOnce(open) && !cut) {
        demands.drop(open); // its continuation is over: served in full, or all there was
        if (!open.satisfied()) {
          answerOnce(plan, open);
        }
      } else {
        demands.afterServing(open);
      }
    }
    return plan.effects;
  }

  /** {@link #serve}s {@code open}, and says whether the dispatch step cut it short ({@link #pending} kept as well). */
  boolean serveCut(Plan plan, DemandBook.Open open) {
    boolean pendingBefore = pending;
    pending = false;
    serve(plan, open);
    boolean cut = pending;
    pending |= pendingBefore;
    return cut;
  }

  /** The answer that this partition does not hold all a demand wants (with a once demand's grant set by the caller). */
  Outcome shortAnswer() {
    Outcome shortAnswer = new Outcome("", CommandKind.DEMAND, OutcomeResult.APPLIED, null, null, null, null, null, null);
    shortAnswer.setPartition(partition);
    return shortAnswer;
  }

  /** Tells the requester of a once demand not served in full how many items it was granted. */
  void answerOnce(Plan plan, DemandBook.Open once) {
    Outcome shortAnswer = shortAnswer();
    shortAnswer.setGranted((int) once.granted());
    plan.effects.answer(once.requester(), shortAnswer, once.urgent());
  }

  /** Hands out what an open demand asks for, in priority order. */
  void serve(Plan plan, DemandBook.Open open) {
    Map<String, Double> weights = rules.topicWeights(open);
    if (weights != null) {
      serveShared(plan, open, weights);
      return;
    }
    for (String topic : new ArrayList<>(open.remaining().keySet())) {
      if (!DemandBook.ANY_TOPIC.equals(topic)) {
        serveTopic(plan, open, topic);
      }
    }
    int any = open.wanted(DemandBook.ANY_TOPIC);
    if (any <= 0) {
      return;
    }
    int allowed = gates.allowance(plan, open.namespace(), any);
    if (allowed < any) {
      for (TopicCounts t : plan.view.topics(open.namespace())) {
        if (t.ready() > 0) {
          gates.throttled(open.namespace(), t.topic());
        }
      }
    }
    any = allowed;
    List<String> topics = new ArrayList<>();
    for (TopicCounts t : plan.view.topics(open.namespace())) {
      if (t.ready() > 0 && !pauses.holds(open.namespace(), t.topic())) {
        sideline(plan, open.namespace(), t.topic());
        topics.add(t.topic());
      }
    }
    open.served(DemandBook.ANY_TOPIC, serveMerged(plan, open, topics, any, null));
  }

  /**
   * Serves a demand that spans several topics of a namespace with topic weights (docs/queue.md,
   * "Topic weights"): one merge over every ready topic it takes (its named topics, and all for
   * {@code *}), in priority order, the topics of one priority and lane taking turns by weight.
   * Each named topic's own count is drawn first, then the any-topic count.
   */
  private void serveShared(Plan plan, DemandBook.Open open, Map<String, Double> weights) {
    String namespace = open.namespace();
    Map<String, Integer> own = new HashMap<>();
    long total = 0;
    for (Map.Entry<String, Integer> e : open.remaining().entrySet()) {
      total += e.getValue();
      if (!DemandBook.ANY_TOPIC.equals(e.getKey())) {
        own.put(e.getKey(), e.getValue());
      }
    }
    int any = open.remaining().getOrDefault(DemandBook.ANY_TOPIC, 0);
    int n = (int) Math.min(total, open.allowed());
    List<String> topics = new ArrayList<>();
    for (TopicCounts t : plan.view.topics(namespace)) {
      if (t.ready() > 0 && (any > 0 || own.getOrDefault(t.topic(), 0) > 0) && !pauses.holds(namespace, t.topic())) {
        topics.add(t.topic());
      }
    }
    if (n <= 0 || topics.isEmpty()) {
      return;
    }
    int allowed = gates.allowance(plan, namespace, n);
    for (String topic : topics) {
      if (allowed < n) {
        gates.throttled(namespace, topic);
      }
      sideline(plan, namespace, topic);
    }
    TopicTurns.Share share = new TopicTurns.Share(topicTurns, namespace, weights, own, any);
    serveMerged(plan, open, topics, allowed, share);
    share.takenOwn().forEach(open::served);
    if (share.takenAny() > 0) {
      open.served(DemandBook.ANY_TOPIC, share.takenAny());
    }
  }

  /** Serves one topic of a demand: first its own count for the topic, then its any-topic count. */
  private void serveTopic(Plan plan, DemandBook.Open open, String topic) {
    if (pauses.holds(open.namespace(), topic)) {
      return; // served once it is resumed (Timers offers it)
    }
    for (String key : new String[] {topic, DemandBook.ANY_TOPIC}) {
      int wanted = open.wanted(key);
      if (wanted <= 0) {
        continue;
      }
      int allowed = gates.allowance(plan, open.namespace(), wanted);
      if (allowed < wanted) {
        gates.throttled(open.namespace(), topic);
        if (allowed == 0) {
          return;
        }
        wanted = allowed;
      }
      sideline(plan, open.namespace(), topic);
      open.served(key, serveMerged(plan, open, List.of(topic), wanted, null));
    }
  }

  /**
   * Leases up to {@code n} ready items of {@code topics} of the demand's namespace to it, in dequeue
   * order across the topics (under {@code share}, the topics taking turns by weight; null: none), and
   * returns how many. The ready index holds every item without a group, every flat item of a group
   * (decisions D48) and the first queued item of each group; a group's next queued item joins the
   * candidates when its previous one is taken, from the group's own queue, and a group at its
   * concurrency limit is passed over at that one entry, its queue not read (O(log n) per skip). A flat
   * item of a group at its limit (flat because the group had no limit when it became ready) is moved
   * into its group's queue when passed, so it is passed once. Candidates are checked against the plan's
   * own changes (an item leased or sidelined by this plan is not where the store still has it); items
   * this plan sidelined are candidates at their backlog-lane places.
   */
  private int serveMerged(Plan plan, DemandBook.Open open, List<String> topics, int n, TopicTurns.Share share) {
    if (n <= 0 || topics.isEmpty()) {
      return 0;
    }
    boolean cut = n > plan.stepLeft;
    if (cut) {
      n = plan.stepLeft;
      if (n == 0) {
        pending = true;
        return 0;
      }
    }
    ReadyMerge merge = new ReadyMerge(plan, open.namespace(), topics, n, share);
    int served = 0;
    ReadyMerge.Candidate c;
    while (served < n && (c = merge.next()) != null) {
      StoredItem item = plan.get(c.entry().offset());
      if (item == null) {
        continue;
      }
      String group = item.getItem().getGroupKey();
      boolean here = item.getState() == ItemState.READY && item.getSidelined() == c.entry().sidelined()
          && item.getSlot() == c.entry().slot() && item.getReadyAt() == c.entry().readyAt();
      Rate rate = null;
      if (group != null) {
        if (gates.groupHeld(plan, open.namespace(), group, c.topic()) != null) { // at its limit, or over its rate
          if (here && item.getFlat() && !item.getOrdered()) { // an ordered group is one entry already
            changes.intoGroupQueue(plan, c.entry().offset(), item);
          }
          continue; // the group's other queued items wait behind this one: not read
        }
        rate = gates.heldRate();
      }
      if (here && item.getOrdered()
          && !OrderedGroups.mayLease(c.entry().offset(), true, plan.view.orderedHead(open.namespace(), c.topic(), group))) {
        continue; // never: the store indexes an ordered group's head alone (D60); kept as a guard
      }
      if (here && item.getExpiresAt() != null && item.getExpiresAt() <= plan.now) {
        changes.expire(plan, c.entry().offset(), item); // its TTL timer has not run yet: never hand out an expired item
      } else if (here) {
        lease(plan, c.entry().offset(), item, item, open.requester(), open.urgent());
        if (rate != null) {
          gates.tokenTaken(open.namespace(), group, rate, plan.now);
        }
        served++;
        if (share != null) {
          share.leased(c.topic(), c.entry().priority());
        }
      }
      if (group != null && c.fromStore() && (c.source() == ReadyMerge.GROUP || !item.getFlat())) {
        merge.continueGroup(c, group); // a queued item: its group's next queued one joins
      }
    }
    if (cut && served == n) {
      pending = true; // the step ran out, maybe before the ready items did
    }
    return served;
  }

  /** Leases a READY item ({@code before}: what the store holds for it, null when it is arriving). */
  void lease(Plan plan, long offset, StoredItem before, StoredItem item, Requester requester, boolean urgentDemand) {
    String leaseId = "a" + (item.getAttempts() + 1) + "-" + Long.toHexString(random.nextLong());
    StoredItem leased = Lifecycle.lease(item, leaseId, requester, plan.now);
    changes.change(plan, offset, before, leased);
    plan.stepLeft--;
    Item i = leased.getItem();
    gates.leased(plan, i);
    plan.effects.count(QueueMetrics.DISPATCHED);
    plan.effects.lease(requester, DeliveredItem.newBuilder()
        .setItemId(new ItemId(partition, offset).toString())
        .setLeaseId(leaseId)
        .setNamespace(i.getNamespace())
        .setTopic(i.getTopic())
        .setPriority(i.getPriority())
        .setAttempt(leased.getAttempts())
        .setPayload(i.getPayload())
        .setMetadata(i.getMetadata())
        .setEnqueuedAt(leased.getEnqueuedAt())
        .setLeaseExpiresAt(leased.getLeaseExpiresAt())
        .setSemantics(leased.getSemantics())
        .setGroupKey(i.getGroupKey())
        .setTraceId(i.getTraceId())
        .setHeaders(i.getHeaders()) // the stored list itself (null when none): nothing copied
        .build(), urgentDemand);
  }

  /**
   * Moves the topic's fresh-lane items that have been ready longer than the namespace's
   * {@code sidelineAfterMs} to its backlog lane (at most {@link #SIDELINE_BATCH}), before the topic
   * is served: read from the age index's fresh-lane head, so O(log n + k). The store still holds
   * them in the fresh lane until the plan is applied; {@link ReadyMerge} takes them as candidates at
   * their backlog-lane places.
   */
  private void sideline(Plan plan, String namespace, String topic) {
    NamespacePolicy policy = rules.policy(namespace);
    if (policy == null || policy.getSidelineAfterMs() == null) {
      return;
    }
    int moved = 0;
    for (long offset : plan.view.readyBefore(namespace, topic, plan.now - policy.getSidelineAfterMs(), SIDELINE_BATCH)) {
      StoredItem item = plan.get(offset);
      if (item == null || item.getState() != ItemState.READY || item.getSidelined()) {
        continue; // leased or moved by this plan already
      }
      changes.change(plan, offset, item, Lifecycle.sideline(item));
      if (item.getOrdered()
          && !Long.valueOf(offset).equals(plan.view.orderedHead(namespace, topic, item.getItem().getGroupKey()))) {
        moved++;
        continue; // behind its ordered group's head: moved, but no candidate (D60)
      }
      if (plan.sidelinedPerTopic == null) {
        plan.sidelinedPerTopic = new HashMap<>();
      }
      plan.sidelinedPerTopic.computeIfAbsent(new TopicRef(namespace, topic), k -> new ArrayList<>())
          .add(new ReadyEntry(item.getItem().getPriority(), true, item.getSlot(), item.getReadyAt(), offset));
      moved++;
    }
    if (moved > 0) {
      plan.effects.count(QueueMetrics.SIDELINED, moved);
    }
  }
}
