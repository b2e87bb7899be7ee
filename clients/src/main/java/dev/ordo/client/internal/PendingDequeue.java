package dev.ordo.client.internal;

import dev.ordo.schema.DeliveredItem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One dequeue in progress: its requester id, what it wants, until when, and the items received
 * so far. Created by the calling thread, which also plans its first demands ({@link #planned});
 * otherwise only the client's poll thread touches its mutable state (reservations under the
 * object's lock). The decisions ({@link #shouldFinish}) are pure functions of
 * {@code now}.
 */
public final class PendingDequeue {
  private final String requesterId;
  private final String namespace;
  private final Map<String, Integer> wanted;
  private final long deadline;
  private final CompletableFuture<List<DeliveredItem>> future = new CompletableFuture<>();
  private final List<DeliveredItem> received = new ArrayList<>();
  private long firstArrivalAt = -1;
  private long nextRefreshAt;
  /** Every partition a demand of this dequeue went to. */
  private final Set<Integer> asked = new java.util.concurrent.ConcurrentSkipListSet<>();
  /**
   * Per partition of the last plan, the items its demand still owes this dequeue. A partition drops
   * a demand it has served in full, so only those still owing (or asked by a plan before the last,
   * which cancelled them) need a cancel at the end.
   */
  private final Map<Integer, Integer> owed = new java.util.concurrent.ConcurrentHashMap<>();
  /**
   * Partitions an exact plan asked that have not answered in full yet, with how many items each
   * still owes: a partition has answered when they all came, or when it said it has fewer.
   */
  private final Map<Integer, Integer> awaiting = new java.util.concurrent.ConcurrentHashMap<>();
  /** The last plan asked exactly what the stats showed ready (see {@link DemandPlan#exact()}). */
  private volatile boolean exact;
  /** When a plan that got nothing yet is widened to every partition; -1 once widened or when not exact. */
  private volatile long widenAt = -1;
  private volatile Throwable failure;
  /** When the last plan's demands were sent. */
  private volatile long plannedAt;

  public PendingDequeue(String requesterId, String namespace, Map<String, Integer> wanted, long deadline,
      long nextRefreshAt) {
    this.requesterId = requesterId;
    this.namespace = namespace;
    this.wanted = Map.copyOf(wanted);
    this.deadline = deadline;
    this.nextRefreshAt = nextRefreshAt;
  }

  public String requesterId() {
    return requesterId;
  }

  public String namespace() {
    return namespace;
  }

  public Map<String, Integer> wanted() {
    return wanted;
  }

  public long deadline() {
    return deadline;
  }

  public CompletableFuture<List<DeliveredItem>> future() {
    return future;
  }

  public List<DeliveredItem> received() {
    return received;
  }

  /**
   * The demands of {@code plan} were sent at {@code now}. An exact plan that brought nothing by
   * {@code now + widenAfterMs} (the stats were stale: other consumers took those items) is widened
   * to every partition once ({@link #widenDue}).
   */
  public void planned(DemandPlan plan, long now, long widenAfterMs) {
    asked.addAll(plan.partitions());
    Map<Integer, Integer> asks = new java.util.HashMap<>();
    plan.asks().forEach((p, counts) -> asks.put(p, counts.values().stream().mapToInt(Integer::intValue).sum()));
    owed.clear();
    owed.putAll(asks);
    plannedAt = now;
    exact = plan.exact();
    // The poll thread may call widenDue() meanwhile, where an empty `awaiting` reads as "every
    // partition answered": the widening is armed only once what the partitions owe is filled in.
    // (Armed first, as it was, a CI run saw a dequeue of 5 ready items lease 17: widened at once.)
    widenAt = -1;
    awaiting.clear();
    if (exact) {
      awaiting.putAll(asks);
    }
    widenAt = exact ? now + widenAfterMs : -1;
  }

  /**
   * A partition this dequeue asked (with {@code answerShort}) could not serve all it was asked at
   * once: it has answered, with what items it had.
   */
  public void answeredShort(int partition) {
    awaiting.remove(partition);
  }

  /** Stats entries this dequeue counts on and has not received yet ({@link DemandPlan#takes}). */
  private final Map<String, Long> reservations = new java.util.HashMap<>();

  /** Adds {@code takes} to this dequeue's reservations. */
  public void reserve(Map<String, Long> takes) {
    takes.forEach((k, n) -> reservations.merge(k, n, Long::sum));
  }

  /** An item of the entry arrived: true if it used one of this dequeue's reservations (then gone). */
  public boolean useReservation(String entryKey) {
    Long n = reservations.get(entryKey);
    if (n == null) {
      return false;
    }
    if (n <= 1) {
      reservations.remove(entryKey);
    } else {
      reservations.put(entryKey, n - 1);
    }
    return true;
  }

  /** Takes every reservation left, to give back. */
  public Map<String, Long> dropReservations() {
    Map<String, Long> left = Map.copyOf(reservations);
    reservations.clear();
    return left;
  }

  public Set<Integer> asked() {
    return asked;
  }

  /**
   * An item leased to this dequeue's own demand (not one handed over from another dequeue) came from
   * {@code partition}.
   */
  public void servedBy(int partition) {
    owed.computeIfPresent(partition, (p, n) -> n > 1 ? n - 1 : null);
  }

  /**
   * The partitions whose demand of this dequeue may still be open, to cancel at the end: those of
   * the last plan that have not served all they were asked. (Partitions a refresh left out were
   * cancelled by it.)
   */
  public Set<Integer> stillAsking() {
    return Set.copyOf(owed.keySet());
  }

  /**
   * True once when an exact plan is to be widened to every partition for what is still wanted: when
   * every partition it asked has answered (with items or a short answer) and counts are still
   * missing (the stats were stale: other consumers took those items), or when it got nothing at
   * all in its time (an answer lost, a partition moving).
   */
  public boolean widenDue(long now) {
    if (widenAt < 0) {
      return false;
    }
    if (awaiting.isEmpty() && !stillWanted().isEmpty() || now >= widenAt && received.isEmpty()) {
      widenAt = -1;
      return true;
    }
    return false;
  }

  /**
   * An item leased to this dequeue arrived at {@code now}.
   *
   * @return how long the first item of an exact plan took to come since the plan was sent (the
   *     partitions' answer time, which paces the widening), or -1 for any other item
   */
  public long offer(DeliveredItem item, long now) {
    received.add(item);
    awaiting.computeIfPresent(dev.ordo.api.ItemId.parse(item.getItemId()).partition(), (p, n) -> n > 1 ? n - 1 : null);
    if (firstArrivalAt < 0) {
      firstArrivalAt = now;
      return answerTime(now);
    }
    return -1;
  }

  /** For an exact plan, how long ago at {@code now} its demands were sent; -1 for a broadcast. */
  public long answerTime(long now) {
    return exact ? Math.max(0, now - plannedAt) : -1;
  }

  /**
   * How long after its demands an exact plan that got nothing is widened: the gather window, or
   * three times what the asked partitions recently took to answer when that is longer. A loaded
   * server answers later, and widening a plan only because its answer is on the way leases items
   * that are then released, which loads it further.
   */
  public static long widenAfter(long gatherMs, long recentAnswerMs) {
    return Math.max(gatherMs, 3 * recentAnswerMs);
  }

  /** A demand could not be sent: the dequeue fails (from a producer callback thread). */
  public void fail(Throwable error) {
    if (failure == null) {
      failure = error;
    }
  }

  public Throwable failure() {
    return failure;
  }

  /**
   * Done at the deadline; at once when an exact plan's counts have all arrived (the partitions
   * asked were those with the best heads, so nothing better is coming); otherwise {@code gatherMs}
   * after the first item arrived: like SQS's long poll, a dequeue waits only while nothing is ready,
   * and the gather window lets the other partitions offer better items.
   */
  public boolean shouldFinish(long now, long gatherMs) {
    if (now >= deadline) {
      return true;
    }
    if (firstArrivalAt < 0) {
      return false;
    }
    return now >= firstArrivalAt + gatherMs || exact && stillWanted().isEmpty();
  }

  /** What to ask the partitions for now: the counts not yet covered, or empty when covered. */
  public Map<String, Integer> stillWanted() {
    return Selection.remaining(wanted, received);
  }

  /**
   * True when this dequeue is open and would still take {@code item}: same namespace, and a count
   * still missing for its topic or for any topic. An item leased for a dequeue that has finished
   * (it came late, or was surplus) goes to such a dequeue of the same client instead of being
   * released: the lease is the item's, whoever asked, and every release is a command that makes the
   * item ready again for a demand that may well be another late one.
   */
  public boolean takes(DeliveredItem item) {
    if (future.isDone() || failure != null || !namespace.equals(item.getNamespace())) {
      return false;
    }
    Map<String, Integer> still = stillWanted();
    return still.getOrDefault(item.getTopic(), 0) > 0 || still.getOrDefault(Selection.ANY_TOPIC, 0) > 0;
  }

  /** The first of {@code open} other than {@code from} that {@link #takes} the item, or null. */
  public static PendingDequeue taker(Iterable<PendingDequeue> open, DeliveredItem item, String from) {
    for (PendingDequeue q : open) {
      if (!q.requesterId.equals(from) && q.takes(item)) {
        return q;
      }
    }
    return null;
  }

  public boolean refreshDue(long now) {
    return now >= nextRefreshAt;
  }

  public void refreshed(long nextRefreshAt) {
    this.nextRefreshAt = nextRefreshAt;
  }
}
