package dev.ordo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How a LeaseConsumer ends a handler's item, against a real cluster: acks, retries with backoff,
 * dead letters, heartbeats and lost leases.
 */
@KafkaCluster
class LeaseConsumerHandlerTest extends LeaseConsumerTestBase {
  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    startQueue(kafka, "lch");
  }

  @Test
  void failingHandlerRetriesWithBackoffAndEndsInTheDeadLetterTopicAtItsAttemptLimit() throws Exception {
    List<Long> attemptTimes = new CopyOnWriteArrayList<>();
    LeaseConsumer c = consumer("fail-group", "fail", Map.of(
        LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 300L,
        LeaseConsumerConfig.BACKOFF_MAX_CONFIG, 600L,
        LeaseConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0));
    c.start(item -> {
      attemptTimes.add(System.currentTimeMillis());
      throw new IllegalStateException("downstream refused attempt " + item.attempt());
    });
    awaitAssigned(c);
    ItemId id = producer.enqueue(item("fail", "poison").maxAttempts(3).build()).get(10, TimeUnit.SECONDS);

    DeadLetter dead = awaitDeadLetter(id);
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, dead.getReason());
    assertEquals(3, dead.getAttempts());
    assertTrue(dead.getLastError().contains("downstream refused attempt 3"), dead.getLastError());
    assertEquals(3, attemptTimes.size());
    assertTrue(attemptTimes.get(1) - attemptTimes.get(0) >= 280, "first retry after ~300 ms: " + attemptTimes);
    assertTrue(attemptTimes.get(2) - attemptTimes.get(1) >= 580, "second retry after ~600 ms: " + attemptTimes);
    await().atMost(Duration.ofSeconds(10)).until(() -> c.stats().deadLettered() == 1 && c.stats().nacked() == 3);
  }

  @Test
  void anAtMostOnceItemWhoseHandlerFailsIsNotRunAgain() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    LeaseConsumer c = consumer("amo-group", "amo", Map.of(
        LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 50L,
        LeaseConsumerConfig.BACKOFF_MAX_CONFIG, 50L,
        LeaseConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0));
    c.start(item -> {
      runs.incrementAndGet();
      throw new IllegalStateException("failed after it may have acted");
    });
    awaitAssigned(c);
    producer.enqueue(item("amo", "once").atMostOnce().build()).get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> c.stats().nacked() == 1);
    // A retry would come after 50 ms: for a second, none does.
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> runs.get() == 1);
    assertEquals(0, c.stats().deadLettered());
  }

  /**
   * A consumer closed while it holds at-most-once items (one running, the rest waiting for its one
   * worker) gives them back: the queue drops the one whose handler ran (it may have acted), and makes
   * the others ready again, since no handler saw them (given back unseen, decisions D50): the next
   * consumer of the group gets each of those once, and never the one that ran.
   */
  @Test
  void anAtMostOnceItemWhoseHandlerRanIsNeverDeliveredAgainTheUnstartedOnesOnceMore() throws Exception {
    CompletableFuture<ItemId> started = new CompletableFuture<>();
    LeaseConsumer first = consumer("amo-close-group", "amoclose", Map.of(
        LeaseConsumerConfig.WORKERS_CONFIG, 1, LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 20));
    first.start(item -> {
      started.complete(item.id());
      new CountDownLatch(1).await(); // until the close interrupts it
    });
    awaitAssigned(first);
    Set<ItemId> ids = enqueue("amoclose", 5, i -> item("amoclose", "amo-" + i).atMostOnce());
    started.get(20, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(20)).until(() -> first.stats().delivered() == 5);
    try (QueueClient stats = new QueueClient(queue.clientConfig())) {
      await().atMost(Duration.ofSeconds(20)).until(() -> leased(stats, "amoclose") == 5);

      // The handler blocks until interrupted, so the close always runs its grace out before it
      // interrupts: a second of grace takes the same path as ten.
      first.close(Duration.ofSeconds(1));
      assertTrue(first.stats().released() >= 4, "the items waiting for the worker were given back: " + first.stats());

      Set<ItemId> again = ConcurrentHashMap.newKeySet();
      LeaseConsumer second = consumer("amo-close-group", "amoclose", Map.of());
      second.start(item -> again.add(item.id()));
      awaitAssigned(second);
      await().atMost(Duration.ofSeconds(20)).until(() -> total(stats, "amoclose") == 0);
      Set<ItemId> unstarted = new java.util.HashSet<>(ids);
      unstarted.remove(started.get());
      await().atMost(Duration.ofSeconds(10)).until(() -> again.equals(unstarted));
      assertEquals(unstarted.size(), second.stats().delivered(), "each unstarted item once: " + second.stats());
      assertTrue(ids.containsAll(List.of(started.get())), "the running item was one of them");
    }
  }

  private static long leased(QueueClient client, String namespace) throws Exception {
    return client.activeTopics(namespace).get(10, TimeUnit.SECONDS).stream().mapToLong(TopicActivity::leased).sum();
  }

  private static long total(QueueClient client, String namespace) throws Exception {
    return client.activeTopics(namespace).get(10, TimeUnit.SECONDS).stream().mapToLong(TopicActivity::total).sum();
  }

  @Test
  void handlerSignalsChooseTheRetryDelayOrAnImmediateDeadLetter() throws Exception {
    Map<String, List<Long>> seen = new ConcurrentHashMap<>();
    LeaseConsumer c = consumer("signal-group", "signal", Map.of(LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 60_000L));
    c.start(item -> {
      String payload = new String(item.payload(), StandardCharsets.UTF_8);
      seen.computeIfAbsent(payload, k -> new CopyOnWriteArrayList<>()).add(System.currentTimeMillis());
      if (payload.equals("malformed")) {
        throw new DeadLetterNow("cannot parse " + payload);
      }
      if (item.attempt() == 1) {
        throw new RetryLater(Duration.ofMillis(700), "rate limited", "resume-at-7".getBytes(StandardCharsets.UTF_8), null);
      }
      assertEquals("resume-at-7", new String(item.metadata(), StandardCharsets.UTF_8));
    });
    awaitAssigned(c);
    ItemId malformed = producer.enqueue(item("signal", "malformed").maxAttempts(5).build()).get(10, TimeUnit.SECONDS);
    producer.enqueue(item("signal", "later").build()).get(10, TimeUnit.SECONDS);

    DeadLetter dead = awaitDeadLetter(malformed);
    assertEquals(DeadLetterReason.REJECTED, dead.getReason());
    assertEquals(1, dead.getAttempts());
    assertTrue(dead.getDetail().contains("cannot parse malformed"), dead.getDetail());
    await().atMost(Duration.ofSeconds(10)).until(() -> c.stats().acked() == 1);
    List<Long> later = seen.get("later");
    assertEquals(2, later.size());
    assertTrue(later.get(1) - later.get(0) >= 650, "retried after the handler's delay, not the backoff: " + later);
  }

  @Test
  void longHandlerKeepsItsLeaseByHeartbeatsAndIsAckedOnce() throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    LeaseConsumer c = consumer("long-group", "long", Map.of());
    c.start(item -> {
      runs.incrementAndGet();
      done.await();
    });
    awaitAssigned(c);
    producer.enqueue(item("long", "slow").lease(Duration.ofSeconds(1)).build()).get(10, TimeUnit.SECONDS);

    // Running for three and more leases, kept alive by heartbeats alone.
    await().atMost(Duration.ofSeconds(15)).until(() -> c.stats().heartbeats() >= 6);
    done.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> c.stats().acked() == 1);
    // Still one run 1.5 s on (a second run would stay counted); atMost leaves a loaded machine's poll thread time.
    await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 1);
    assertEquals(0, c.stats().leaseLost());
    assertEquals(0, c.stats().ackRefused());
  }

  @Test
  void cancellingARunningItemInterruptsItsHandler() throws Exception {
    CompletableFuture<ItemId> started = new CompletableFuture<>();
    CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
    LeaseConsumer c = consumer("cancel-group", "cancel", Map.of());
    c.start(item -> {
      started.complete(item.id());
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.complete(item.leaseLost());
        throw e;
      }
    });
    awaitAssigned(c);
    producer.enqueue(item("cancel", "x").lease(Duration.ofSeconds(2)).build()).get(10, TimeUnit.SECONDS);

    ItemId id = started.get(10, TimeUnit.SECONDS);
    assertEquals(CommandOutcome.Result.APPLIED, c.client().cancel(id).get(10, TimeUnit.SECONDS).result());
    assertTrue(interrupted.get(10, TimeUnit.SECONDS), "interrupted with its lease marked lost");
    await().atMost(Duration.ofSeconds(5)).until(() -> c.stats().running() == 0);
    assertEquals(1, c.stats().leaseLost());
    assertEquals(0, c.stats().nacked() + c.stats().acked());
  }

  @Test
  void handlerWhoseHeartbeatsFailIsInterruptedWhenItsLeaseRunsOutAndTheItemReturns() throws Exception {
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    AtomicBoolean interrupted = new AtomicBoolean();
    LeaseConsumer c = consumer("expire-group", "expire", Map.of(), () -> true); // no heartbeat goes
    c.start(item -> {
      attempts.add(item.attempt());
      if (item.attempt() == 1) {
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          interrupted.set(true);
          throw e;
        }
      }
    });
    awaitAssigned(c);
    producer.enqueue(item("expire", "x").lease(Duration.ofSeconds(1)).build()).get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(15)).until(() -> c.stats().acked() == 1);
    assertTrue(interrupted.get());
    assertEquals(List.of(1, 2), attempts);
    assertEquals(1, c.stats().leaseLost());
  }
}
