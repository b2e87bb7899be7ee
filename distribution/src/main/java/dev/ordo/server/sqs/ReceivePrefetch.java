package dev.ordo.server.sqs;

import dev.ordo.client.GiveBackReason;
import dev.ordo.client.QueueItem;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The receive prefetch of the SQS endpoint (docs/sqs.md "Receive prefetch"): a ReceiveMessage that
 * finds nothing held for its queue dequeues more than it returns (up to {@code ordo.sqs.prefetch.items},
 * as many as the queue's receives took in the last {@code ordo.sqs.prefetch.max.age.ms}), and the next
 * receives of the queue on this server are served from what it holds, without a trip to the queue.
 * SQS caps a receive at 10 messages; a dequeue through Kafka costs about the same for 10 items as for
 * 50, so a busy queue's receives share one dequeue (docs/lab/2026-11-29-sqs-prefetch.md).
 *
 * <ul>
 *   <li>An item is held at most {@code maxAge} from when its dequeue was sent (its lease began after
 *       that): one older is given back unseen ({@code Release.returned}: ready again at its place,
 *       the receive not counted), by the next receive of its queue or by the sweeper, which looks
 *       every half {@code maxAge}. So an item handed out keeps at least its visibility timeout less
 *       {@code maxAge}; a receive with a VisibilityTimeout of its own sets every item's lease from
 *       the receive, as without a prefetch.</li>
 *   <li>Each item is its own lease (receipt handles as without a prefetch). Items of an ordered group
 *       (FIFO queues) are leased only as their group's oldest live item, so holding one never lets a
 *       later item of its group be handed out first.</li>
 *   <li>{@link #close} gives back what is held; a receive that comes back after it gives back its
 *       surplus at once.</li>
 * </ul>
 * Thread-safe: each queue's holdings under their own lock, the dequeues outside it.
 */
final class ReceivePrefetch implements AutoCloseable {
  /** Dequeues for a receive: {@code QueueClient.dequeue} of one topic. */
  interface Dequeuer {
    CompletableFuture<List<QueueItem>> dequeue(String namespace, String topic, int count, Duration wait);
  }

  /** Gives back leases nobody was handed: {@code QueueClient.giveBackUnseen}. */
  interface GiveBack {
    void giveBack(List<QueueItem> items, GiveBackReason reason);
  }

  /** What a prefetch did since start, for tests and the lab notes. */
  record Counts(long dequeues, long prefetched, long handedFromPrefetch, long givenBack) {}

  private static final Duration SLACK = Duration.ofSeconds(15);

  private final int most;
  private final long maxAgeNanos;
  private final Dequeuer dequeuer;
  private final GiveBack giveBack;
  private final LongSupplier nanos;
  private final LongSupplier millis;
  private final Map<QueueRef, Held> held = new ConcurrentHashMap<>();
  private final ScheduledExecutorService sweeper;
  private volatile boolean closed;
  private final java.util.concurrent.atomic.LongAdder dequeues = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder prefetched = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder handed = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder returned = new java.util.concurrent.atomic.LongAdder();

  /**
   * @param most the most items one dequeue asks; up to {@link MessageActions#MAX_BATCH}: no prefetch
   * @param maxAge how long an item is held for a later receive
   */
  ReceivePrefetch(int most, Duration maxAge, Dequeuer dequeuer, GiveBack giveBack, LongSupplier nanos,
      LongSupplier millis, boolean sweep) {
    this.most = most;
    this.maxAgeNanos = maxAge.toNanos();
    this.dequeuer = dequeuer;
    this.giveBack = giveBack;
    this.nanos = nanos;
    this.millis = millis;
    if (on() && sweep) {
      sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ordo-sqs-prefetch-sweeper");
        t.setDaemon(true);
        return t;
      });
      long every = Math.max(TimeUnit.MILLISECONDS.toNanos(10), maxAgeNanos / 2);
      sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.NANOSECONDS);
    } else {
      sweeper = null;
    }
  }

  boolean on() {
    return most > MessageActions.MAX_BATCH && maxAgeNanos > 0;
  }

  Counts counts() {
    return new Counts(dequeues.sum(), prefetched.sum(), handed.sum(), returned.sum());
  }

  /** An item held, and until when it may be handed out (nanos). */
  private record Item(QueueItem item, long until) {}

  /** A queue's holdings and how many items its receives took lately. Guarded by itself. */
  private static final class Held {
    final ArrayDeque<Item> items = new ArrayDeque<>();
    /** Items asked by dequeues on their way, beyond what their receives take. */
    int asked;
    long windowStart;
    int tookThisWindow;
    int tookLastWindow;

    Held(long now) {
      windowStart = now; // nanoTime may be negative: the window starts at the queue's first receive
    }

    void took(int n, long now, long window) {
      if (now - windowStart >= window) {
        tookLastWindow = now - windowStart < 2 * window ? tookThisWindow : 0;
        tookThisWindow = 0;
        windowStart = now;
      }
      tookThisWindow += n;
    }

    /** Items held past their time, taken out. */
    void stale(long now, List<QueueItem> out) {
      items.removeIf(i -> {
        if (now - i.until() > 0) {
          out.add(i.item());
          return true;
        }
        return false;
      });
    }
  }

  /**
   * Up to {@code max} items of the queue for a receive that may wait {@code wait}: what is held for it,
   * else a dequeue's (which leases more for the next receives when its receives took more lately).
   * {@code visibility}: the queue's VisibilityTimeout, the lease its items are given; an item is held
   * at most a tenth of it (and of what is left of its lease when it comes), and never past {@code maxAge}.
   */
  List<QueueItem> receive(QueueRef ref, int max, Duration wait, Duration visibility) throws SqsException {
    long holdFor = Math.min(maxAgeNanos, visibility.toNanos() / 10);
    if (!on() || holdFor < TimeUnit.MILLISECONDS.toNanos(1)) {
      dequeues.increment();
      return SqsActions.await(dequeuer.dequeue(ref.namespace(), ref.name(), max, wait), wait.plus(SLACK),
          "the receive");
    }
    long now = nanos.getAsLong();
    Held h = held.computeIfAbsent(ref, r -> new Held(now));
    List<QueueItem> got = new ArrayList<>(max);
    List<QueueItem> stale = new ArrayList<>();
    int ask;
    synchronized (h) {
      h.stale(now, stale);
      while (got.size() < max && !h.items.isEmpty()) {
        got.add(h.items.pollFirst().item());
      }
      h.took(got.size(), now, maxAgeNanos);
      if (got.isEmpty() && closed) {
        ask = max; // closing: nothing more to hold
      } else if (got.isEmpty()) {
        // As many as the receives took lately, less what is on its way, at least this receive's.
        int expected = Math.max(h.tookThisWindow, h.tookLastWindow) + max;
        ask = Math.min(most, Math.max(max, expected - h.asked));
        h.asked += ask - max;
      } else {
        ask = 0;
      }
    }
    giveBack(stale, GiveBackReason.SURPLUS);
    if (ask == 0) {
      handed.add(got.size());
      return got;
    }
    long askedAt = nanos.getAsLong();
    List<QueueItem> came;
    dequeues.increment();
    try {
      came = SqsActions.await(dequeuer.dequeue(ref.namespace(), ref.name(), ask, wait), wait.plus(SLACK),
          "the receive");
    } finally {
      synchronized (h) {
        h.asked -= ask - max;
      }
    }
    int mine = Math.min(max, came.size());
    List<QueueItem> rest = new ArrayList<>(came.subList(mine, came.size()));
    if (!rest.isEmpty()) {
      long cameAt = nanos.getAsLong();
      long wall = millis.getAsLong();
      boolean kept = false;
      synchronized (h) {
        h.took(mine, cameAt, maxAgeNanos);
        if (!closed) {
          for (QueueItem item : rest) {
            long until = askedAt + holdFor;
            long expiresAt = item.leaseExpiresAt().toEpochMilli();
            if (expiresAt > 0) { // half of what is left of its lease, as this clock sees it
              until = Math.min(until, cameAt + TimeUnit.MILLISECONDS.toNanos(expiresAt - wall) / 2);
            }
            h.items.addLast(new Item(item, until));
          }
          kept = true;
        }
      }
      prefetched.add(rest.size());
      if (!kept) {
        giveBack(rest, GiveBackReason.CLOSING);
      }
    } else {
      synchronized (h) {
        h.took(mine, nanos.getAsLong(), maxAgeNanos);
      }
    }
    return new ArrayList<>(came.subList(0, mine));
  }

  /** Gives back what is held for the queue (PurgeQueue: its held items are about to be deleted). */
  void drop(QueueRef ref) {
    Held h = held.get(ref);
    if (h == null) {
      return;
    }
    List<QueueItem> out = new ArrayList<>();
    synchronized (h) {
      h.items.forEach(i -> out.add(i.item()));
      h.items.clear();
    }
    giveBack(out, GiveBackReason.SURPLUS);
  }

  /** Gives back every item held longer than {@code maxAge}. */
  void sweep() {
    try {
      long now = nanos.getAsLong();
      for (Held h : held.values()) {
        List<QueueItem> stale = new ArrayList<>();
        synchronized (h) {
          h.stale(now, stale);
        }
        giveBack(stale, GiveBackReason.SURPLUS);
      }
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(ReceivePrefetch.class).warn("The SQS prefetch sweep failed", e);
    }
  }

  private void giveBack(List<QueueItem> items, GiveBackReason reason) {
    if (!items.isEmpty()) {
      returned.add(items.size());
      giveBack.giveBack(items, reason);
    }
  }

  /** Stops holding: gives back everything held, and a receive coming back later gives back its surplus. */
  @Override
  public void close() {
    closed = true;
    if (sweeper != null) {
      sweeper.shutdownNow();
    }
    for (Held h : held.values()) {
      List<QueueItem> out = new ArrayList<>();
      synchronized (h) {
        h.items.forEach(i -> out.add(i.item()));
        h.items.clear();
      }
      giveBack(out, GiveBackReason.CLOSING);
    }
  }
}
