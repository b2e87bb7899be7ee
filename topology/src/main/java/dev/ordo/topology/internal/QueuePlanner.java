package dev.ordo.topology.internal;

import dev.ordo.api.NamespacePattern;
import dev.ordo.api.ItemId;
import dev.ordo.delay.Route;
import dev.ordo.delay.TierRouter;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import dev.ordo.schema.ReEntry;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.QueueView;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.TimerEntry;
import dev.ordo.store.TimerKind;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.internal.NamespaceRules.RateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Decides what one partition's queue does with an item, a command, a timer run or newly ready
 * items: pure code over a {@link QueueView} of the store and the time passed in, returning
 * {@link Effects} for {@link QueueProcessor} to apply. It reads no clock and writes nothing but its
 * own soft state, the open demand ({@link DemandBook}).
 *
 * <p>Within one plan the store is not yet changed, so the plan keeps its own view of the items it
 * changed (an item acked twice in one batch is unknown the second time; an item leased is not in
 * the ready head for the next demand). A plan never reads the ready head after making items ready:
 * items made ready (a nack, a release, a due timer) are served by the {@link #dispatch} that follows
 * once the plan is applied.
 */
public final class QueuePlanner {
  /** The settings a planner decides with. */
  public record Settings(QueueDefaults defaults, List<Duration> tiers, int payloadLimit, int timerBatch,
      long redeliveryDelayMs, boolean ttlDeadLetter, int deliveriesPartitions, int headersLimit, int dispatchStep) {
    /** The settings with the default headers limit (8 KiB, {@code ordo.headers.max.bytes}) and no dispatch step. */
    public Settings(QueueDefaults defaults, List<Duration> tiers, int payloadLimit, int timerBatch,
        long redeliveryDelayMs, boolean ttlDeadLetter, int deliveriesPartitions) {
      this(defaults, tiers, payloadLimit, timerBatch, redeliveryDelayMs, ttlDeadLetter, deliveriesPartitions, 8 * 1024,
          0);
    }

    /** The same settings with {@code dispatchStep} (items one record or timer run leases at most; 0 for no bound). */
    public Settings withDispatchStep(int dispatchStep) {
      return new Settings(defaults, tiers, payloadLimit, timerBatch, redeliveryDelayMs, ttlDeadLetter,
          deliveriesPartitions, headersLimit, dispatchStep);
    }
  }

  private final Settings settings;
  private final QueueDefaults defaults;
  /**
   * Routes a parked item's first hop: the longest tier within its wait (no slack; it re-enters
   * DELAYED for what is left). Null without tiers: then nothing parks ({@code parkAfterMs} is never reached).
   */
  private final TierRouter router;
  private final int partition;
  private final SplittableRandom random;
  private final Policies policies;
  private final DemandBook demands = new DemandBook();
  private final ArrivalRates arrivals = new ArrivalRates();
  private final Admission admission;
  private final NamespaceLoad load;
  private final DispatchLimit dispatchLimit = new DispatchLimit();
  /** The topics' turns of namespaces with topic weights (docs/queue.md, "Topic weights"): soft state. */
  private final TopicTurns topicTurns = new TopicTurns();
  /** What the namespace policies say: rules, group limits and rates, ordered topics, topic weights. */
  private final PolicyRules policyRules;
  /**
   * (namespace, topic) pairs whose open demand waits for the namespace's dispatch rate: each timer run
   * offers them to dispatch again once a lease is allowed.
   */
  private final java.util.Set<TopicRef> throttled = new java.util.LinkedHashSet<>();
  /** Per-group rates (docs/queue.md, "Group rates"): a token bucket per group leasing under one, soft state. */
  private final GroupRates groupRates = new GroupRates();
  /**
   * (namespace, topic) pairs that had a group passed over at its rate while a demand waited, with the
   * earliest time one of those groups may lease again: each timer run offers them to dispatch then.
   */
  private final Map<TopicRef, Long> rateWaits = new java.util.LinkedHashMap<>();
  /** Paused topics and namespaces: nothing of them is leased; their held demand is offered again on resume. */
  private final PauseGate pauses;
  /**
   * A plan stopped leasing at the dispatch step ({@link Settings#dispatchStep}) while an open demand
   * still wanted items that were ready: {@link #continueDispatch} goes on serving the open demands,
   * and until then no arrival is leased on arrival (it could pass ready items).
   */
  private boolean dispatchPending;
  /** When the arrival rates were last pruned. */
  private long prunedAt = Long.MIN_VALUE;
  private static final long PRUNE_EVERY_MS = 10_000;
  /** The slots between two items of a group of weight 1 (so weights down to 1e-6 keep a whole increment). */
  static final long SLOT_UNIT = 1_000_000;

  /** Items one dispatch of a topic moves to its backlog lane at most (the rest at the next). */
  static final int SIDELINE_BATCH = 256;

  /** A planner without namespace policies. */
  public QueuePlanner(Settings settings, int partition, SplittableRandom random) {
    this(settings, partition, random, Policies.NONE, NamespaceLoad.NONE);
  }

  /**
   * @param random the source of lease IDs (seeded in simulations)
   * @param policies the namespace policies in force (read, never written)
   * @param load what the other partitions report of each namespace (for shares of its limits)
   */
  public QueuePlanner(Settings settings, int partition, SplittableRandom random, Policies policies,
      NamespaceLoad load) {
    this.policies = policies;
    this.pauses = new PauseGate(policies);
    this.admission = new Admission(partition, load, arrivals);
    this.load = load;
    this.settings = settings;
    this.defaults = settings.defaults();
    this.router = settings.tiers().isEmpty() ? null : new TierRouter(settings.tiers(), Duration.ZERO);
    this.partition = partition;
    this.random = random;
    this.policyRules = new PolicyRules(policies, defaults, settings.payloadLimit(),
        new GroupShards(partition, settings.deliveriesPartitions()));
  }

  public int partition() {
    return partition;
  }

  /** The open demand (soft state). */
  DemandBook demands() {
    return demands;
  }

  /** The defaults and limits of {@code namespace}: the server's, or its policy's where it sets them. */
  NamespaceRules rules(String namespace) {
    return policyRules.of(namespace);
  }

  /** The concurrency limit of a group key in its namespace's policy, or null for none. */
  Integer groupLimit(String namespace, String group) {
    return policyRules.groupLimit(namespace, group);
  }

  /** {@link PolicyRules#groupLimit(String, dev.ordo.schema.NamespacePolicy, String)}. */
  Integer groupLimit(String namespace, dev.ordo.schema.NamespacePolicy policy, String group) {
    return policyRules.groupLimit(namespace, policy, group);
  }

  /** The rate of a group key in its namespace's policy, or null for none; with shards, this partition's part. */
  dev.ordo.schema.Rate groupRate(String namespace, String group) {
    return policyRules.groupRate(namespace, group);
  }

  /** {@link PolicyRules#groupRate(String, dev.ordo.schema.NamespacePolicy, String)}. */
  dev.ordo.schema.Rate groupRate(String namespace, dev.ordo.schema.NamespacePolicy policy, String group) {
    return policyRules.groupRate(namespace, policy, group);
  }

  /** {@link PolicyRules#groupRate(dev.ordo.schema.NamespacePolicy, String)}. */
  static dev.ordo.schema.Rate groupRate(dev.ordo.schema.NamespacePolicy policy, String group) {
    return PolicyRules.groupRate(policy, group);
  }

  /**
   * Slots between two items of {@code group}: {@link #SLOT_UNIT} over its weight in the namespace's policy
   * (default 1); with shuffle sharding, over its weight divided by the shards its items of {@code topic}
   * spread over, so the group as a whole keeps its weight (decisions D62).
   */
  long slotIncrement(String namespace, String topic, String group) {
    dev.ordo.schema.NamespacePolicy policy = policies.policy(namespace);
    Double weight = policy == null || policy.getGroupWeights() == null ? null : policy.getGroupWeights().get(group);
    long increment = weight == null || !(weight > 0) ? SLOT_UNIT : Math.max(1, Math.round(SLOT_UNIT / weight));
    return policyRules.shards(policy) ? increment * policyRules.spread(policy, topic, group) : increment;
  }

  /** Items of the topic arriving on this partition a second, recently (published with its stats). */
  public double arrivalsPerSecond(String namespace, String topic, long now) {
    return arrivals.perSecond(namespace, topic, now);
  }

  /** Drops lapsed demand; for timer runs that cannot dispatch (the index is being rebuilt). */
  public void expireDemands(long now) {
    demands.expire(now);
  }

  // ---- items ----

  /**
   * A new item read at {@code offset} of the items topic, appended at {@code appendedAt}: refused,
   * dropped (its time to live already passed), kept in OVERFLOW (over its namespace's admission
   * rate or backlog limit), leased at once to an open demand, or stored READY, DELAYED or PARKED.
   */
  public Effects onItem(long offset, long appendedAt, Item item, QueueView view, long now) {
    demands.expireDue(now); // a quiet task ticks rarely: a lapsed demand must not be served meanwhile
    Plan plan = new Plan(view, now, false);
    NamespaceRules ns;
    try {
      Validation.item(item, settings.payloadLimit(), settings.headersLimit());
      ns = rules(item.getNamespace());
      Validation.payload(item, ns.payloadLimit());
    } catch (InvalidInput e) {
      plan.effects.refuse(e.getMessage(), QueueMetrics.MALFORMED);
      return plan.effects;
    }
    StoredItem stored = Lifecycle.admit(item, appendedAt, now, ns.defaults(), ns.semantics());
    if (item.getGroupKey() != null && policyRules.ordered(item.getNamespace(), item.getTopic())) {
      stored.setOrdered(true); // fixed for the item's life: the store orders its group by it (D60)
    }
    if (stored.getExpiresAt() != null && stored.getExpiresAt() <= now) {
      plan.effects.count(QueueMetrics.TTL_EXPIRED);
      if (settings.ttlDeadLetter()) {
        plan.deadLetter(offset, stored, DeadLetterReason.TTL_EXPIRED, "time to live passed before enqueue");
      }
      return plan.effects;
    }
    plan.effects.count(QueueMetrics.ENQUEUED);
    arrivals.arrived(item.getNamespace(), item.getTopic(), now);
    if (ns.limitsAdmission() && !admission.admitArrival(item.getNamespace(), ns, view, now)) {
      plan.effects.count(QueueMetrics.OVERFLOWED);
      plan.change(offset, null, Lifecycle.overflow(stored));
      return plan.effects;
    }
    if (stored.getState() == ItemState.READY) {
      plan.enterReady(stored);
      if (!view.rebuilding() && plan.leaseOnArrival(offset, stored)) {
        return plan.effects;
      }
    }
    plan.change(offset, null, stored);
    return plan.effects;
  }

  // ---- commands ----

  /** A command: refused with a reason, or applied and answered. */
  public Effects onCommand(Command command, QueueView view, long now) {
    demands.expireDue(now); // a quiet task ticks rarely: a lapsed demand must not be served meanwhile
    Requester requester = command.getRequester();
    Plan plan = new Plan(view, now, command.getUrgent());
    plan.scope = command.getNamespaces();
    String unroutable = Validation.replyProblem(requester, settings.deliveriesPartitions());
    if (unroutable != null) {
      plan.effects.refuse(unroutable, QueueMetrics.INVALID_COMMAND);
      plan.effects.count(QueueMetrics.UNROUTABLE_REPLY);
      return plan.effects;
    }
    try {
      plan.command(requester, command.getBody());
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

  // ---- timers and dispatch ----

  /**
   * A timer run: lapsed demand dropped, due TTLs, delays and lease expiries fired, and OVERFLOW items
   * admitted as their namespaces' rates and backlog limits allow (at most a batch of each).
   */
  public Effects onTimers(QueueView view, long now) {
    // (prunedAt starts at Long.MIN_VALUE, where now - prunedAt overflows: the first timer run prunes.)
    if (prunedAt == Long.MIN_VALUE || now - prunedAt >= PRUNE_EVERY_MS) {
      arrivals.prune(now);
      if (groupRates.size() > 0) {
        groupRates.prune(now, this::groupRate);
      }
      prunedAt = now;
    }
    demands.expire(now);
    Plan plan = new Plan(view, now, false);
    int batch = settings.timerBatch();
    for (TimerEntry t : view.dueTimers(TimerKind.TTL, now, batch)) {
      StoredItem item = plan.get(t.offset());
      if (item == null || item.getExpiresAt() == null || item.getExpiresAt() != t.dueAt()) {
        continue;
      }
      plan.expire(t.offset(), item);
    }
    for (TimerEntry t : view.dueTimers(TimerKind.DUE, now, batch)) {
      StoredItem item = plan.get(t.offset());
      if (item == null || item.getState() != ItemState.DELAYED || item.getReadyAt() != t.dueAt()) {
        continue;
      }
      plan.change(t.offset(), item, Lifecycle.due(item));
    }
    for (TimerEntry t : view.dueTimers(TimerKind.LEASE, now, batch)) {
      StoredItem item = plan.get(t.offset());
      if (item == null || item.getState() != ItemState.LEASED || item.getLeaseExpiresAt() != t.dueAt()) {
        continue;
      }
      plan.effects.count(QueueMetrics.LEASE_EXPIRED);
      if (item.getLeasedAt() != null && item.getLeaseExpiresAt() == item.getLeasedAt() + item.getLeaseDurationMs()) {
        plan.effects.count(QueueMetrics.LEASE_EXPIRED_UNEXTENDED);
      }
      plan.apply(t.offset(), item, Lifecycle.leaseExpired(item, now, settings.redeliveryDelayMs(), defaults.parkAfterMs()));
    }
    if (!view.rebuilding()) {
      admitOverflow(plan, batch);
      offerThrottled(plan);
      offerRateWaits(plan);
      offerResumed(plan);
    }
    return plan.effects;
  }

  /**
   * True while open demand was left unserved at the dispatch step with items ready for it, until
   * {@link #continueDispatch} has served it.
   */
  public boolean dispatchPending() {
    return dispatchPending;
  }

  /**
   * Goes on serving the open demands a dispatch step left unserved: round-robin, one dispatch step
   * in all. Nothing when no dispatch is pending or the index is being rebuilt.
   */
  public Effects continueDispatch(QueueView view, long now) {
    demands.expireDue(now); // a lapsed demand must not be served
    Plan plan = new Plan(view, now, false);
    if (!dispatchPending || view.rebuilding()) {
      return plan.effects;
    }
    dispatchPending = false;
    for (DemandBook.Open open : demands.all()) {
      if (plan.stepLeft == 0) {
        dispatchPending = true; // the demands after this one wait for the next step
        return plan.effects;
      }
      boolean pendingBefore = dispatchPending;
      dispatchPending = false;
      plan.serve(open);
      boolean cut = dispatchPending;
      dispatchPending |= pendingBefore;
      if (DemandBook.isOnce(open) && !cut) {
        demands.drop(open); // its continuation is over: served in full, or all there was
        if (!open.satisfied()) {
          plan.answerOnce(open);
        }
      } else {
        demands.afterServing(open);
      }
    }
    return plan.effects;
  }

  /** True while demand waits for a namespace's dispatch rate or a group's rate: only the passing of time serves it. */
  public boolean throttling() {
    return !throttled.isEmpty() || !rateWaits.isEmpty();
  }

  /**
   * The partition's takeover (the processor's start): a group's rate bucket made from now on is empty as
   * of this time (docs/queue.md, "Group rates"). Without a call, the first time a plan sees.
   */
  public void started(long now) {
    groupRates.started(now);
  }

  /** Rate buckets held (bounded: {@link GroupRates#MAX_BUCKETS}). */
  int groupRateBuckets() {
    return groupRates.size();
  }

  /** (namespace, topic) pairs waiting for a group's rate to let a lease through. */
  int rateWaits() {
    return rateWaits.size();
  }

  /** Topics that had a group passed at its rate go to dispatch again once one of those groups may lease. */
  private void offerRateWaits(Plan plan) {
    for (var it = rateWaits.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      TopicRef nsTopic = e.getKey();
      if (demands.wanting(nsTopic.namespace(), nsTopic.topic()).isEmpty()) {
        it.remove(); // the demand lapsed or was served
      } else if (e.getValue() <= plan.now || !PolicyRules.hasGroupRates(policies.policy(nsTopic.namespace()))) {
        it.remove(); // a token is back, or the policy lifted its group rates
        plan.effects.topicReady(nsTopic.namespace(), nsTopic.topic());
      }
    }
  }

  /** Topics whose demand waited for a dispatch rate go to dispatch again once a lease is allowed. */
  private void offerThrottled(Plan plan) {
    for (var it = throttled.iterator(); it.hasNext(); ) {
      TopicRef nsTopic = it.next();
      if (demands.wanting(nsTopic.namespace(), nsTopic.topic()).isEmpty()) {
        it.remove(); // the demand lapsed or was served elsewhere
      } else if (plan.allowance(nsTopic.namespace(), 1) > 0) {
        it.remove();
        plan.effects.topicReady(nsTopic.namespace(), nsTopic.topic());
      }
    }
  }

  /** Topics whose demand waited for a pause to end go to dispatch again once they are resumed. */
  private void offerResumed(Plan plan) {
    for (TopicRef t : pauses.resumed(r -> !demands.wanting(r.namespace(), r.topic()).isEmpty())) {
      plan.effects.topicReady(t.namespace(), t.topic());
    }
  }

  /** Admits OVERFLOW items, oldest first per namespace, as many as the namespace's limits allow now. */
  private void admitOverflow(Plan plan, int batch) {
    for (String namespace : new ArrayList<>(plan.view.overflowNamespaces())) {
      long n = admission.admittable(namespace, rules(namespace), plan.view, plan.now, batch);
      if (n <= 0) {
        continue;
      }
      for (long offset : plan.view.overflowHead(namespace, (int) n)) {
        StoredItem item = plan.get(offset);
        if (item == null || item.getState() != ItemState.OVERFLOW) {
          continue; // its time to live ran out in this timer run
        }
        plan.change(offset, item, Lifecycle.admitted(item, plan.now, defaults.parkAfterMs()));
        plan.effects.count(QueueMetrics.ADMITTED);
      }
    }
  }

  /**
   * Serves every open demand that wants one of {@code readyTopics} ((namespace, topic) pairs that got
   * ready items), in the demands' round-robin order. Empties {@code readyTopics}, except while the
   * index is rebuilt: then nothing is served and the topics wait.
   */
  public Effects dispatch(Collection<TopicRef> readyTopics, QueueView view, long now) {
    demands.expireDue(now); // a quiet task ticks rarely: a lapsed demand must not be served meanwhile
    Plan plan = new Plan(view, now, false);
    if (readyTopics.isEmpty() || view.rebuilding()) {
      return plan.effects;
    }
    List<TopicRef> touched = new ArrayList<>(readyTopics);
    readyTopics.clear();
    if (demands.isEmpty()) {
      return plan.effects;
    }
    for (TopicRef nsTopic : touched) {
      for (DemandBook.Open open : demands.wanting(nsTopic.namespace(), nsTopic.topic())) {
        if (policyRules.topicWeights(open) != null) {
          plan.serve(open); // its topics share by weight: all of them at once
        } else {
          plan.serveTopic(open, nsTopic.topic());
        }
        demands.afterServing(open);
      }
    }
    return plan.effects;
  }

  static Outcome outcome(String itemId, CommandKind kind, OutcomeResult result, String detail) {
    return new Outcome(itemId, kind, result, detail, null, null, null, null, null);
  }

  /**
   * One plan: the effects decided so far and the items they changed, which the plan reads instead
   * of the store's (still unchanged) copies.
   */
  private final class Plan {
    private static final StoredItem DELETED = new StoredItem();

    final QueueView view;
    final long now;
    /** The command asked for a quick answer ({@code Command.urgent}). */
    final boolean urgent;
    final Effects effects = new Effects();
    /** Items changed by this plan, by offset ({@link #DELETED} when deleted). */
    private final Map<Long, StoredItem> changed = new HashMap<>();
    /** Items of a (namespace, group key) leased by this plan: the store counts them once it is applied. */
    private Map<GroupRef, Integer> leasedPerGroup;
    /** Outcomes of an {@link Acks} command while it is planned, answered together; otherwise null. */
    private List<Outcome> collected;
    /** The slots this plan gave, by (namespace, topic, priority, group): the store learns them when it is applied. */
    private Map<GroupSlotKey, Long> groupSlots;

    /** A key of {@link #leasedPerGroup}: a group of a namespace. */
    private record GroupRef(String namespace, String group) {}

    /** A key of {@link #groupSlots}: a record, not a {@code List.of} of four boxed parts. */
    private record GroupSlotKey(String namespace, String topic, int priority, String group) {}
    /** Items this plan moved to the backlog lane, by (namespace, topic), as entries of that lane; or null. */
    private Map<TopicRef, List<ReadyEntry>> sidelinedPerTopic;
    /** Leases left under the dispatch rate of namespaces that have one, by namespace, as of this plan. */
    private Map<String, Allowance> allowances;
    /** Leases this plan may still make ({@link Settings#dispatchStep}). */
    int stepLeft;
    /** The namespaces a command on an item may act on ({@code Command.namespaces}); null: any. */
    List<String> scope;

    Plan(QueueView view, long now, boolean urgent) {
      groupRates.started(now); // the first plan of a task, if the processor said nothing
      this.view = view;
      this.now = now;
      this.urgent = urgent;
      this.stepLeft = settings.dispatchStep() > 0 ? settings.dispatchStep() : Integer.MAX_VALUE;
    }

    StoredItem get(long offset) {
      StoredItem mine = changed.get(offset);
      if (mine != null) {
        return mine == DELETED ? null : mine;
      }
      return view.get(offset);
    }

    /**
     * Records a change of the item at {@code offset}, and what follows from its new state. An item
     * that becomes READY (but an arrival: {@link #onItem} gives it its slot) gets its fair-queueing
     * slot and layout here ({@link #enterReady}), so every way back to READY (a nack, an expiry, a
     * release, a due time, an admission from OVERFLOW) takes the same rule.
     */
    void change(long offset, StoredItem before, StoredItem after) {
      if (after != null && before != null && after.getState() == ItemState.READY && before.getState() != ItemState.READY) {
        enterReady(after); // a fresh object from Lifecycle, not the store's
      }
      if (before != null && before.getState() == ItemState.LEASED && (after == null || after.getState() != ItemState.LEASED)
          && before.getItem().getGroupKey() != null) {
        groupLeaseEnded(before.getItem().getNamespace(), before.getItem().getGroupKey());
      }
      effects.change(offset, before, after);
      changed.put(offset, after == null ? DELETED : after);
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
        park(offset, after);
      }
    }

    /** Applies a nack or lease-expiry decision. */
    void apply(long offset, StoredItem before, Decision decision) {
      if (decision instanceof Decision.Keep keep) {
        change(offset, before, keep.item());
      } else if (decision instanceof Decision.Drop) {
        change(offset, before, null);
        effects.count(QueueMetrics.AT_MOST_ONCE_DROPPED);
      } else if (decision instanceof Decision.DeadLetter dl) {
        change(offset, before, null);
        deadLetter(offset, dl.item(), dl.reason(), dl.detail());
      }
    }

    void deadLetter(long offset, StoredItem item, DeadLetterReason reason, String detail) {
      effects.count(QueueMetrics.DEAD_LETTERED);
      effects.deadLetter(offset, item, reason, detail);
    }

    /** A PARKED item's re-entry goes into the longest tier not longer than its remaining wait. */
    private void park(long offset, StoredItem item) {
      Route route = router == null ? null : router.route(item.getReadyAt(), now);
      if (!(route instanceof Route.Tier tier)) {
        throw new IllegalStateException("parked item " + offset + " with " + (item.getReadyAt() - now)
            + " ms left fits no tier of " + settings.tiers());
      }
      effects.count(QueueMetrics.PARKED);
      effects.park(offset, item.getReadyAt(), tier.delay());
    }

    void reply(Requester requester, Outcome outcome) {
      if (collected != null) {
        collected.add(outcome);
      } else if (requester != null) {
        effects.answer(requester, outcome, urgent);
      }
    }

    // ---- commands ----

    void command(Requester requester, Object body) {
      if (body instanceof Demand demand) {
        onDemand(requester, demand);
      } else if (body instanceof Ack ack) {
        onAck(requester, ack);
      } else if (body instanceof Acks acks) {
        onAcks(requester, acks);
      } else if (body instanceof Nack nack) {
        onNack(requester, nack);
      } else if (body instanceof Extend extend) {
        onExtend(requester, extend);
      } else if (body instanceof Release release) {
        onRelease(requester, release);
      } else if (body instanceof ReEntry reEntry) {
        onReEntry(reEntry);
      } else if (body instanceof Cancel cancel) {
        onCancel(requester, cancel);
      } else {
        throw new InvalidInput("unknown command body " + body);
      }
    }

    void onDemand(Requester requester, Demand demand) {
      Validation.demand(requester, demand);
      effects.count(QueueMetrics.DEMANDS);
      if (demand.getOnce()) {
        onceDemand(requester, demand);
        return;
      }
      DemandBook.Open open = demands.put(requester, demand.getNamespace(), demand.getTopics(),
          now + demand.getValidForMs(), demand.getReplace(), urgent, demand.getLimit(), demand.getReceived());
      if (!view.rebuilding()) { // else served when the index is rebuilt
        serve(open);
        demands.afterServing(open);
      }
      if (demand.getAnswerShort() && !open.satisfied() && !dispatchPending) {
        // The requester counts on this partition's items: say at once that not all of them are here.
        // (Not while a dispatch step left demand pending: the rest may well be here, and comes.)
        Outcome shortAnswer = outcome("", CommandKind.DEMAND, OutcomeResult.APPLIED, null);
        shortAnswer.setPartition(partition);
        effects.answer(requester, shortAnswer, urgent);
      }
    }

    /**
     * A once demand: served now and dropped. One the dispatch step cut short waits in the book for the
     * continuation ({@link #continueDispatch}), for at most its validity; one not served in full is
     * answered with what it was granted ({@link #answerOnce}).
     */
    void onceDemand(Requester requester, Demand demand) {
      DemandBook.Open once = demands.once(requester, demand.getNamespace(), demand.getTopics(), urgent);
      if (!view.rebuilding()) { // else nothing now: the requester asks elsewhere or again
        boolean pendingBefore = dispatchPending;
        dispatchPending = false;
        serve(once);
        boolean cut = dispatchPending;
        dispatchPending |= pendingBefore;
        if (cut && !once.satisfied()) {
          demands.hold(once, now + demand.getValidForMs());
          return;
        }
      }
      if (!once.satisfied()) {
        answerOnce(once);
      }
    }

    /** Tells the requester of a once demand not served in full how many items it was granted. */
    void answerOnce(DemandBook.Open once) {
      Outcome shortAnswer = outcome("", CommandKind.DEMAND, OutcomeResult.APPLIED, null);
      shortAnswer.setPartition(partition);
      shortAnswer.setGranted((int) once.granted());
      effects.answer(once.requester(), shortAnswer, once.urgent());
    }

    /** The item a lease command names, or null after answering UNKNOWN_ITEM / STALE_LEASE. */
    StoredItem leased(Requester requester, CommandKind kind, long offset, String itemId, String leaseId) {
      StoredItem item = own(requester, kind, offset, itemId);
      if (item == null) {
        return null;
      }
      if (!Lifecycle.holds(item, leaseId)) {
        effects.count(QueueMetrics.STALE_LEASE);
        effects.staleLease(item);
        reply(requester, outcome(itemId, kind, OutcomeResult.STALE_LEASE,
            "lease " + leaseId + " is not the item's current lease (state " + item.getState() + ")"));
        return null;
      }
      return item;
    }

    /** The item at {@code offset}, or null after answering UNKNOWN_ITEM. */
    StoredItem own(Requester requester, CommandKind kind, long offset, String itemId) {
      StoredItem item = get(offset);
      if (item == null) {
        effects.count(QueueMetrics.UNKNOWN_ITEM);
        reply(requester, outcome(itemId, kind, OutcomeResult.UNKNOWN_ITEM, "no such item (acked, expired or never enqueued)"));
        return null;
      }
      String namespace = item.getItem().getNamespace();
      if (scope != null && !NamespacePattern.anyMatches(scope, namespace)) {
        effects.count(QueueMetrics.FORBIDDEN);
        Outcome forbidden = outcome(itemId, kind, OutcomeResult.INVALID,
            "the item is in namespace '" + namespace + "', which the command's namespaces " + scope + " do not cover");
        forbidden.setForbiddenNamespace(namespace);
        reply(requester, forbidden);
        return null;
      }
      return item;
    }

    void onAck(Requester requester, Ack ack) {
      long offset = Validation.itemOn(partition, ack.getItemId(), CommandKind.ACK);
      StoredItem item = leased(requester, CommandKind.ACK, offset, ack.getItemId(), ack.getLeaseId());
      if (item == null) {
        return;
      }
      change(offset, item, null);
      effects.count(QueueMetrics.ACKED);
      reply(requester, outcome(ack.getItemId(), CommandKind.ACK, OutcomeResult.APPLIED, null));
    }

    /**
     * Several acks in one command: each is applied as a single ack would be, a refused one (an ID of
     * another partition, say) answered INVALID without stopping the others, and the requester gets
     * all outcomes in one delivery.
     */
    void onAcks(Requester requester, Acks acks) {
      List<Outcome> outcomes = new ArrayList<>(acks.getAcks().size());
      collected = outcomes;
      try {
        for (Ack ack : acks.getAcks()) {
          try {
            onAck(requester, ack);
          } catch (InvalidInput e) {
            effects.count(QueueMetrics.INVALID_COMMAND);
            outcomes.add(outcome(ack.getItemId(), CommandKind.ACK, OutcomeResult.INVALID, e.getMessage()));
          }
        }
      } finally {
        collected = null;
      }
      if (requester != null) {
        effects.answer(requester, new Outcomes(outcomes), urgent);
      }
    }

    void onNack(Requester requester, Nack nack) {
      Validation.nack(nack);
      long offset = Validation.itemOn(partition, nack.getItemId(), CommandKind.NACK);
      StoredItem item = leased(requester, CommandKind.NACK, offset, nack.getItemId(), nack.getLeaseId());
      if (item == null) {
        return;
      }
      effects.count(QueueMetrics.NACKED);
      Decision decision = Lifecycle.nack(item, nack.getDelayMs(), nack.getMetadata(), nack.getError(),
          nack.getDeadLetter(), now, defaults.parkAfterMs());
      apply(offset, item, decision);
      Outcome applied = outcome(nack.getItemId(), CommandKind.NACK, OutcomeResult.APPLIED, null);
      if (decision instanceof Decision.DeadLetter d) {
        applied.setDetail("dead-lettered: " + d.reason());
        applied.setDeadLetterReason(d.reason());
      } else if (decision instanceof Decision.Drop drop) {
        applied.setDetail(drop.why());
      }
      reply(requester, applied);
    }

    void onExtend(Requester requester, Extend extend) {
      Validation.extend(extend);
      long offset = Validation.itemOn(partition, extend.getItemId(), CommandKind.EXTEND);
      StoredItem item = leased(requester, CommandKind.EXTEND, offset, extend.getItemId(), extend.getLeaseId());
      if (item == null) {
        return;
      }
      StoredItem extended = Lifecycle.extend(item, extend.getLeaseDurationMs(), now);
      change(offset, item, extended);
      effects.count(QueueMetrics.EXTENDED);
      Outcome applied = outcome(extend.getItemId(), CommandKind.EXTEND, OutcomeResult.APPLIED, null);
      applied.setLeaseExpiresAt(extended.getLeaseExpiresAt());
      reply(requester, applied);
    }

    void onRelease(Requester requester, Release release) {
      long offset = Validation.itemOn(partition, release.getItemId(), CommandKind.RELEASE);
      StoredItem item = leased(requester, CommandKind.RELEASE, offset, release.getItemId(), release.getLeaseId());
      if (item == null) {
        return;
      }
      if (release.getReturned() != null) {
        // Given back unseen by a client library: undone as if never granted, whatever the semantics.
        apply(offset, item, new Decision.Keep(Lifecycle.returned(item)));
        effects.count(QueueMetrics.returned(release.getReturned()));
        reply(requester, outcome(release.getItemId(), CommandKind.RELEASE, OutcomeResult.APPLIED, null));
        return;
      }
      Decision decision = Lifecycle.released(item, now);
      apply(offset, item, decision);
      effects.count(QueueMetrics.RELEASED);
      reply(requester, outcome(release.getItemId(), CommandKind.RELEASE, OutcomeResult.APPLIED,
          decision instanceof Decision.Drop drop ? drop.why() : null));
    }

    void onCancel(Requester requester, Cancel cancel) {
      long offset = Validation.itemOn(partition, cancel.getItemId(), CommandKind.CANCEL);
      StoredItem item = own(requester, CommandKind.CANCEL, offset, cancel.getItemId());
      if (item == null) {
        return;
      }
      change(offset, item, null);
      effects.count(QueueMetrics.CANCELLED);
      reply(requester, outcome(cancel.getItemId(), CommandKind.CANCEL, OutcomeResult.APPLIED, null));
    }

    void onReEntry(ReEntry reEntry) {
      long offset = Validation.itemOn(partition, reEntry.getItemId(), CommandKind.REENTRY);
      StoredItem item = get(offset);
      if (item == null || item.getState() != ItemState.PARKED || item.getReadyAt() != reEntry.getDueAt()) {
        effects.count(QueueMetrics.REENTRY_DROPPED); // cancelled, expired or already back: stale
        return;
      }
      change(offset, item, Lifecycle.reenter(item, reEntry.getDueAt(), now));
      effects.count(QueueMetrics.REENTERED);
    }

    // ---- dispatch ----

    /**
     * An item that arrives READY while an open demand wants its topic is leased at once, without ever
     * being written as READY: after every record and timer run no open demand wants a topic that has
     * ready items (they would have been dispatched), so the new item is its topic's head, and the
     * demand first in the round-robin order that wants it gets it, as a dispatch would give it.
     * While a dispatch step left demand unserved ({@link #dispatchPending}) that holds only when its
     * namespace has no READY item (the step took the last ones): with one, the item goes READY, behind
     * it, and the continuation serves both in order. Without that case, every item arriving while a
     * step was pending went through the ready index even with nothing before it (docs/benchmarks.md,
     * "Dispatch steps that lease on arrival").
     */
    boolean leaseOnArrival(long offset, StoredItem ready) {
      if (demands.isEmpty()) {
        return false;
      }
      if (dispatchPending && view.namespaceCounts(ready.getItem().getNamespace()).ready() > 0) {
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
          && !OrderedGroups.mayLease(offset, true, view.orderedHead(ready.getItem().getNamespace(), topic, group))) {
        effects.count(QueueMetrics.ORDER_WAITED);
        return false; // an older item of its ordered group is there: it waits behind it (D60)
      }
      dev.ordo.schema.Rate rate = null;
      if (group != null) {
        String held = groupHeld(ready.getItem().getNamespace(), group, topic);
        if (held != null) {
          return false; // it waits READY until the group has a lease free, or a token of its rate
        }
        rate = heldRate;
      }
      if (allowance(ready.getItem().getNamespace(), 1) == 0) {
        throttled.add(new TopicRef(ready.getItem().getNamespace(), topic));
        return false; // it waits READY for the rate
      }
      DemandBook.Open open = wanting.get(0);
      String key = open.wanted(topic) > 0 ? topic : DemandBook.ANY_TOPIC;
      lease(offset, null, ready, open.requester(), open.urgent());
      if (rate != null) {
        groupRates.leased(ready.getItem().getNamespace(), group, rate, now);
      }
      open.served(key, 1);
      demands.afterServing(open);
      return true;
    }

    /** Hands out what an open demand asks for, in priority order. */
    void serve(DemandBook.Open open) {
      Map<String, Double> weights = policyRules.topicWeights(open);
      if (weights != null) {
        serveShared(open, weights);
        return;
      }
      for (String topic : new ArrayList<>(open.remaining().keySet())) {
        if (!DemandBook.ANY_TOPIC.equals(topic)) {
          serveTopic(open, topic);
        }
      }
      int any = open.wanted(DemandBook.ANY_TOPIC);
      if (any <= 0) {
        return;
      }
      int allowed = allowance(open.namespace(), any);
      if (allowed < any) {
        for (TopicCounts t : view.topics(open.namespace())) {
          if (t.ready() > 0) {
            throttled.add(new TopicRef(open.namespace(), t.topic()));
          }
        }
      }
      any = allowed;
      List<String> topics = new ArrayList<>();
      for (TopicCounts t : view.topics(open.namespace())) {
        if (t.ready() > 0 && !pauses.holds(open.namespace(), t.topic())) {
          sideline(open.namespace(), t.topic());
          topics.add(t.topic());
        }
      }
      open.served(DemandBook.ANY_TOPIC, serveMerged(open, topics, any));
    }

    /**
     * Serves a demand that spans several topics of a namespace with topic weights (docs/queue.md,
     * "Topic weights"): one merge over every ready topic it takes (its named topics, and all for
     * {@code *}), in priority order, the topics of one priority and lane taking turns by weight.
     * Each named topic's own count is drawn first, then the any-topic count.
     */
    void serveShared(DemandBook.Open open, Map<String, Double> weights) {
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
      for (TopicCounts t : view.topics(namespace)) {
        if (t.ready() > 0 && (any > 0 || own.getOrDefault(t.topic(), 0) > 0) && !pauses.holds(namespace, t.topic())) {
          topics.add(t.topic());
        }
      }
      if (n <= 0 || topics.isEmpty()) {
        return;
      }
      int allowed = allowance(namespace, n);
      for (String topic : topics) {
        if (allowed < n) {
          throttled.add(new TopicRef(namespace, topic));
        }
        sideline(namespace, topic);
      }
      TopicTurns.Share share = new TopicTurns.Share(topicTurns, namespace, weights, own, any);
      serveMerged(open, topics, allowed, share);
      share.takenOwn().forEach(open::served);
      if (share.takenAny() > 0) {
        open.served(DemandBook.ANY_TOPIC, share.takenAny());
      }
    }

    /** Serves one topic of a demand: first its own count for the topic, then its any-topic count. */
    void serveTopic(DemandBook.Open open, String topic) {
      if (pauses.holds(open.namespace(), topic)) {
        return; // served once it is resumed (offerResumed)
      }
      for (String key : new String[] {topic, DemandBook.ANY_TOPIC}) {
        int wanted = open.wanted(key);
        if (wanted <= 0) {
          continue;
        }
        int allowed = allowance(open.namespace(), wanted);
        if (allowed < wanted) {
          throttled.add(new TopicRef(open.namespace(), topic));
          if (allowed == 0) {
            return;
          }
          wanted = allowed;
        }
        sideline(open.namespace(), topic);
        open.served(key, serveMerged(open, List.of(topic), wanted));
      }
    }

    /**
     * Leases up to {@code n} ready items of {@code topics} of the demand's namespace to it, in dequeue
     * order across the topics, and returns how many. The ready index holds every item without a
     * group, every flat item of a group (decisions D48) and the first queued item of each group; a
     * group's next queued item joins the candidates when its previous one is taken, from the group's
     * own queue, and a group at its concurrency limit is passed over at that one entry, its queue not
     * read (O(log n) per skip). A flat item of a group at its limit (flat because the group had no
     * limit when it became ready) is moved into its group's queue when passed, so it is passed once.
     * Candidates are checked against the plan's own changes (an item leased or sidelined by this plan
     * is not where the store still has it); items this plan sidelined are candidates at their
     * backlog-lane places.
     */
    int serveMerged(DemandBook.Open open, List<String> topics, int n) {
      return serveMerged(open, topics, n, null);
    }

    /** {@link #serveMerged(DemandBook.Open, List, int)}, the topics taking turns by weight under {@code share} (null: none). */
    int serveMerged(DemandBook.Open open, List<String> topics, int n, TopicTurns.Share share) {
      if (n <= 0 || topics.isEmpty()) {
        return 0;
      }
      boolean cut = n > stepLeft;
      if (cut) {
        n = stepLeft;
        if (n == 0) {
          dispatchPending = true;
          return 0;
        }
      }
      ReadyMerge merge = new ReadyMerge(open.namespace(), topics, n, share);
      int served = 0;
      ReadyMerge.Candidate c;
      while (served < n && (c = merge.next()) != null) {
        StoredItem item = get(c.entry().offset());
        if (item == null) {
          continue;
        }
        String group = item.getItem().getGroupKey();
        boolean here = item.getState() == ItemState.READY && item.getSidelined() == c.entry().sidelined()
            && item.getSlot() == c.entry().slot() && item.getReadyAt() == c.entry().readyAt();
        dev.ordo.schema.Rate rate = null;
        if (group != null) {
          if (groupHeld(open.namespace(), group, c.topic()) != null) { // at its limit, or over its rate
            if (here && item.getFlat() && !item.getOrdered()) { // an ordered group is one entry already
              intoGroupQueue(c.entry().offset(), item);
            }
            continue; // the group's other queued items wait behind this one: not read
          }
          rate = heldRate;
        }
        if (here && item.getOrdered()
            && !OrderedGroups.mayLease(c.entry().offset(), true, view.orderedHead(open.namespace(), c.topic(), group))) {
          continue; // never: the store indexes an ordered group's head alone (D60); kept as a guard
        }
        if (here && item.getExpiresAt() != null && item.getExpiresAt() <= now) {
          expire(c.entry().offset(), item); // its TTL timer has not run yet: never hand out an expired item
        } else if (here) {
          lease(c.entry().offset(), item, item, open.requester(), open.urgent());
          if (rate != null) {
            groupRates.leased(open.namespace(), group, rate, now);
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
        dispatchPending = true; // the step ran out, maybe before the ready items did
      }
      return served;
    }

    /**
     * Moves a flat READY item (flat since before its group got a limit) into its group's queue, so
     * that from now on the group is passed over at one entry and this item is passed at most once
     * (decisions D48). Its ready key stays, so nothing is newly ready and no count changes: the
     * change is recorded without the topic being offered again.
     */
    void intoGroupQueue(long offset, StoredItem flat) {
      StoredItem queued = Lifecycle.copy(flat).setFlat(false).build();
      effects.change(offset, flat, queued);
      changed.put(offset, queued);
    }

    /** The rate of the group last let through by {@link #groupHeld} (null: none): the lease takes a token of it. */
    private dev.ordo.schema.Rate heldRate;

    /**
     * Why an item of {@code group} may not be leased now: {@link QueueMetrics#GROUP_LIMITED} (its
     * concurrency limit is leased), {@link QueueMetrics#GROUP_RATE_LIMITED} (its rate has no token: the
     * topic is offered again when it has, {@link #offerRateWaits}), each counted; or null, and
     * {@link #heldRate} is the group's rate (null: none), for the lease to take a token of. One policy
     * read, as the limit alone took.
     */
    String groupHeld(String namespace, String group, String topic) {
      heldRate = null;
      dev.ordo.schema.NamespacePolicy policy = policies.policy(namespace);
      if (policy == null) {
        return null;
      }
      if (atGroupLimit(namespace, group, groupLimit(namespace, policy, group))) {
        effects.count(QueueMetrics.GROUP_LIMITED);
        return QueueMetrics.GROUP_LIMITED;
      }
      if (policy.getGroupRate() == null && policy.getGroupRateOverrides() == null) {
        return null; // no group rates in the namespace: nothing more per item (an empty map is looked in once)
      }
      dev.ordo.schema.Rate rate = groupRate(namespace, policy, group); // with shards, this partition's part
      if (rate != null && !groupRates.mayLease(namespace, group, rate, now)) {
        effects.count(QueueMetrics.GROUP_RATE_LIMITED);
        effects.groupRateWait(namespace, topic);
        long wait = Math.max(1, groupRates.msUntilOne(namespace, group, rate, now));
        long due = wait > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + wait;
        rateWaits.merge(new TopicRef(namespace, topic), due, Math::min);
        return QueueMetrics.GROUP_RATE_LIMITED;
      }
      heldRate = rate;
      return null;
    }

    /** True when the group has {@code limit} items leased (with this plan's leases); false for no limit (null). */
    boolean atGroupLimit(String namespace, String group, Integer limit) {
      if (limit == null) {
        return false;
      }
      long leased = view.groupLeased(namespace, group);
      if (leasedPerGroup != null) {
        leased += leasedPerGroup.getOrDefault(new GroupRef(namespace, group), 0);
      }
      return leased >= limit;
    }

    /**
     * The candidates of a {@link #serveMerged}: a priority queue over the topics' ready index (read
     * in growing windows, never past what the queue's smallest candidate needs), the continuations
     * of the groups taken from, and the items this plan sidelined.
     */
    final class ReadyMerge {
      record Candidate(ReadyEntry entry, String topic, boolean fromStore, int source) {}

      private static final int READY_INDEX = 0;
      static final int GROUP = 1;
      private static final int MOVED = 2;

      private final String namespace;
      private final java.util.PriorityQueue<Candidate> queue =
          new java.util.PriorityQueue<>((a, b) -> a.entry().compareTo(b.entry()));
      private final Map<String, Window> windows = new java.util.LinkedHashMap<>();
      private final Map<List<Object>, GroupCursor> groups = new HashMap<>();
      /** With topic weights: the candidates per topic, taken by turns ({@link TopicTurns.Merge}); else null. */
      private final TopicTurns.Merge<Candidate> weighted;

      /** How far a topic's ready index has been read. */
      private final class Window {
        final String topic;
        int size;
        ReadyEntry last;
        boolean exhausted;

        Window(String topic, int size) {
          this.topic = topic;
          this.size = Math.max(1, size);
        }

        void load() {
          List<ReadyEntry> entries = view.readyHead(namespace, topic, size);
          for (ReadyEntry e : entries) {
            if (last == null || e.compareTo(last) > 0) {
              add(new Candidate(e, topic, true, READY_INDEX));
            }
          }
          exhausted = entries.size() < size;
          if (!entries.isEmpty()) {
            last = entries.get(entries.size() - 1);
          }
          size = size * 2;
        }
      }

      /** How far a group's queue has been read. */
      private final class GroupCursor {
        final String topic;
        final int priority;
        final String group;
        List<ReadyEntry> loaded = List.of();
        int next;
        int size = 4;
        boolean exhausted;

        GroupCursor(String topic, int priority, String group) {
          this.topic = topic;
          this.priority = priority;
          this.group = group;
        }

        /** The group's entry after the ones handed out so far (the first is the ready index's), or null. */
        ReadyEntry take() {
          if (next >= loaded.size() && !exhausted) {
            loaded = view.groupHead(namespace, topic, priority, group, size);
            exhausted = loaded.size() < size;
            size *= 2;
          }
          return next < loaded.size() ? loaded.get(next++) : null;
        }
      }

      ReadyMerge(String namespace, List<String> topics, int n, TopicTurns.Share share) {
        this.namespace = namespace;
        this.weighted = share == null ? null : new TopicTurns.Merge<>(share, Candidate::entry);
        for (String topic : topics) {
          Window w = new Window(topic, n);
          windows.put(topic, w);
          w.load();
          List<ReadyEntry> moved = sidelinedPerTopic == null ? null : sidelinedPerTopic.get(new TopicRef(namespace, topic));
          if (moved != null) {
            for (ReadyEntry m : moved) {
              add(new Candidate(m, topic, false, MOVED));
            }
          }
        }
      }

      private void add(Candidate c) {
        if (weighted != null) {
          weighted.add(c.topic(), c);
        } else {
          queue.add(c);
        }
      }

      /** The next candidate in dequeue order, or null when there is none. */
      Candidate next() {
        if (weighted != null) {
          for (Window w : windows.values()) {
            // As below, per topic: each topic's head must be known to take turns among them.
            Candidate head;
            while (!w.exhausted && weighted.takes(w.topic)
                && ((head = weighted.peek(w.topic)) == null || w.last == null || w.last.compareTo(head.entry()) < 0)) {
              w.load();
            }
          }
          return weighted.poll();
        }
        for (Window w : windows.values()) {
          // Entries not read yet sort after the window's last: read on while that is before the smallest.
          while (!w.exhausted && (queue.isEmpty() || w.last == null || w.last.compareTo(queue.peek().entry()) < 0)) {
            w.load();
          }
        }
        return queue.poll();
      }

      /** After a group's entry from the store was taken (or passed), its next joins the candidates. */
      void continueGroup(Candidate c, String group) {
        List<Object> key = List.of(c.topic(), c.entry().priority(), group);
        GroupCursor cursor = groups.get(key);
        if (cursor == null) {
          cursor = new GroupCursor(c.topic(), c.entry().priority(), group);
          groups.put(key, cursor);
          cursor.take(); // the group's first: the ready index's entry just taken
        }
        ReadyEntry next = cursor.take();
        if (next != null) {
          add(new Candidate(next, c.topic(), true, GROUP));
        }
      }
    }

    /** Deletes an item whose time to live has passed (or dead-letters it, with {@code ordo.ttl.dead.letter}). */
    void expire(long offset, StoredItem item) {
      change(offset, item, null);
      effects.count(QueueMetrics.TTL_EXPIRED);
      if (settings.ttlDeadLetter()) {
        deadLetter(offset, item, DeadLetterReason.TTL_EXPIRED, "time to live passed in state " + item.getState());
      }
    }

    /** Leases a READY item ({@code before}: what the store holds for it, null when it is arriving). */
    void lease(long offset, StoredItem before, StoredItem item, Requester requester, boolean urgentDemand) {
      String leaseId = "a" + (item.getAttempts() + 1) + "-" + Long.toHexString(random.nextLong());
      StoredItem leased = Lifecycle.lease(item, leaseId, requester, now);
      change(offset, before, leased);
      stepLeft--;
      Item i = leased.getItem();
      if (i.getGroupKey() != null) {
        if (leasedPerGroup == null) {
          leasedPerGroup = new HashMap<>();
        }
        leasedPerGroup.merge(new GroupRef(i.getNamespace(), i.getGroupKey()), 1, Integer::sum);
      }
      Allowance a = allowances == null ? null : allowances.get(i.getNamespace());
      if (a != null) {
        a.left--;
        dispatchLimit.take(i.getNamespace(), a.rate(), a.share(), 1, now);
      }
      effects.count(QueueMetrics.DISPATCHED);
      effects.lease(requester, DeliveredItem.newBuilder()
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
     * A lease of a group ended (ack, nack, expiry, release, cancel, TTL): if the group has a limit,
     * demands waiting on the namespace's topics with ready items are served again (the group's items
     * may be in any of them), as after an arrival.
     */
    void groupLeaseEnded(String namespace, String group) {
      if (groupLimit(namespace, group) == null) {
        return;
      }
      for (TopicCounts t : view.topics(namespace)) {
        if (t.ready() > 0) {
          effects.topicReady(namespace, t.topic());
        }
      }
    }

    /**
     * Gives an item becoming READY its fair-queueing slot ({@link #slotFor}) and its layout: a group
     * without a concurrency limit in its namespace's policy puts its items in the ready index
     * itself ({@code flat}), a group with one in its own queue, so that the group at its limit is
     * passed over at one entry (decisions D48). The dispatch order is the same either way: both
     * sort by the ready key, fixed here.
     */
    void enterReady(StoredItem item) {
      item.setSlot(slotFor(item));
      String group = item.getItem().getGroupKey();
      // An ordered group's items are in no group queue: the store keeps its head alone in the ready
      // index (decisions D60), so a limit passes it at one entry as it is.
      // A group with a rate is queued as one with a limit: over its rate, it is passed at one entry too.
      if (group == null) {
        item.setFlat(false);
      } else if (item.getOrdered()) {
        item.setFlat(true);
      } else {
        dev.ordo.schema.NamespacePolicy policy = policies.policy(item.getItem().getNamespace());
        item.setFlat(groupLimit(item.getItem().getNamespace(), policy, group) == null
            && groupRate(policy, group) == null);
      }
    }

    /**
     * The fair-queueing slot of an item becoming READY (docs/queue.md, "Fair queueing"): start-time
     * fair queueing within its (namespace, topic, priority), {@code max(the group's last slot +
     * 1/weight, the virtual time)}, in units of {@link #SLOT_UNIT} per weight 1. Without a group
     * key an item is a group of its own: the virtual time. The virtual time is the largest slot
     * leased at the priority (kept by the store from the items' states, {@code FairShares}).
     */
    long slotFor(StoredItem item) {
      Item i = item.getItem();
      long virtualTime = view.virtualTime(i.getNamespace(), i.getTopic(), i.getPriority());
      String group = i.getGroupKey();
      if (group == null) {
        return virtualTime;
      }
      if (groupSlots == null) {
        groupSlots = new HashMap<>();
      }
      GroupSlotKey key = new GroupSlotKey(i.getNamespace(), i.getTopic(), i.getPriority(), group);
      Long last = groupSlots.get(key);
      if (last == null) {
        last = view.groupLastSlot(i.getNamespace(), i.getTopic(), i.getPriority(), group);
      }
      long slot = last == null ? virtualTime : Math.max(last + slotIncrement(i.getNamespace(), i.getTopic(), group), virtualTime);
      groupSlots.put(key, slot);
      return slot;
    }

    /**
     * Moves the topic's fresh-lane items that have been ready longer than the namespace's
     * {@code sidelineAfterMs} to its backlog lane (at most {@link #SIDELINE_BATCH}), before the topic
     * is served: read from the age index's fresh-lane head, so O(log n + k). The store still holds
     * them in the fresh lane until the plan is applied; {@link #readyHead} shows them in the backlog
     * lane.
     */
    void sideline(String namespace, String topic) {
      dev.ordo.schema.NamespacePolicy policy = policies.policy(namespace);
      if (policy == null || policy.getSidelineAfterMs() == null) {
        return;
      }
      int moved = 0;
      for (long offset : view.readyBefore(namespace, topic, now - policy.getSidelineAfterMs(), SIDELINE_BATCH)) {
        StoredItem item = get(offset);
        if (item == null || item.getState() != ItemState.READY || item.getSidelined()) {
          continue; // leased or moved by this plan already
        }
        change(offset, item, Lifecycle.sideline(item));
        if (item.getOrdered() && !Long.valueOf(offset).equals(view.orderedHead(namespace, topic, item.getItem().getGroupKey()))) {
          moved++;
          continue; // behind its ordered group's head: moved, but no candidate (D60)
        }
        if (sidelinedPerTopic == null) {
          sidelinedPerTopic = new HashMap<>();
        }
        sidelinedPerTopic.computeIfAbsent(new TopicRef(namespace, topic), k -> new ArrayList<>())
            .add(new ReadyEntry(item.getItem().getPriority(), true, item.getSlot(), item.getReadyAt(), offset));
        moved++;
      }
      if (moved > 0) {
        effects.count(QueueMetrics.SIDELINED, moved);
      }
    }

    /**
     * How many of {@code wanted} leases the namespace's dispatch rate allows now ({@code wanted} without
     * a rate). Its share is taken from the ready counts here and on the other partitions.
     */
    int allowance(String namespace, int wanted) {
      Allowance a = allowances == null ? null : allowances.get(namespace);
      if (a == null) {
        dev.ordo.schema.NamespacePolicy policy = policies.policy(namespace);
        if (policy == null || policy.getDispatchRate() == null) {
          if (dispatchLimit.buckets() > 0) {
            dispatchLimit.forget(namespace);
          }
          return wanted;
        }
        RateLimit rate = rules(namespace).dispatchRate();
        double share = DispatchLimit.share(view.namespaceCounts(namespace).ready(),
            load.others(namespace, partition, now).ready());
        a = new Allowance(rate, share);
        a.left = dispatchLimit.available(namespace, rate, share, now);
        if (allowances == null) {
          allowances = new HashMap<>();
        }
        allowances.put(namespace, a);
      }
      return (int) Math.min(wanted, a.left);
    }
  }

  /** A namespace's dispatch rate and share as one plan sees them, and the leases it has left. */
  private static final class Allowance {
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
}
