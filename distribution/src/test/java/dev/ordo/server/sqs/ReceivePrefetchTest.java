package dev.ordo.server.sqs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.client.GiveBackReason;
import dev.ordo.client.QueueItem;
import dev.ordo.client.Semantics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The receive prefetch against a queue of its own (a list of ready items) and a clock the test moves:
 * what it asks, holds, hands out and gives back. The SQS endpoint's behaviour with it is in
 * {@link SqsPrefetchTest}.
 */
class ReceivePrefetchTest {
  private static final QueueRef Q = new QueueRef("sqs", "q");
  private static final Duration NO_WAIT = Duration.ZERO;
  private static final Duration VISIBILITY = Duration.ofSeconds(30);

  /** A queue of numbered items: a dequeue takes the first ones; what is given back is recorded. */
  private static final class FakeQueue implements ReceivePrefetch.Dequeuer, ReceivePrefetch.GiveBack {
    final ArrayDeque<QueueItem> ready = new ArrayDeque<>();
    final List<Integer> asks = new CopyOnWriteArrayList<>();
    final List<String> givenBack = new CopyOnWriteArrayList<>();
    final List<GiveBackReason> reasons = new CopyOnWriteArrayList<>();
    final AtomicLong millis;
    long leaseMs = 30_000;
    /** When set, the next dequeue answers with this future (completed by the test). */
    final AtomicReference<CompletableFuture<List<QueueItem>>> pending = new AtomicReference<>();

    FakeQueue(int items, AtomicLong millis) {
      this.millis = millis;
      for (int i = 0; i < items; i++) {
        ready.add(item(i));
      }
    }

    QueueItem item(int i) {
      return new QueueItem(new ItemId(0, i), "l" + i, "sqs", "q", 0, 1, new byte[0], null, Instant.EPOCH, Instant.EPOCH,
          Semantics.AT_LEAST_ONCE, null, null, null);
    }

    @Override
    public synchronized CompletableFuture<List<QueueItem>> dequeue(String namespace, String topic, int count,
        Duration wait) {
      asks.add(count);
      List<QueueItem> out = new ArrayList<>();
      while (out.size() < count && !ready.isEmpty()) {
        out.add(ready.poll().withLeaseExpiresAt(Instant.ofEpochMilli(millis.get() + leaseMs)));
      }
      CompletableFuture<List<QueueItem>> p = pending.getAndSet(null);
      if (p != null) {
        return p.thenApply(x -> out);
      }
      return CompletableFuture.completedFuture(out);
    }

    @Override
    public void giveBack(List<QueueItem> items, GiveBackReason reason) {
      items.forEach(i -> {
        givenBack.add(i.id().toString());
        reasons.add(reason);
      });
    }
  }

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
    millis.addAndGet(d.toMillis());
  }

  private ReceivePrefetch prefetch(FakeQueue q, int most, Duration maxAge) {
    return new ReceivePrefetch(most, maxAge, q, q, nanos::get, millis::get, false);
  }

  private static List<String> ids(List<QueueItem> items) {
    return items.stream().map(i -> i.id().toString()).toList();
  }

  private static List<String> range(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add("0-" + i);
    }
    return out;
  }

  @Test
  void upToTenItemsItIsOffAndEachReceiveDequeuesWhatItReturns() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 10, Duration.ofMillis(250));
    for (int i = 0; i < 5; i++) {
      assertEquals(range(i * 10, i * 10 + 10), ids(p.receive(Q, 10, NO_WAIT, VISIBILITY)));
    }
    assertEquals(List.of(10, 10, 10, 10, 10), q.asks);
    assertEquals(0, p.counts().prefetched());
    p.close();
    assertEquals(List.of(), q.givenBack);
  }

  @Test
  void aBusyQueueDequeuesMoreThanAReceiveAndTheNextReceivesTakeWhatIsHeldInOrder() throws Exception {
    FakeQueue q = new FakeQueue(500, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofMillis(250));
    List<String> handed = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      handed.addAll(ids(p.receive(Q, 10, NO_WAIT, VISIBILITY)));
      advance(Duration.ofMillis(1));
    }
    assertEquals(range(0, 300), handed, "every item once, in the queue's order");
    assertEquals(List.of(10, 20, 40, 50), q.asks.subList(0, 4), "as many as the receives took lately, up to 50");
    assertTrue(q.asks.size() <= 10, "30 receives of 10, a dequeue of 50 for 5 of them once busy: " + q.asks);
    assertEquals(List.of(), q.givenBack);
    assertTrue(p.counts().handedFromPrefetch() > 200, p.counts().toString());
  }

  @Test
  void anItemHeldPastMaxAgeIsGivenBackUnseenAndNotHandedOut() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofMillis(250));
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    p.receive(Q, 10, NO_WAIT, VISIBILITY); // asks 20: returns 10-19, holds 20-29
    assertEquals(List.of(10, 20), q.asks);
    advance(Duration.ofMillis(251));
    List<String> next = ids(p.receive(Q, 10, NO_WAIT, VISIBILITY));
    assertEquals(range(30, 40), next, "the held items are not handed out; a new dequeue's are");
    assertEquals(range(20, 30), q.givenBack);
    assertEquals(Collections.nCopies(10, GiveBackReason.SURPLUS), q.reasons);
  }

  @Test
  void theSweeperGivesBackWhatNoReceiveTook() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofMillis(250));
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    p.sweep();
    assertEquals(List.of(), q.givenBack, "not yet stale");
    advance(Duration.ofMillis(300));
    p.sweep();
    assertEquals(range(20, 30), q.givenBack);
  }

  @Test
  void anItemIsHeldAtMostATenthOfTheVisibilityTimeoutAndHalfOfWhatIsLeftOfItsLease() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofSeconds(10));
    p.receive(Q, 10, NO_WAIT, Duration.ofSeconds(1));
    p.receive(Q, 10, NO_WAIT, Duration.ofSeconds(1)); // 10 held for 100 ms at most
    advance(Duration.ofMillis(90));
    p.sweep();
    assertEquals(List.of(), q.givenBack);
    advance(Duration.ofMillis(20));
    p.sweep();
    assertEquals(range(20, 30), q.givenBack, "a tenth of a 1 s visibility timeout");

    q.leaseMs = 100; // an item enqueued when the queue's timeout was shorter than it is now
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    assertTrue(q.asks.get(q.asks.size() - 1) > 10, q.asks.toString());
    advance(Duration.ofMillis(60));
    p.sweep();
    assertEquals(30, q.givenBack.size(), "held no longer than half its lease: " + q.givenBack);
  }

  @Test
  void aVisibilityTimeoutOfZeroIsNeverPrefetched() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofMillis(250));
    for (int i = 0; i < 4; i++) {
      p.receive(Q, 10, NO_WAIT, Duration.ZERO);
    }
    assertEquals(List.of(10, 10, 10, 10), q.asks);
  }

  @Test
  void closeGivesBackWhatIsHeld() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofSeconds(10));
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    p.receive(Q, 10, NO_WAIT, VISIBILITY); // holds 20-29
    p.close();
    assertEquals(range(20, 30), q.givenBack, "held items given back on close");
    assertEquals(Collections.nCopies(10, GiveBackReason.CLOSING), q.reasons);
    assertEquals(range(30, 40), ids(p.receive(Q, 10, NO_WAIT, VISIBILITY)), "closed: nothing more held");
    assertEquals(10, q.asks.get(q.asks.size() - 1));
  }

  @Test
  void aDequeueAnsweredAfterCloseGivesBackItsSurplus() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofSeconds(10));
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    assertEquals(range(20, 30), ids(p.receive(Q, 10, NO_WAIT, VISIBILITY)), "the held ones");
    CompletableFuture<List<QueueItem>> late = new CompletableFuture<>();
    q.pending.set(late);
    CompletableFuture<List<QueueItem>> receiving = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        receiving.complete(p.receive(Q, 10, NO_WAIT, VISIBILITY)); // asks 40, answered after the close
      } catch (Exception e) {
        receiving.completeExceptionally(e);
      }
    });
    t.start();
    await().atMost(java.time.Duration.ofSeconds(10)).until(() -> q.asks.size() >= 3); // the receive's dequeue asked
    p.close();
    assertEquals(List.of(), q.givenBack, "nothing held at the close");
    late.complete(List.of());
    assertEquals(range(30, 40), ids(receiving.get(10, TimeUnit.SECONDS)));
    t.join(10_000);
    assertEquals(40, q.asks.get(2));
    assertEquals(range(40, 70), q.givenBack, "the surplus that came after the close");
    assertEquals(Collections.nCopies(30, GiveBackReason.CLOSING), q.reasons);
  }

  @Test
  void purgingAQueueGivesBackWhatIsHeldForIt() throws Exception {
    FakeQueue q = new FakeQueue(100, millis);
    ReceivePrefetch p = prefetch(q, 50, Duration.ofSeconds(10));
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    p.receive(Q, 10, NO_WAIT, VISIBILITY);
    p.drop(Q);
    assertEquals(range(20, 30), q.givenBack);
    assertEquals(range(30, 40), ids(p.receive(Q, 10, NO_WAIT, VISIBILITY)), "nothing held is handed out");
  }

  @Test
  void concurrentReceivesHandOutEachItemOnceAndLoseNone() throws Exception {
    FakeQueue q = new FakeQueue(20_000, millis);
    ReceivePrefetch p = new ReceivePrefetch(50, Duration.ofMillis(250), q, q, System::nanoTime, millis::get, false);
    List<String> handed = Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int w = 0; w < 8; w++) {
      Thread t = new Thread(() -> {
        try {
          for (int i = 0; i < 200; i++) {
            handed.addAll(ids(p.receive(Q, 10, NO_WAIT, VISIBILITY)));
            if (i % 50 == 0) {
              p.sweep();
            }
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join(60_000);
    }
    p.close();
    assertEquals(List.of(), failures);
    Set<String> seen = new HashSet<>(handed);
    assertEquals(handed.size(), seen.size(), "no item handed out twice");
    int taken = 20_000 - q.ready.size();
    Set<String> all = new HashSet<>(seen);
    all.addAll(q.givenBack);
    assertEquals(handed.size() + q.givenBack.size(), all.size(), "none both handed out and given back");
    assertEquals(taken, all.size(), "every item the dequeues took was handed out or given back");
  }
}
