package dev.ordo.client.internal;

import dev.ordo.schema.Requester;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a {@link dev.ordo.client.QueueClient}'s dequeues ask, and the demands that ask: a round of
 * once demands planned from the stats ({@link DemandPlan#fromStats}), a long poll's standing demands
 * ({@link DemandPlan#longPoll}), a filled partition asked for more, and the cancel of what stands when
 * a dequeue ends. Owns a dequeue breaker per queue partition (one that stops answering is left out
 * for a while, decisions D58), the stats entries the dequeues count on ({@link StatsView#reserve}),
 * and what the answers taught: the partition that served last (preferred among equals) and how long
 * exact plans take to be answered. A dequeue's own state is in its {@link PendingDequeue}.
 */
public final class DequeueDemands {
  private static final Logger log = LoggerFactory.getLogger(DequeueDemands.class);
  /** Demand outlives the moment it is needed by this much, to cover the trip to the queue. */
  private static final long DEMAND_SLACK_MS = 200;
  /** Exact rounds a dequeue asks before it long-polls for what the stats could not give it. */
  private static final int MAX_EXACT_ROUNDS = 3;

  private final RequestChannel channel;
  private final StatsView stats;
  private final PartitionBreakers breakers;
  private final DequeueTimes times;
  /**
   * How long the partitions asked by exact plans recently took to send their first items (written
   * by the poll thread only; a dequeue's wait and {@link PendingDequeue#roundTimeout} grow with it).
   */
  private volatile long recentAnswerMs;
  /** The partition that served this client's dequeues last, which its next ones prefer among equals. */
  private volatile int lastServed = -1;

  public DequeueDemands(RequestChannel channel, StatsView stats, PartitionBreakers breakers, DequeueTimes times) {
    this.channel = channel;
    this.stats = stats;
    this.breakers = breakers;
    this.times = times;
  }

  public PartitionBreakers breakers() {
    return breakers;
  }

  /** How long a dequeue asked to wait {@code askedMs} waits (see {@link #waitMs(long, long, long, long)}). */
  long waitMs(long askedMs) {
    return waitMs(askedMs, times.minWaitMs(), recentAnswerMs, times.requestTimeoutMs());
  }

  /**
   * A server that answers slowly (a cold or loaded one) gets at least three of its recent answer
   * times (at most half the request timeout), and every dequeue at least the minimum wait: a dequeue
   * that ends before its answer comes leaves the items leased to it to be released, work that slows
   * the server further.
   */
  static long waitMs(long askedMs, long minWaitMs, long recentAnswerMs, long requestTimeoutMs) {
    return Math.max(askedMs, Math.max(minWaitMs, Math.min(3 * recentAnswerMs, requestTimeoutMs / 2)));
  }

  /**
   * Plans what {@code counts} still wants: a round of once demands to the partitions the stats show
   * holding the best items ({@link DemandPlan#fromStats}), or, when the stats show nothing to take (or
   * the dequeue has had its exact rounds), a long poll on every partition. Before the stats table is
   * read (a new client) it long-polls.
   */
  void plan(PendingDequeue q, Map<String, Integer> counts, long now) {
    int partitions = channel.partitions();
    unreserve(q); // a new plan counts on items anew
    Set<Integer> allowed = breakers.allowed(partitions, now); // a partition whose breaker is open is not asked
    List<DemandPlan.Entry> ready = stats.caughtUp().isDone() ? stats.readyEntries(q.namespace()) : List.of();
    ready = ready.stream().filter(e -> allowed.contains(e.partition())).toList();
    DemandPlan plan = DemandPlan.fromStats(counts, ready, partitions,
        new DemandPlan.Sticky(lastServed, times.stickyMs()));
    if (plan.asks().isEmpty() || q.rounds() >= MAX_EXACT_ROUNDS) {
      longPoll(q, counts, now, allowed);
      return;
    }
    // What the stats do not cover is asked of every partition, as a long poll's share: of the partitions
    // asked once, within their once demand (they may hold more than their stats said); of the others,
    // as standing demands.
    Map<Integer, Map<String, Integer>> once = new java.util.TreeMap<>(plan.asks());
    DemandPlan shares = plan.exact() ? null : DemandPlan.longPoll(uncovered(counts, plan), List.copyOf(allowed));
    if (shares != null) {
      shares.asks().forEach((p, share) -> once.computeIfPresent(p, (x, asked) -> merged(asked, share)));
    }
    Requester requester = channel.requester(q.requesterId());
    long roundTimeout = Math.max(PendingDequeue.roundTimeout(times.gatherMs(), recentAnswerMs), times.minWaitMs());
    q.askedOnce(once, now, roundTimeout);
    q.reserve(plan.takes());
    plan.takes().forEach((entry, n) -> stats.reserve(q.namespace(), entry, n));
    long validFor = validFor(q, now);
    once.forEach((p, asked) -> channel.send(Commands.demand(channel.topics(), p, requester, q.namespace(), asked,
        validFor, true, now, true, true, true)).whenComplete((m, e) -> failOnError(q, e)));
    if (shares != null) {
      Map<Integer, Map<String, Integer>> others = new java.util.TreeMap<>(shares.asks());
      others.keySet().removeAll(once.keySet());
      q.longPolled(others, now);
      others.keySet().forEach(p -> channel.send(Commands.demand(channel.topics(), p, requester, q.namespace(),
          shares.asks().get(p), validFor, true, now, true, false)).whenComplete((m, e) -> failOnError(q, e)));
    }
  }

  /** What {@code counts} wants beyond what {@code plan} asks, by key. */
  static Map<String, Integer> uncovered(Map<String, Integer> counts, DemandPlan plan) {
    Map<String, Integer> left = new HashMap<>(counts);
    plan.asks().values().forEach(asked -> asked.forEach((key, n) -> left.merge(key, -n, Integer::sum)));
    left.values().removeIf(n -> n <= 0);
    return left;
  }

  /** The counts of {@code a} and {@code b} added, by key. */
  static Map<String, Integer> merged(Map<String, Integer> a, Map<String, Integer> b) {
    Map<String, Integer> out = new java.util.TreeMap<>(a);
    b.forEach((key, n) -> out.merge(key, n, Integer::sum));
    return out;
  }

  /** How long a demand of {@code q} sent at {@code now} stands. */
  private long validFor(PendingDequeue q, long now) {
    return Math.min(q.deadline() - now, 2 * times.refreshMs()) + DEMAND_SLACK_MS;
  }

  /**
   * Standing demands for a share of {@code counts} ({@link DemandPlan#longPoll}) on every partition but
   * those whose once demand has items on their way (what comes from those is the once demand's).
   */
  void longPoll(PendingDequeue q, Map<String, Integer> counts, long now) {
    longPoll(q, counts, now, breakers.allowed(channel.partitions(), now));
  }

  /** {@link #longPoll(PendingDequeue, Map, long)} on the partitions of {@code allowed} (their breakers closed). */
  private void longPoll(PendingDequeue q, Map<String, Integer> counts, long now, Set<Integer> allowed) {
    List<Integer> free = new ArrayList<>();
    Set<Integer> awaiting = q.awaitingOnce();
    for (int p = 0, n = channel.partitions(); p < n; p++) {
      if (!awaiting.contains(p) && allowed.contains(p)) {
        free.add(p);
      }
    }
    if (counts.isEmpty() || free.isEmpty()) {
      q.longPolled(Map.of(), now);
      return;
    }
    DemandPlan plan = DemandPlan.longPoll(counts, free);
    Requester requester = channel.requester(q.requesterId());
    long validFor = validFor(q, now);
    q.longPolled(plan.asks(), now);
    plan.asks().forEach((p, asked) -> channel.send(Commands.demand(channel.topics(), p, requester, q.namespace(),
        asked, validFor, true, now, true, false)).whenComplete((m, e) -> failOnError(q, e)));
  }

  /**
   * The round of {@code q} is overdue (answers slow or lost): each silent partition is a timeout for its
   * breaker; one that opened is not waited for any longer (decisions D58). Long-polls for what the rest
   * do not cover; what they bring still counts.
   */
  void overdue(PendingDequeue q, long now) {
    Set<Integer> tripped = new java.util.TreeSet<>();
    for (int p : q.awaitingOnce()) {
      breakers.timedOut(p, now);
      if (breakers.tripped(p)) {
        tripped.add(p);
      }
    }
    q.abandon(tripped);
    longPoll(q, q.stillUncovered(), now);
  }

  /**
   * A long-polled partition that served its whole share may hold more of what is still wanted: it is
   * asked once for it (the others' standing demands keep their shares). True when it was.
   */
  boolean askMore(PendingDequeue q, long now) {
    Set<Integer> filled = q.takeFilled();
    Map<String, Integer> still = q.stillUncovered();
    if (filled.isEmpty() || still.isEmpty()) {
      return false;
    }
    Requester requester = channel.requester(q.requesterId());
    long validFor = validFor(q, now);
    DemandPlan.longPoll(still, filled).asks().forEach((p, share) -> {
      q.askedMore(p, share);
      channel.send(Commands.demand(channel.topics(), p, requester, q.namespace(), share, validFor, true, now, true,
          true, true)).whenComplete((m, e) -> failOnError(q, e));
    });
    return true;
  }

  private static void failOnError(PendingDequeue q, Throwable e) {
    if (e != null) {
      q.fail(e);
    }
  }

  /** Cancels the standing demands of a long poll: nothing more is leased to the dequeue after them. */
  void cancel(PendingDequeue q, long now) {
    Requester requester = channel.requester(q.requesterId());
    for (int p : q.lingering()) {
      channel.send(Commands.demand(channel.topics(), p, requester, q.namespace(), Map.of(), 1, true, now, false))
          .whenComplete((m, e) -> {
            if (e != null) {
              log.warn("Could not cancel the demand of {}; it lapses by itself", q.requesterId(), e);
            }
          });
    }
  }

  /** Gives back what the dequeue still counts on, so other dequeues plan with those items. */
  void unreserve(PendingDequeue q) {
    q.dropReservations().forEach((entry, n) -> stats.reserve(q.namespace(), entry, -n));
  }

  /** An item of stats entry {@code entry} came for {@code q}: one fewer counted on, if it counted on it. */
  void useReservation(PendingDequeue q, String entry) {
    if (q.useReservation(entry)) {
      stats.reserve(q.namespace(), entry, -1);
    }
  }

  /** Partition {@code partition} answered a dequeue of this client at {@code now} (an answer or an item). */
  void answered(int partition, long now) {
    breakers.answered(partition, now);
  }

  /** Partition {@code partition} served an item to a dequeue of this client: its next ones prefer it among equals. */
  void served(int partition) {
    lastServed = partition;
  }

  /** A first item of an exact plan came {@code answerMs} after its demands (-1: not such an item). */
  void observeAnswer(long answerMs) {
    if (answerMs >= 0) {
      recentAnswerMs += (answerMs - recentAnswerMs) / 4; // a moving average over the last few; poll thread only
    }
  }
}
