package dev.ordo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** LeaseConsumers in a group against a real cluster: sharing the work, crashes, hand-overs, close. */
@KafkaCluster
class LeaseConsumerGroupTest extends LeaseConsumerTestBase {
  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    startQueue(kafka, "lcg");
  }

  @Test
  void twoConsumersInAGroupShareTheWorkAndAckEveryItem() throws Exception {
    Map<String, Set<ItemId>> processed = new ConcurrentHashMap<>();
    AtomicInteger runs = new AtomicInteger();
    LeaseConsumer a = consumer("share-group", "share", Map.of());
    LeaseConsumer b = consumer("share-group", "share", Map.of());
    a.start(item -> record(processed, "a", item, runs));
    b.start(item -> record(processed, "b", item, runs));
    await().atMost(Duration.ofSeconds(20)).until(() -> !a.assignment().isEmpty() && !b.assignment().isEmpty()
        && a.assignment().size() + b.assignment().size() == TestQueue.PARTITIONS);

    Set<ItemId> ids = enqueue("share", 40, i -> item("share", "p" + i).groupKey("g" + i));
    await().atMost(Duration.ofSeconds(20)).until(() -> a.stats().acked() + b.stats().acked() == 40);

    assertFalse(processed.getOrDefault("a", Set.of()).isEmpty(), "consumer a worked");
    assertFalse(processed.getOrDefault("b", Set.of()).isEmpty(), "consumer b worked");
    Set<ItemId> all = new HashSet<>(processed.get("a"));
    all.addAll(processed.get("b"));
    assertEquals(ids, all);
    assertEquals(40, runs.get(), "each item handled once");
  }

  @Test
  void itemsOfACrashedConsumerReachTheOtherAfterTheirLease() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    Set<ItemId> heldByCrashed = ConcurrentHashMap.newKeySet();
    Map<ItemId, Integer> survivorAttempts = new ConcurrentHashMap<>();
    LeaseConsumer crashing = consumer("crash-group", "crash", Map.of(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 4));
    crashing.start(item -> {
      heldByCrashed.add(item.id());
      never.await();
    });
    await().atMost(Duration.ofSeconds(20)).until(() -> crashing.assignment().size() == TestQueue.PARTITIONS);

    Set<ItemId> ids = enqueue("crash", 12, i -> item("crash", "p" + i).groupKey("g" + i).lease(Duration.ofSeconds(2)));
    await().atMost(Duration.ofSeconds(10)).until(() -> crashing.stats().running() == 4);

    LeaseConsumer survivor = consumer("crash-group", "crash", Map.of());
    survivor.start(item -> survivorAttempts.put(item.id(), item.attempt()));
    await().atMost(Duration.ofSeconds(20)).until(() -> !survivor.assignment().isEmpty());
    Set<ItemId> held = Set.copyOf(heldByCrashed);
    assertEquals(4, held.size(), "the crashing consumer holds its max in flight, heartbeating");

    long crashedAt = System.currentTimeMillis();
    crashing.halt();
    await().atMost(Duration.ofSeconds(30)).until(() -> survivorAttempts.keySet().containsAll(ids)
        && survivor.stats().acked() == ids.size());
    for (ItemId id : held) {
      assertEquals(2, survivorAttempts.get(id), "item " + id + " came back by lease expiry, as attempt 2");
    }
    assertTrue(System.currentTimeMillis() - crashedAt >= 1_000, "the held items waited for their lease");
    never.countDown();
  }

  @Test
  void closeLetsHandlersFinishWithinTheGraceAndReleasesWhatIsStillRunning() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    AtomicBoolean stuckInterrupted = new AtomicBoolean();
    LeaseConsumer c = consumer("close-group", "close", Map.of());
    c.start(item -> {
      if (new String(item.payload(), StandardCharsets.UTF_8).equals("finishing")) {
        finish.await();
      } else {
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          stuckInterrupted.set(true);
          throw e;
        }
      }
    });
    awaitAssigned(c);
    producer.enqueueAll(List.of(item("close", "finishing").build(), item("close", "stuck").build()))
        .get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> c.stats().running() == 2);

    CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> c.close(Duration.ofSeconds(2)));
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !closing.isDone());
    finish.countDown();
    closing.get(20, TimeUnit.SECONDS);

    assertTrue(stuckInterrupted.get(), "the handler still running after the grace was interrupted");
    assertEquals(1, c.stats().acked(), "the handler that finished in the grace was acked");
    assertTrue(c.stats().released() >= 1);
    try (QueueClient client = new QueueClient(queue.clientConfig())) {
      List<QueueItem> back = client.dequeue("close", Map.of("t", 1), Duration.ofSeconds(3)).get(10, TimeUnit.SECONDS);
      assertEquals(List.of("stuck"), back.stream().map(i -> new String(i.payload(), StandardCharsets.UTF_8)).toList());
      assertEquals(1, back.get(0).attempt(), "a release counts no attempt");
      client.ack(back.get(0)).get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aConsumerLeavingTheGroupStrandsNoItemUntilItsLeaseRunsOut() throws Exception {
    Set<ItemId> handled = ConcurrentHashMap.newKeySet();
    LeaseConsumer leaving = consumer("leave-group", "leave", Map.of(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 2));
    LeaseConsumer staying = consumer("leave-group", "leave", Map.of(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 2));
    leaving.start(item -> handled.add(item.id()));
    staying.start(item -> handled.add(item.id()));
    await().atMost(Duration.ofSeconds(20)).until(() -> !leaving.assignment().isEmpty() && !staying.assignment().isEmpty());

    // Leases of a minute: any item left in transit to the leaving consumer would hold up the test.
    CompletableFuture<Set<ItemId>> ids = CompletableFuture.supplyAsync(() ->
        enqueue("leave", 60, i -> item("leave", "p" + i).groupKey("g" + i).lease(Duration.ofMinutes(1))));
    await().atMost(Duration.ofSeconds(10)).until(() -> leaving.stats().acked() >= 5);
    leaving.close(Duration.ofSeconds(5));
    Set<ItemId> all = ids.get(20, TimeUnit.SECONDS);
    AtomicReference<String> lastSeen = new AtomicReference<>();
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        Set<ItemId> missing = new HashSet<>(all);
        missing.removeAll(handled);
        long acked = leaving.stats().acked() + staying.stats().acked();
        lastSeen.set("not handled " + missing + "; leaving " + leaving.stats() + "; staying " + staying.stats());
        return missing.isEmpty() && acked == all.size();
      });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(lastSeen.get(), e);
    }
  }

  @Test
  void itemsInTransitToAMemberThatHandedItsPartitionsOverAreAdoptedByTheNewOwner() throws Exception {
    // A member that never reads again: it committed its positions with the hand-over mark, and its
    // demand is answered after that. Without adoption these items would wait a minute for their lease.
    Set<ItemId> ids = deliverToGhost("adopt-group", "adopt", "ordo-handoff", Duration.ofMinutes(1));
    Map<ItemId, Integer> attempts = new ConcurrentHashMap<>();
    LeaseConsumer heir = consumer("adopt-group", "adopt", Map.of());
    heir.start(item -> attempts.put(item.id(), item.attempt()));
    await().atMost(Duration.ofSeconds(20)).until(() -> heir.stats().acked() == ids.size());
    assertEquals(ids, attempts.keySet());
    assertTrue(attempts.values().stream().allMatch(a -> a == 1), "adopted on their first lease: " + attempts);
    assertEquals(ids.size(), heir.stats().adopted());
  }

  @Test
  void itemsInTransitToACrashedMemberAreNotAdoptedButReturnAfterTheirLease() throws Exception {
    // No hand-over mark: the member may have read and be working on these, so they are left to their lease.
    Set<ItemId> ids = deliverToGhost("orphan-group", "orphan", "ordo-running", Duration.ofSeconds(2));
    Map<ItemId, Integer> attempts = new ConcurrentHashMap<>();
    LeaseConsumer heir = consumer("orphan-group", "orphan", Map.of());
    heir.start(item -> attempts.put(item.id(), item.attempt()));
    await().atMost(Duration.ofSeconds(20)).until(() -> heir.stats().acked() == ids.size());
    assertTrue(attempts.values().stream().allMatch(a -> a == 2), "redelivered after lease expiry: " + attempts);
    assertEquals(0, heir.stats().adopted());
  }
}
