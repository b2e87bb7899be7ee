package dev.ordo.client.internal;

import dev.ordo.schema.DeliveredItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One dequeue in progress: its requester id, what it wants, until when, how it is asking the
 * partitions, and the items received so far. Created by the calling thread, which also plans its
 * first demands; otherwise only the client's poll thread touches it (under the object's lock). The
 * decisions ({@link #shouldFinish}, {@link #roundSettled}, {@link #roundOverdue}) are pure functions
 * of {@code now}.
 *
 * <p>A dequeue asks in two ways, together or in turn (decisions D50):
 * <ul>
 *   <li>a round of <em>once</em> demands to the partitions whose stats show the best ready items,
 *       each asked at most what it holds. A partition serves a once demand at once and keeps nothing
 *       open; when it cannot serve all of it, it answers with how many items it granted. So the dequeue
 *       knows what every partition it asked will send, waits for exactly that (never ending with an
 *       answer on its way), and is never granted more than it asked ({@link OnceRound});</li>
 *   <li>a long poll, for what the stats do not show: a standing demand on every other partition for a
 *       share of it ({@link DemandPlan#longPoll}), refreshed while the wait lasts and cancelled when the
 *       dequeue ends ({@link LongPollShares}).</li>
 * </ul>
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
  private volatile Throwable failure;
  private final OnceRound round = new OnceRound();
  private final LongPollShares longPoll = new LongPollShares();
  /** Stats entries this dequeue counts on and has not received yet ({@link DemandPlan#takes}). */
  private final Map<String, Long> reservations = new HashMap<>();

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

  public synchronized List<DeliveredItem> received() {
    return List.copyOf(received);
  }

  /** Exact rounds asked so far. */
  public synchronized int rounds() {
    return round.rounds();
  }

  /**
   * An exact round was sent at {@code now}: {@code asks} are once demands, by partition. Unsettled
   * after {@code roundTimeoutMs} (an answer lost, a partition moving or slow) the dequeue long-polls.
   */
  public synchronized void askedOnce(Map<Integer, Map<String, Integer>> asks, long now, long roundTimeoutMs) {
    round.asked(asks, now, roundTimeoutMs);
  }

  /**
   * A long poll's standing demands were sent at {@code now} to {@code partitions}. The once demands
   * still unsettled stay counted (their items are on their way); a round past its time is not
   * {@link #roundOverdue} again.
   */
  public synchronized void longPolled(Map<Integer, Map<String, Integer>> shares, long now) {
    longPoll.polled(shares);
    round.longPolled(now);
  }

  /**
   * Partitions whose standing demand was served in full since the last call: the partition dropped
   * that demand, and may hold more than the share it was asked.
   */
  public synchronized Set<Integer> takeFilled() {
    return longPoll.takeFilled();
  }

  /**
   * A once demand for {@code counts} was sent to {@code partition} (one whose standing demand was
   * served in full: it may hold more): its items are waited for as a round's are.
   */
  public synchronized void askedMore(int partition, Map<String, Integer> counts) {
    round.askedMore(partition, counts);
    longPoll.askedOnce(partition);
  }

  /**
   * Stops waiting for what {@code partitions} were asked once (their breaker opened: decisions D58):
   * the dequeue may end without their answer. An item they send afterwards is still taken while the
   * dequeue is open, and otherwise handed over or given back as any late item.
   */
  public synchronized void abandon(Set<Integer> partitions) {
    round.abandon(partitions);
  }

  /** Partitions whose once demand has items on their way: a long poll leaves them out. */
  public synchronized Set<Integer> awaitingOnce() {
    return round.awaiting();
  }

  /**
   * What is still wanted beyond what the unsettled once demands will bring: what a long poll asks for
   * (an exact round past its time goes on counting).
   */
  public synchronized Map<String, Integer> stillUncovered() {
    Map<String, Integer> still = new HashMap<>(stillWanted());
    round.subtractOwed(still);
    return still;
  }

  /**
   * A partition answered this dequeue's once demand: it granted {@code granted} items (-1: it did not
   * say), which come on their own, maybe after this answer.
   *
   * @return the keys it was asked for when it had fewer than asked (its stats entries are stale), else
   *     an empty set
   */
  public synchronized Set<String> answeredOnce(int partition, int granted) {
    return round.answered(partition, granted);
  }

  /**
   * True when the current round of once demands has brought all it will, and nothing long-polls: time
   * to plan again (or to end).
   */
  public synchronized boolean roundSettled() {
    return round.rounds() > 0 && longPoll.isEmpty() && !round.outstanding();
  }

  /** True when the current exact round is unsettled past its time. */
  public synchronized boolean roundOverdue(long now) {
    return round.overdue(now);
  }

  /** Partitions where a long poll's standing demand may still be open. */
  public synchronized Set<Integer> lingering() {
    return longPoll.lingering();
  }

  /**
   * Adds a received item, one lease per item: the same lease again is dropped (false), and a new lease
   * of an item already held replaces the old one, which the queue no longer honours (the item was leased
   * again, as after an aborted transaction whose answer went early, D39), so that the caller gets the
   * item's current lease and nothing gives back the lease the caller holds.
   */
  private boolean keep(DeliveredItem item) {
    for (int i = 0; i < received.size(); i++) {
      DeliveredItem held = received.get(i);
      if (held.getItemId().equals(item.getItemId())) {
        if (held.getLeaseId().equals(item.getLeaseId())) {
          return false;
        }
        received.set(i, item);
        return true;
      }
    }
    received.add(item);
    return true;
  }

  /** Adds {@code takes} to this dequeue's reservations. */
  public synchronized void reserve(Map<String, Long> takes) {
    takes.forEach((k, n) -> reservations.merge(k, n, Long::sum));
  }

  /** An item of the entry arrived: true if it used one of this dequeue's reservations (then gone). */
  public synchronized boolean useReservation(String entryKey) {
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
  public synchronized Map<String, Long> dropReservations() {
    Map<String, Long> left = Map.copyOf(reservations);
    reservations.clear();
    return left;
  }

  /**
   * An item leased to this dequeue arrived at {@code now} from {@code partition}.
   *
   * @return for the first item of an exact round, how long it took to come since the round was sent
   *     (the partitions' answer time, which paces {@link #roundTimeout}); -1 for any other item
   */
  public synchronized long offer(DeliveredItem item, int partition, long now) {
    if (!keep(item)) {
      return -1; // the same lease twice: counted once
    }
    if (!round.received(partition)) { // a long poll leaves a partition asked once out: the item is the ask's
      longPoll.received(partition);
    }
    if (firstArrivalAt < 0) {
      firstArrivalAt = now;
      return round.answerTime(now);
    }
    return -1;
  }

  /** How long ago at {@code now} its last round of once demands was sent; -1 when it asked none. */
  public synchronized long answerTime(long now) {
    return round.answerTime(now);
  }

  /**
   * How long an exact round may stay unsettled before the dequeue long-polls: the gather window, or
   * three times what the asked partitions recently took to answer when that is longer. A loaded
   * server answers later, and giving up on an answer that is on its way asks other partitions for
   * items that then come on top of it.
   */
  public static long roundTimeout(long gatherMs, long recentAnswerMs) {
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
   * Whether the dequeue ends now: at once when every count is covered; while a partition asked once
   * has items on their way, only {@code graceMs} past the deadline (they are this dequeue's, and would
   * otherwise come late and go back); while it long-polls, at the deadline or {@code gatherMs} after the
   * first item arrived (like SQS's long poll, a dequeue waits only while nothing is ready; the gather
   * window lets the other partitions offer better items); after a settled round alone, with items in
   * hand or at the deadline (a round that brought nothing before the deadline is followed by another
   * plan instead).
   */
  public synchronized boolean shouldFinish(long now, long gatherMs, long graceMs) {
    if (stillWanted().isEmpty()) {
      return true;
    }
    if (round.outstanding()) {
      return now >= deadline + graceMs;
    }
    if (!longPoll.isEmpty()) {
      return now >= deadline || firstArrivalAt >= 0 && now >= firstArrivalAt + gatherMs;
    }
    return round.rounds() > 0 && !received.isEmpty() || now >= deadline; // (no round yet: its first plan is being sent)
  }

  /** What to ask the partitions for now: the counts not yet covered, or empty when covered. */
  public synchronized Map<String, Integer> stillWanted() {
    return Selection.remaining(wanted, received);
  }

  /**
   * True when this dequeue is open and would still take {@code item}: same namespace, a count still
   * missing for its topic or for any topic, and no exact round that counts on its items (an item from
   * elsewhere would come on top of them). An item leased for a dequeue that has finished (it came late,
   * or was surplus) goes to such a dequeue of the same client instead of going back: the lease is the
   * item's, whoever asked.
   */
  public synchronized boolean takes(DeliveredItem item) {
    if (future.isDone() || failure != null || !namespace.equals(item.getNamespace())) {
      return false;
    }
    if (round.outstanding()) {
      return false;
    }
    Map<String, Integer> still = stillWanted();
    return still.getOrDefault(item.getTopic(), 0) > 0 || still.getOrDefault(Selection.ANY_TOPIC, 0) > 0;
  }

  /** A handed-over item, taken as if it came from no partition asked. */
  public synchronized void handOver(DeliveredItem item, long now) {
    keep(item);
    if (firstArrivalAt < 0) {
      firstArrivalAt = now;
    }
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

  public synchronized boolean refreshDue(long now) {
    return now >= nextRefreshAt;
  }

  public synchronized void refreshed(long nextRefreshAt) {
    this.nextRefreshAt = nextRefreshAt;
  }
}
