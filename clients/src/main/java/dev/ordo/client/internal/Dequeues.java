package dev.ordo.client.internal;

import dev.ordo.api.Deliveries;
import dev.ordo.api.ItemId;
import dev.ordo.api.Names;
import dev.ordo.client.ClientClosedException;
import dev.ordo.client.GiveBackReason;
import dev.ordo.client.QueueItem;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dequeues of a {@link dev.ordo.client.QueueClient} in progress (by requester id
 * {@code <prefix>d<n>}), from the call that opens one to the callback that hands its items over:
 * the items and answers the poll thread reads for them, each dequeue's step (ask more, ask again,
 * long-poll, finish, give up), and what comes after a dequeue ended (to another open dequeue that
 * wants it, else given back). Where they ask is {@link DequeueDemands}'; each one's state is its
 * {@link PendingDequeue}. Owns the open dequeues, the exact dequeues that ended empty and the leases
 * last handed to callers (both poll thread only), and the count of items handed over.
 */
public final class Dequeues {
  private static final Logger log = LoggerFactory.getLogger(Dequeues.class);
  private static final int ENDED_EMPTY_KEPT = 256;
  private static final int HANDED_OUT_KEPT = 8_192;

  private final RequestChannel channel;
  private final DequeueDemands demands;
  private final StatsView stats;
  private final GiveBacks giveBacks;
  private final ExecutorService callbacks;
  private final Time time;
  private final DequeueTimes times;
  private final int maxItems;
  private final Map<String, PendingDequeue> dequeues = new ConcurrentHashMap<>();
  private final AtomicLong handedOver = new AtomicLong();
  /** Exact dequeues that ended before any item came, the latest {@value #ENDED_EMPTY_KEPT}; poll thread only. */
  private final Map<String, PendingDequeue> endedEmpty = new java.util.LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, PendingDequeue> eldest) {
      return size() > ENDED_EMPTY_KEPT;
    }
  };
  /**
   * The latest leases handed to callers ({@code <item id>/<lease id>}, the latest {@value #HANDED_OUT_KEPT});
   * poll thread only. A delivery that comes again on one of them after its dequeue ended is the caller's,
   * not a late grant to give back.
   */
  private final Map<String, Boolean> handedOut = new java.util.LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > HANDED_OUT_KEPT;
    }
  };

  public Dequeues(RequestChannel channel, DequeueDemands demands, StatsView stats, GiveBacks giveBacks,
      ExecutorService callbacks, Time time, DequeueTimes times, int maxItems) {
    this.channel = channel;
    this.demands = demands;
    this.stats = stats;
    this.giveBacks = giveBacks;
    this.callbacks = callbacks;
    this.time = time;
    this.times = times;
    this.maxItems = maxItems;
  }

  /**
   * Opens a dequeue of up to {@code topics.get(t)} items of each topic {@code t} of {@code namespace}
   * and sends its first demands; fails at once with {@link ClientClosedException} once the client
   * stopped. The returned future is the caller's: one that completes it first (cancels it, or times it
   * out) ends the dequeue; items that complete a dequeue its caller gave up meanwhile are given back.
   *
   * @throws IllegalArgumentException naming the bad argument (see {@link #check})
   */
  public CompletableFuture<List<QueueItem>> open(String namespace, Map<String, Integer> topics, Duration wait) {
    check(namespace, topics, wait, maxItems);
    if (!channel.running()) {
      return CompletableFuture.failedFuture(channel.closed());
    }
    long now = time.milliseconds();
    long waitMs = demands.waitMs(wait.toMillis());
    PendingDequeue q = new PendingDequeue(channel.nextId('d'), namespace, topics, now + waitMs,
        now + times.refreshMs());
    dequeues.put(q.requesterId(), q);
    demands.plan(q, q.wanted(), now);
    CompletableFuture<List<QueueItem>> result = new CompletableFuture<>();
    result.whenComplete((items, e) -> q.future().cancel(false)); // a no-op once the dequeue completed it
    q.future().whenComplete((items, e) -> {
      if (e != null) {
        result.completeExceptionally(e instanceof java.util.concurrent.CompletionException c && c.getCause() != null
            ? c.getCause() : e);
      } else if (!result.complete(PublicTypes.items(items))) {
        items.forEach(item -> giveBacks.giveBack(item, GiveBackReason.CANCELLED)); // the caller cancelled meanwhile
      }
    });
    return result;
  }

  /**
   * Checks a dequeue's arguments: a namespace name, at least one topic (a name, or {@code *} for
   * any) each with a count of at least 1, at most {@code maxItems} in all, a wait not negative.
   *
   * @throws IllegalArgumentException naming the bad argument
   */
  static void check(String namespace, Map<String, Integer> topics, Duration wait, int maxItems) {
    Names.check("namespace", namespace);
    if (topics == null || topics.isEmpty()) {
      throw new IllegalArgumentException("topics is missing: name at least one topic with a count, or * for any");
    }
    topics.forEach((topic, count) -> {
      if (!Selection.ANY_TOPIC.equals(topic)) {
        Names.check("topic", topic);
      }
      if (count == null || count < 1) {
        throw new IllegalArgumentException("count for topic " + topic + " must be at least 1, got " + count);
      }
    });
    long total = topics.values().stream().mapToLong(Integer::longValue).sum();
    if (total > maxItems) {
      throw new IllegalArgumentException("a dequeue may ask for at most " + maxItems + " items, got " + total);
    }
    if (wait == null || wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative, got " + wait);
    }
  }

  /** Items of finished dequeues handed to other open dequeues instead of being given back, since start. */
  public long handedOver() {
    return handedOver.get();
  }

  /** A reply to dequeue {@code requesterId}: the answer of a partition it asked once, or items. Poll thread only. */
  void onReply(String requesterId, Delivery delivery) {
    PendingDequeue q = dequeues.get(requesterId);
    if (delivery.getBody() instanceof Outcome o && o.getCommand() == CommandKind.DEMAND && o.getPartition() != null) {
      if (q != null) {
        int partition = o.getPartition();
        demands.answered(partition, time.milliseconds());
        for (String key : q.answeredOnce(partition, o.getGranted() == null ? -1 : o.getGranted())) {
          stats.exhausted(q.namespace(), key, partition); // it had fewer than its stats showed
        }
      }
      return;
    }
    for (DeliveredItem item : Deliveries.items(delivery)) {
      int from = ItemId.parse(item.getItemId()).partition();
      demands.answered(from, time.milliseconds());
      stats.taken(item.getNamespace(), item.getTopic(), from);
      demands.served(from);
      if (q != null) {
        demands.useReservation(q, DemandPlan.entryKey(from, item.getTopic()));
      }
      if (q == null || q.future().isDone()) {
        if (handedOut.containsKey(item.getItemId() + "/" + item.getLeaseId())) {
          log.debug("Item {} came again on a lease its caller holds; ignored", item.getItemId());
          continue; // never give back a lease a caller was handed
        }
        PendingDequeue ended = endedEmpty.remove(requesterId);
        if (ended != null) {
          demands.observeAnswer(ended.answerTime(time.milliseconds()));
        }
        passOn(item, requesterId, GiveBackReason.LATE); // arrived after its dequeue finished
      } else {
        demands.observeAnswer(q.offer(item, from, time.milliseconds()));
      }
    }
  }

  /**
   * An item leased for a dequeue that no longer takes it (it came late, or was surplus): to another
   * open dequeue of this client that wants it ({@link PendingDequeue#takes}), else given back unseen
   * for {@code reason}. Poll thread only.
   */
  private void passOn(DeliveredItem item, String from, GiveBackReason reason) {
    PendingDequeue other = PendingDequeue.taker(dequeues.values(), item, from);
    if (other != null) {
      demands.useReservation(other, DemandPlan.entryKey(ItemId.parse(item.getItemId()).partition(), item.getTopic()));
      other.handOver(item, time.milliseconds());
      handedOver.incrementAndGet();
    } else {
      giveBacks.giveBack(item, reason);
    }
  }

  /** Steps every open dequeue at {@code now}. Poll thread only. */
  void stepAll(long now) {
    for (PendingDequeue q : dequeues.values()) {
      step(q, now);
    }
  }

  private void step(PendingDequeue q, long now) {
    if (q.future().isDone() || q.failure() != null) {
      // Cancelled by the caller, or a demand could not be sent.
      dequeues.remove(q.requesterId());
      demands.unreserve(q);
      demands.cancel(q, now);
      q.received().forEach(item -> giveBacks.giveBack(item, GiveBackReason.CANCELLED));
      if (q.failure() != null) {
        callbacks.execute(() -> q.future().completeExceptionally(q.failure()));
      }
    } else if (demands.askMore(q, now)) {
      return; // a partition that served its whole share is asked once for the rest
    } else if (q.shouldFinish(now, times.gatherMs(), times.answerGraceMs())) {
      finish(q, now);
    } else if (q.roundSettled()) {
      // The round brought nothing before the deadline: its partitions had fewer than their stats said.
      demands.plan(q, q.stillWanted(), now);
      q.refreshed(now + times.refreshMs());
    } else if (q.roundOverdue(now)) {
      demands.overdue(q, now);
      q.refreshed(now + times.refreshMs());
    } else if (!q.lingering().isEmpty() && q.refreshDue(now)) {
      demands.longPoll(q, q.stillUncovered(), now); // standing demand lost when a queue partition moves is rebuilt
      q.refreshed(now + times.refreshMs());
    }
  }

  /** Ends {@code q}: its best items to its caller (on the callback pool), the rest passed on. */
  private void finish(PendingDequeue q, long now) {
    dequeues.remove(q.requesterId());
    if (q.received().isEmpty() && q.rounds() > 0) {
      endedEmpty.put(q.requesterId(), q); // its answer is late: when it comes, it says how late
    }
    demands.unreserve(q);
    demands.cancel(q, now);
    Selection s = Selection.of(q.wanted(), q.received());
    s.chosen().forEach(item -> handedOut.put(item.getItemId() + "/" + item.getLeaseId(), Boolean.TRUE));
    s.surplus().forEach(item -> passOn(item, q.requesterId(), GiveBackReason.SURPLUS));
    callbacks.execute(() -> {
      if (!q.future().complete(s.chosen())) {
        // The caller cancelled meanwhile.
        s.chosen().forEach(item -> giveBacks.giveBack(item, GiveBackReason.CANCELLED));
      }
    });
  }

  /** Fails every open dequeue, giving back what it received: the client closed. */
  void failAll(ClientClosedException closed) {
    for (PendingDequeue q : dequeues.values()) {
      dequeues.remove(q.requesterId());
      demands.unreserve(q);
      q.received().forEach(item -> giveBacks.giveBack(item, GiveBackReason.CANCELLED));
      q.future().completeExceptionally(closed);
    }
  }
}
