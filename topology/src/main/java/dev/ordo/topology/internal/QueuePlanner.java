package dev.ordo.topology.internal;

import dev.ordo.schema.Command;
import dev.ordo.schema.Item;
import dev.ordo.store.QueueView;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Decides what one partition's queue does with an item, a command, a timer run or newly ready
 * items: pure code over a {@link QueueView} of the store and the time passed in, returning
 * {@link Effects} for {@link QueueProcessor} to apply. It reads no clock and writes nothing but
 * soft state, each piece owned by one decider:
 *
 * <ul>
 *   <li>{@link Intake}: an item taken in, leased on arrival or kept in OVERFLOW; the arrival rates and admission buckets;
 *   <li>{@link Commands}: a command refused, or applied and answered;
 *   <li>{@link Dispatch}: open demand served from the ready items; whether a dispatch step left some unserved, the topics' turns;
 *   <li>{@link Timers}: a timer run; when the rates' state was last pruned;
 *   <li>{@link RateGates}: a namespace's dispatch rate, a group's limit and rate, and the topics waiting for them;
 *   <li>{@link ItemChanges} and {@link FairSlots}: what follows from an item's change, its slot and layout when READY;
 *   <li>{@link PolicyRules}: what the namespace policies say, cached per policy object;
 *   <li>{@link DemandBook}: the open demand; {@link PauseGate}: the topics held back by a pause.
 * </ul>
 *
 * <p>Each call makes one {@link Plan}. Within a plan the store is not yet changed, so the plan keeps its
 * own view of the items it changed (an item acked twice in one batch is unknown the second time; an item
 * leased is not in the ready head for the next demand). A plan never reads the ready head after making
 * items ready: items made ready (a nack, a release, a due timer) are served by the {@link #dispatch} that
 * follows once the plan is applied.
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

  /** The slots between two items of a group of weight 1 ({@link FairSlots#SLOT_UNIT}). */
  static final long SLOT_UNIT = FairSlots.SLOT_UNIT;
  /** Items one dispatch of a topic moves to its backlog lane at most ({@link Dispatch#SIDELINE_BATCH}). */
  static final int SIDELINE_BATCH = Dispatch.SIDELINE_BATCH;

  private final int partition;
  /** Leases one plan may make ({@link Settings#dispatchStep}; {@link Integer#MAX_VALUE}: no bound). */
  private final int dispatchStep;
  private final DemandBook demands = new DemandBook();
  private final PolicyRules rules;
  private final FairSlots slots;
  private final RateGates gates;
  private final Dispatch dispatch;
  private final Intake intake;
  private final Commands commands;
  private final Timers timers;

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
    QueueDefaults defaults = settings.defaults();
    this.partition = partition;
    this.dispatchStep = settings.dispatchStep() > 0 ? settings.dispatchStep() : Integer.MAX_VALUE;
    PauseGate pauses = new PauseGate(policies);
    this.rules = new PolicyRules(policies, defaults, settings.payloadLimit(),
        new GroupShards(partition, settings.deliveriesPartitions()));
    this.gates = new RateGates(rules, demands, load, partition);
    this.slots = new FairSlots(rules, gates);
    ItemChanges changes = new ItemChanges(rules, slots, settings.tiers(), settings.ttlDeadLetter());
    this.dispatch = new Dispatch(partition, random, demands, pauses, rules, gates, changes);
    this.intake = new Intake(partition, load, rules, slots, changes, dispatch, gates, demands, pauses, defaults,
        settings.payloadLimit(), settings.headersLimit());
    this.commands = new Commands(partition, settings.deliveriesPartitions(), defaults, demands, dispatch, changes);
    this.timers = new Timers(intake, gates, changes, demands, pauses, defaults, settings.timerBatch(),
        settings.redeliveryDelayMs());
  }

  /** A plan of one call: the first plan of a task starts the group rates' buckets, if the processor said nothing. */
  private Plan plan(QueueView view, long now, boolean urgent) {
    gates.started(now);
    return new Plan(view, now, urgent, dispatchStep);
  }

  public int partition() {
    return partition;
  }

  /**
   * A new item read at {@code offset} of the items topic, appended at {@code appendedAt}: refused,
   * dropped (its time to live already passed), kept in OVERFLOW (over its namespace's admission
   * rate or backlog limit), leased at once to an open demand, or stored READY, DELAYED or PARKED.
   */
  public Effects onItem(long offset, long appendedAt, Item item, QueueView view, long now) {
    demands.expireDue(now); // a quiet task ticks rarely: a lapsed demand must not be served meanwhile
    return intake.onItem(plan(view, now, false), offset, appendedAt, item);
  }

  /** A command: refused with a reason, or applied and answered. */
  public Effects onCommand(Command command, QueueView view, long now) {
    demands.expireDue(now); // a quiet task ticks rarely: a lapsed demand must not be served meanwhile
    return commands.onCommand(plan(view, now, command.getUrgent()), command);
  }

  /**
   * A timer run: lapsed demand dropped, due TTLs, delays and lease expiries fired, and OVERFLOW items
   * admitted as their namespaces' rates and backlog limits allow (at most a batch of each).
   */
  public Effects onTimers(QueueView view, long now) {
    timers.prune(now);
    demands.expire(now);
    return timers.run(plan(view, now, false));
  }

  /**
   * Serves every open demand that wants one of {@code readyTopics} ((namespace, topic) pairs that got
   * ready items), in the demands' round-robin order. Empties {@code readyTopics}, except while the
   * index is rebuilt: then nothing is served and the topics wait.
   */
  public Effects dispatch(Collection<TopicRef> readyTopics, QueueView view, long now) {
    demands.expireDue(now); // a quiet task ticks rarely: a lapsed demand must not be served meanwhile
    return dispatch.dispatch(plan(view, now, false), readyTopics);
  }

  /**
   * True while open demand was left unserved at the dispatch step with items ready for it, until
   * {@link #continueDispatch} has served it.
   */
  public boolean dispatchPending() {
    return dispatch.pending();
  }

  /**
   * Goes on serving the open demands a dispatch step left unserved: round-robin, one dispatch step
   * in all. Nothing when no dispatch is pending or the index is being rebuilt.
   */
  public Effects continueDispatch(QueueView view, long now) {
    demands.expireDue(now); // a lapsed demand must not be served
    return dispatch.continueDispatch(plan(view, now, false));
  }

  /** True while demand waits for a namespace's dispatch rate or a group's rate: only the passing of time serves it. */
  public boolean throttling() {
    return gates.throttling();
  }

  /**
   * The partition's takeover (the processor's start): a group's rate bucket made from now on is empty as
   * of this time (docs/queue.md, "Group rates"). Without a call, the first time a plan sees.
   */
  public void started(long now) {
    gates.started(now);
  }

  /** Items of the topic arriving on this partition a second, recently (published with its stats). */
  public double arrivalsPerSecond(String namespace, String topic, long now) {
    return intake.arrivalsPerSecond(namespace, topic, now);
  }

  /** Drops lapsed demand; for timer runs that cannot dispatch (the index is being rebuilt). */
  public void expireDemands(long now) {
    demands.expire(now);
  }

  /** The open demand (soft state). */
  DemandBook demands() {
    return demands;
  }

  /** The defaults and limits of {@code namespace}: the server's, or its policy's where it sets them. */
  NamespaceRules rules(String namespace) {
    return rules.of(namespace);
  }

  /** The concurrency limit of a group key in its namespace's policy (with shards, this partition's part), or null. */
  Integer groupLimit(String namespace, String group) {
    return rules.groupLimit(namespace, group);
  }

  /** The rate of a group key in its namespace's policy (with shards, this partition's part), or null for none. */
  dev.ordo.schema.Rate groupRate(String namespace, String group) {
    return rules.groupRate(namespace, group);
  }

  /** Slots between two items of {@code group} of {@code topic} ({@link FairSlots#slotIncrement}). */
  long slotIncrement(String namespace, String topic, String group) {
    return slots.slotIncrement(namespace, topic, group);
  }

  /** Rate buckets held (bounded: {@link GroupRates#MAX_BUCKETS}). */
  int groupRateBuckets() {
    return gates.groupRateBuckets();
  }

  /** (namespace, topic) pairs waiting for a group's rate to let a lease through. */
  int rateWaits() {
    return gates.rateWaits();
  }
}
