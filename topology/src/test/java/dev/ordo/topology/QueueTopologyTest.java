package dev.ordo.topology;

import static dev.ordo.topology.QueueDriver.ALICE;
import static dev.ordo.topology.QueueDriver.BOB;
import static dev.ordo.topology.QueueDriver.item;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.store.internal.KeyFamily;

import dev.ordo.schema.Ack;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.schema.DeliveredItem;
import org.apache.kafka.streams.test.TestRecord;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Demand;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.PolicyDefaults;
import dev.ordo.schema.ReturnReason;
import dev.ordo.schema.TopicStats;
import dev.ordo.topology.internal.NamespaceStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class QueueTopologyTest {
  private QueueDriver q = new QueueDriver();

  @AfterEach
  void close() {
    q.close();
  }

  private static String text(ByteBuffer b) {
    return b == null ? null : StandardCharsets.UTF_8.decode(b.duplicate()).toString();
  }

  private static List<String> ids(List<DeliveredItem> ds) {
    return ds.stream().map(DeliveredItem::getItemId).toList();
  }

  private DeliveredItem one() {
    List<DeliveredItem> ds = q.delivered();
    assertEquals(1, ds.size(), "expected exactly one delivery, got " + ds);
    return ds.get(0);
  }

  @Test
  void itemIdIsPartitionAndOffsetAndDeliveryCarriesTheItem() {
    String id = q.enqueue(item("t", 7).setMetadata(ByteBuffer.wrap("m".getBytes(StandardCharsets.UTF_8))).build());
    assertEquals("0-0", id);
    q.demand(ALICE, "t", 1);
    DeliveredItem d = one();
    assertEquals(id, d.getItemId());
    assertEquals("t", d.getTopic());
    assertEquals(7, d.getPriority());
    assertEquals(1, d.getAttempt());
    assertEquals("p7", text(d.getPayload()));
    assertEquals("m", text(d.getMetadata()));
    assertEquals(q.now() + 30_000, d.getLeaseExpiresAt(), "default lease is 30 s");
    assertEquals(1, q.metrics.get(QueueMetrics.DISPATCHED));
  }

  @Test
  void dequeueIsLowestPriorityFirstAcrossTheWholeInt32RangeThenReadyTimeThenOffset() {
    String max = q.enqueue(item("t", Integer.MAX_VALUE).build());
    String zero1 = q.enqueue(item("t", 0).build());
    String neg = q.enqueue(item("t", -5).build());
    String min = q.enqueue(item("t", Integer.MIN_VALUE).build());
    q.advance(Duration.ofMillis(10));
    String zero2 = q.enqueue(item("t", 0).build());
    String one = q.enqueue(item("t", 1).build());
    String zero3 = q.enqueue(item("t", 0).build()); // same ready time as zero2: enqueue order breaks the tie
    q.demand(ALICE, "t", 10);
    assertEquals(List.of(min, neg, zero1, zero2, zero3, one, max), ids(q.delivered()));
  }

  @Test
  void aDemandLargerThanTheDispatchStepGetsTheRestStepByStepInOrderAndNewItemsQueueBehind() {
    try (QueueDriver d = new QueueDriver(Map.of(QueueConfig.DISPATCH_STEP_CONFIG, 4))) {
      List<String> ids = new java.util.ArrayList<>();
      for (int i = 0; i < 14; i++) {
        ids.add(d.enqueue(item("t", 5).build()));
      }
      d.demand(ALICE, "t", 15);
      assertEquals(ids.subList(0, 4), ids(d.delivered()), "the demand's record leases one step");
      // An arrival is not leased on arrival ahead of the ready items; its record's dispatch serves a
      // step of the demand in the queue's order.
      String late = d.enqueue(item("t", 5).build());
      assertEquals(ids.subList(4, 8), ids(d.delivered()));
      // The continuation's first punctuation after a record lets the thread poll; the next serves a step.
      d.advance(Duration.ofMillis(1));
      assertEquals(List.of(), ids(d.delivered()), "a step right after a record");
      d.advance(Duration.ofMillis(1));
      assertEquals(ids.subList(8, 12), ids(d.delivered()));
      d.advance(Duration.ofMillis(1));
      List<String> rest = new java.util.ArrayList<>(ids.subList(12, 14));
      rest.add(late);
      assertEquals(rest, ids(d.delivered()), "the rest, the late item last");
      d.advance(Duration.ofMillis(1));
      assertEquals(List.of(), ids(d.delivered()), "the demand had its 15");
    }
  }

  @Test
  void aPendingDispatchStepsOnWithinATenthOfASecondWhileRecordsKeepComing() {
    try (QueueDriver d = new QueueDriver(Map.of(QueueConfig.DISPATCH_STEP_CONFIG, 4))) {
      for (int i = 0; i < 10; i++) {
        d.enqueue(item("t", 5).build());
      }
      d.demand(ALICE, "t", 10);
      assertEquals(4, d.delivered().size());
      int steps = 0;
      for (int ms = 1; ms <= 100; ms++) {
        d.command(BOB, new Ack("0-999", "a1-0")); // a record before every punctuation (an unknown item)
        d.advance(Duration.ofMillis(1));
        int n = d.delivered().size();
        if (n > 0) {
          assertEquals(4, n, "one step");
          assertTrue(ms >= 100, "a step " + ms + " ms after the last, with a record since the last punctuation");
          steps++;
        }
      }
      assertEquals(1, steps, "a step at the latest 100 ms after the last");
    }
  }

  @Test
  void demandTakesAtMostTheCountAskedAndOnlyTheTopicsAsked() {
    q.enqueue(item("a", 1).build());
    q.enqueue(item("a", 2).build());
    String b = q.enqueue(item("b", 0).build());
    q.demand(ALICE, "a", 1);
    List<DeliveredItem> first = q.delivered();
    assertEquals(1, first.size());
    assertEquals("a", first.get(0).getTopic());
    assertEquals(1, first.get(0).getPriority());
    q.demand(ALICE, "b", 5);
    assertEquals(List.of(b), ids(q.delivered()));
  }

  @Test
  void aDemandThatAsksForAShortAnswerIsToldAtOnceWhenThePartitionHasFewerItems() {
    q.enqueue(item("s", 1).build());
    q.command(ALICE, new Demand("ns", new HashMap<>(Map.of("s", 3)), 30_000L, true, true, false, -1L, 0L));
    assertEquals(1, q.delivered().size(), "what there is, at once");
    List<Outcome> answers = q.outcomes();
    assertEquals(1, answers.size(), "and one short answer");
    assertEquals(CommandKind.DEMAND, answers.get(0).getCommand());
    assertEquals(OutcomeResult.APPLIED, answers.get(0).getResult());
    assertEquals(0, answers.get(0).getPartition(), "naming the partition");

    q.enqueue(item("s2", 1).build());
    q.enqueue(item("s2", 2).build());
    q.command(BOB, new Demand("ns", new HashMap<>(Map.of("s2", 2)), 30_000L, true, true, false, -1L, 0L));
    assertEquals(2, q.delivered().size());
    assertTrue(q.outcomes().isEmpty(), "a demand served in full needs no answer");
    q.command(BOB, new Demand("ns", new HashMap<>(Map.of("s2", 2)), 30_000L, true, false, false, -1L, 0L));
    assertTrue(q.outcomes().isEmpty(), "nor one that did not ask");
  }

  @Test
  void aNamespacePolicyGivesDefaultsToItemsThatLeaveThemEmptyAndAChangeAppliesToTheNextItem() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0)
        .setDefaults(PolicyDefaults.newBuilder().setLeaseMs(7_000L).setMaxAttempts(2).setAtMostOnce(true)
            .setMaxPayloadBytes(4).build())
        .build());
    q.enqueue(item("pol", 0).build()); // payload "p0": 2 bytes
    q.enqueue(item("pol", 1).setLeaseDurationMs(9_000L).setDeliverySemantics(DeliverySemantics.AT_LEAST_ONCE).build());
    q.demand(ALICE, "pol", 5);
    List<DeliveredItem> got = q.delivered();
    assertEquals(2, got.size());
    long now = q.now();
    assertEquals(now + 7_000, got.get(0).getLeaseExpiresAt(), "the policy's lease");
    assertEquals(DeliverySemantics.AT_MOST_ONCE, got.get(0).getSemantics(), "the policy's semantics");
    assertEquals(now + 9_000, got.get(1).getLeaseExpiresAt(), "an item's own lease wins");
    assertEquals(DeliverySemantics.AT_LEAST_ONCE, got.get(1).getSemantics());

    q.enqueue(item("pol", 2).setPayload(ByteBuffer.wrap("12345".getBytes(StandardCharsets.UTF_8))).build());
    List<DeadLetter> dls = q.deadLetters();
    assertEquals(1, dls.size(), "over the namespace's payload limit");
    assertTrue(dls.get(0).getDetail().contains("limit of 4 of namespace ns"), dls.get(0).getDetail());

    q.policy("ns", null); // deleted: the server's defaults again, once the processor looks again
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS));
    q.enqueue(item("pol", 3).setPayload(ByteBuffer.wrap("12345".getBytes(StandardCharsets.UTF_8))).build());
    q.demand(ALICE, "pol", 5);
    List<DeliveredItem> after = q.delivered();
    assertEquals(1, after.size(), "the server's payload limit");
    assertEquals(DeliverySemantics.AT_LEAST_ONCE, after.get(0).getSemantics());
    assertEquals(q.now() + 30_000, after.get(0).getLeaseExpiresAt(), "the server's lease");
    assertTrue(q.deadLetters().isEmpty());
  }

  @Test
  void itemsOverTheAdmissionRateWaitInOverflowVisibleInTheStatsAndAreAdmittedInArrivalOrder() {
    try (QueueDriver d = new QueueDriver(Map.of(QueueConfig.STATS_MS_CONFIG, 100L))) {
      d.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0)
          .setAdmissionRate(new dev.ordo.schema.Rate(10.0, 2L)).build());
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        ids.add(d.enqueue(item("adm", 5).build()));
      }
      d.advance(Duration.ofMillis(100)); // the stats go out: 2 admitted at once, at most 1 since
      TopicStats stats = d.stats().get(0).getValue();
      assertEquals(12, stats.getReady() + stats.getOverflow(), "nothing dropped: " + stats);
      assertTrue(stats.getOverflow() >= 9 && stats.getOverflow() <= 10, "waiting in OVERFLOW: " + stats);
      assertTrue(stats.getArrivalsPerSecond() > 0, "the arrival rate is published: " + stats);

      d.advance(Duration.ofMillis(900));
      d.demand(ALICE, "adm", 100);
      List<DeliveredItem> first = d.delivered();
      assertTrue(first.size() >= 11, "after 1 s at 10/s with a burst of 2: " + first.size());
      List<String> order = new ArrayList<>(ids(first));
      d.advance(Duration.ofMillis(200));
      order.addAll(ids(d.delivered()));
      assertEquals(ids, order, "admitted in arrival order");
    }
  }

  @Test
  void overflowIsAdmittedAtTheRateWhileADemandWaits() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0)
        .setAdmissionRate(new dev.ordo.schema.Rate(5.0, 1L)).build());
    q.demand(ALICE, "slow", 100);
    for (int i = 0; i < 6; i++) {
      q.enqueue(item("slow", 0).build());
    }
    assertEquals(1, q.delivered().size(), "the burst of one goes at once");
    q.advance(Duration.ofMillis(200));
    assertEquals(1, q.delivered().size(), "one more per 200 ms");
    q.advance(Duration.ofMillis(400));
    assertEquals(2, q.delivered().size());
    q.policy("ns", null); // no policy: what waits is admitted at once
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    assertEquals(2, q.delivered().size(), "the rest");
    q.advance(Duration.ofMillis(1_000));
    q.stats();
    q.enqueue(item("slow", 0).build());
    assertEquals(1, q.delivered().size());
  }

  private static NamespacePolicy paused(java.util.Map<String, Long> topics, Long namespaceSince) {
    return NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setPolicySet(false)
        .setPausedTopics(new HashMap<>(topics)).setPausedAt(namespaceSince).build();
  }

  @Test
  void aPausedTopicTakesItemsInLeasesNoneAndServesTheWaitingDemandOnResume() {
    DeliveredItem before = null;
    q.enqueue(item("t", 0).setLeaseDurationMs(60_000L).build());
    q.demand(ALICE, "t", 1);
    before = one();
    q.policy("ns", paused(Map.of("t", q.now()), null));
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));

    String waiting = q.enqueue(item("t", 0).build());
    String other = q.enqueue(item("other", 0).build());
    q.demand(ALICE, Map.of("t", 5, "other", 5), Duration.ofSeconds(30));
    assertEquals(List.of(other), ids(q.delivered()), "the topic next to it is served; the paused one is not");
    q.demand(BOB, Map.of("*", 5), Duration.ofSeconds(30));
    assertTrue(q.delivered().isEmpty(), "an any-topic demand passes the paused topic over");
    q.advance(Duration.ofSeconds(2));
    assertTrue(q.delivered().isEmpty(), "timer runs lease nothing of it either");

    q.ack(before);
    assertEquals(OutcomeResult.APPLIED, q.outcomes().get(0).getResult(), "a lease already out runs its course");
    assertEquals(1, q.metrics.get(QueueMetrics.ACKED));

    q.policy("ns", paused(Map.of(), null)); // resumed
    q.advance(Duration.ofMillis(1_200));
    List<DeliveredItem> after = q.delivered();
    assertEquals(List.of(waiting), ids(after), "the demand that waited is served on resume, without a new item");
  }

  @Test
  void aPausedNamespaceLeasesNothingOfAnyTopicButItsLeasesStillExpireAndOtherNamespacesAreServed() {
    q.enqueue(item("a", 0).setLeaseDurationMs(1_000L).build());
    q.demand(ALICE, "a", 1);
    DeliveredItem leased = one();
    q.policy("ns", paused(Map.of(), q.now()));
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));

    q.enqueue(item("b", 0).build());
    q.enqueue(item("c", 0).setNamespace("free").build());
    q.demand(BOB, Map.of("a", 5, "b", 5, "*", 5), Duration.ofSeconds(30));
    q.demand(ALICE, "free", Map.of("c", 1), Duration.ofSeconds(30));
    List<DeliveredItem> got = q.delivered();
    assertEquals(1, got.size(), "only the namespace that is not paused: " + got);
    assertEquals("free", got.get(0).getNamespace());

    q.advance(Duration.ofMillis(1_500));
    assertEquals(1, q.metrics.get(QueueMetrics.LEASE_EXPIRED), "the lease out ran out as ever");
    assertTrue(q.delivered().isEmpty(), "and its item, ready again, waits for the resume");

    q.policy("ns", paused(Map.of(), null));
    q.advance(Duration.ofMillis(1_200));
    List<DeliveredItem> after = q.delivered();
    assertEquals(2, after.size(), "both topics' items go to the demand that waited: " + after);
    assertTrue(ids(after).contains(leased.getItemId()));
    assertEquals(2, after.stream().filter(d -> d.getItemId().equals(leased.getItemId())).findFirst().orElseThrow()
        .getAttempt(), "its expiry counted an attempt, as without a pause");
  }

  @Test
  void aPurgeDeletesTheTopicsOlderItemsAtItsRateLeavesLeasedAndNewerOnesAndCountsThemByState() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.PURGE_RATE_CONFIG, 5.0)); // a second's worth (5) at once, then 1 per 200 ms
    q.enqueue(item("t", 0).setLeaseDurationMs(60_000L).build());
    q.demand(ALICE, "t", 1);
    DeliveredItem leased = one();
    List<String> old = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      old.add(q.enqueue(item("t", 1).build()));
    }
    old.add(q.enqueue(item("t", 1).setDeliverAfter(q.now() + 600_000L).build())); // DELAYED
    String otherTopic = q.enqueue(item("other", 1).build());
    q.advance(Duration.ofMillis(100));
    long cutoff = q.now();
    q.advance(Duration.ofMillis(100));
    String newer = q.enqueue(item("t", 1).build());
    long end = q.nextOffset();
    q.command(null, new dev.ordo.schema.Purge("job-1", "ns", "t", cutoff, false, end, 1, q.now()));
    List<dev.ordo.schema.PurgeProgress> progress = q.purgeProgress();
    assertEquals(1, progress.size(), "the job starts: " + progress);
    assertEquals(dev.ordo.schema.PurgeStatus.RUNNING, progress.get(0).getStatus());
    q.command(null, new dev.ordo.schema.Purge("job-1", "ns", "t", cutoff, false, end, 1, q.now()));
    assertTrue(q.purgeProgress().isEmpty(), "a repeated command starts nothing");

    q.advance(Duration.ofMillis(40));
    progress = q.purgeProgress();
    long purgedSoFar = progress.get(progress.size() - 1).getPurged().values().stream().mapToLong(Long::longValue).sum();
    assertEquals(5, purgedSoFar, "a second's worth at once");
    q.advance(Duration.ofMillis(400));
    progress = q.purgeProgress();
    purgedSoFar = progress.get(progress.size() - 1).getPurged().values().stream().mapToLong(Long::longValue).sum();
    assertEquals(7, purgedSoFar, "then at the rate");

    q.advance(Duration.ofMillis(1_000));
    progress = q.purgeProgress();
    dev.ordo.schema.PurgeProgress last = progress.get(progress.size() - 1);
    assertEquals(dev.ordo.schema.PurgeStatus.DONE, last.getStatus(), last::toString);
    assertEquals(Map.of("READY", 10L, "DELAYED", 1L), last.getPurged(), last::toString);
    assertEquals(1, last.getLeasedLeft(), "the leased item is left alone");
    assertEquals(11, q.metrics.get(QueueMetrics.PURGED));
    assertEquals(10.0, q.registry.get("ordo.items.purged").tags("namespace", "ns", "topic", "t", "state", "READY")
        .counter().count());

    q.ack(leased);
    assertEquals(OutcomeResult.APPLIED, q.outcomes().get(0).getResult(), "the lease runs its course");
    q.demand(BOB, Map.of("t", 20, "other", 5), Duration.ofSeconds(30));
    assertEquals(java.util.Set.of(newer, otherTopic), new java.util.HashSet<>(ids(q.delivered())),
        "what was enqueued after the cutoff, and the other topic, stay");
    assertFalse(old.contains(newer));
  }

  @Test
  void theDispatchRateLeasesAtTheRateWhileDemandsWaitAndLeavesOtherNamespacesAlone() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0)
        .setDispatchRate(new dev.ordo.schema.Rate(5.0, 2L)).build());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ids.add(q.enqueue(item("paced", 0).build()));
    }
    q.demand(ALICE, "paced", 10);
    List<String> order = new ArrayList<>(ids(q.delivered()));
    assertEquals(2, order.size(), "the burst of 2 at once; the demand waits for the rest");
    q.advance(Duration.ofMillis(200));
    order.addAll(ids(q.delivered()));
    assertEquals(3, order.size(), "one more per 200 ms");
    q.advance(Duration.ofMillis(1_000));
    order.addAll(ids(q.delivered()));
    assertEquals(8, order.size(), "5 a second");
    assertEquals(ids.subList(0, 8), order, "in the ready order");

    q.enqueue(item("free", 0).setNamespace("other").build());
    q.enqueue(item("free", 0).setNamespace("other").build());
    q.demand(ALICE, "other", Map.of("free", 2), Duration.ofSeconds(5));
    assertEquals(2, q.delivered().size(), "another namespace is not limited");

    q.advance(Duration.ofMillis(400));
    order.addAll(ids(q.delivered()));
    assertEquals(ids, order, "the demand of 10 is served to the end");
    String arriving = q.enqueue(item("paced", 0).build());
    q.demand(ALICE, Map.of("*", 1), Duration.ofSeconds(5));
    assertTrue(q.delivered().isEmpty(), "no token left: an any-topic demand waits too");
    q.advance(Duration.ofMillis(200));
    assertEquals(List.of(arriving), ids(q.delivered()));

    q.policy("ns", null); // the rate is gone: leases at once again
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    for (int i = 0; i < 5; i++) {
      q.enqueue(item("paced", 0).build());
    }
    q.demand(ALICE, "paced", 5);
    assertEquals(5, q.delivered().size());
  }

  @Test
  void itemsReadyLongerThanSidelineAfterAreServedAfterTheFreshItemsOfTheirPriority() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setSidelineAfterMs(1_000L).build());
    String old1 = q.enqueue(item("lane", 5).build());
    String old2 = q.enqueue(item("lane", 5).build());
    String oldUrgent = q.enqueue(item("lane", 1).build());
    q.enqueue(item("lane", 5).setTtlMs(2_300L).build());
    q.advance(Duration.ofMillis(2_000));
    String fresh1 = q.enqueue(item("lane", 5).build());
    String fresh2 = q.enqueue(item("lane", 5).build());

    q.demand(ALICE, "lane", 2);
    assertEquals(List.of(oldUrgent, fresh1), ids(q.delivered()),
        "a lower priority number first whatever its age; within priority 5 the fresh lane first");
    q.advance(Duration.ofMillis(500)); // the item with a time to live expires in the backlog lane
    q.demand(ALICE, Map.of("*", 10), Duration.ofSeconds(5));
    assertEquals(List.of(fresh2, old1, old2), ids(q.delivered()), "then the backlog lane, oldest first");
    assertEquals(1, q.metrics.get(QueueMetrics.TTL_EXPIRED), "time to live applies in the backlog lane");
    assertEquals(4, q.metrics.get(QueueMetrics.SIDELINED), "the four items ready for 2 s, whatever their priority");
  }

  @Test
  void groupsOfOnePriorityAreServedInTurnAndItemsWithoutAGroupAreEachAGroup() {
    List<String> bob = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      bob.add(q.enqueue(item("fair", 3).setGroupKey("bob").build()));
    }
    List<String> alice = List.of(q.enqueue(item("fair", 3).setGroupKey("alice").build()),
        q.enqueue(item("fair", 3).setGroupKey("alice").build()));
    String loner = q.enqueue(item("fair", 3).build());
    String urgent = q.enqueue(item("fair", 1).setGroupKey("bob").build());
    q.demand(ALICE, "fair", 10);
    assertEquals(List.of(urgent, bob.get(0), alice.get(0), loner, bob.get(1), alice.get(1), bob.get(2), bob.get(3),
        bob.get(4), bob.get(5)), ids(q.delivered()),
        "priority first; within priority 3 one item of each group in turn, the group-less item as a group of its own");
  }

  @Test
  void aGroupArrivingBehindABacklogIsServedNextAndARetryGoesToTheBackOfItsGroup() {
    List<String> bob = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      bob.add(q.enqueue(item("fair", 0).setGroupKey("bob").build()));
    }
    q.demand(ALICE, "fair", 3);
    List<DeliveredItem> first = q.delivered();
    assertEquals(bob.subList(0, 3), ids(first));
    String alice = q.enqueue(item("fair", 0).setGroupKey("alice").build());
    q.nack(first.get(0), 0, null); // back to READY: behind bob's other ready items
    q.demand(ALICE, "fair", 2);
    assertEquals(List.of(alice, bob.get(3)), ids(q.delivered()), "alice waits for no more than one of bob's");
    q.demand(ALICE, "fair", 20);
    List<String> rest = ids(q.delivered());
    assertEquals(bob.get(0), rest.get(rest.size() - 1), "the retry went to the back of bob's line");
    assertEquals(bob.subList(4, 10), rest.subList(0, 6));
  }

  @Test
  void groupWeightsFromThePolicySetTheShareOfEachGroup() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0)
        .setGroupWeights(Map.of("heavy", 3.0)).build());
    for (int i = 0; i < 30; i++) {
      q.enqueue(item("w", 0).setGroupKey("heavy").build());
    }
    for (int i = 0; i < 30; i++) {
      q.enqueue(item("w", 0).setGroupKey("light").build());
    }
    q.demand(ALICE, "w", 20);
    List<DeliveredItem> got = q.delivered();
    long heavy = got.stream().filter(d -> "heavy".equals(d.getGroupKey())).count();
    assertEquals(15, heavy, "3:1 while both have items: " + got.stream().map(DeliveredItem::getGroupKey).toList());
  }

  @Test
  void aGroupAtItsConcurrencyLimitIsPassedOverAndServedAgainWhenALeaseEnds() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setGroupConcurrency(2)
        .setGroupConcurrencyOverrides(Map.of("alice", 1)).build());
    List<String> bob = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      bob.add(q.enqueue(item("lim", 0).setGroupKey("bob").build()));
    }
    List<String> alice = List.of(q.enqueue(item("lim", 0).setGroupKey("alice").build()),
        q.enqueue(item("lim", 0).setGroupKey("alice").build()));
    String loner = q.enqueue(item("lim", 0).build());
    q.demand(ALICE, "lim", 10);
    List<DeliveredItem> first = q.delivered();
    assertEquals(List.of(bob.get(0), alice.get(0), loner, bob.get(1)), ids(first),
        "bob's limit of 2 and alice's own limit of 1; the rest of the demand waits");

    q.ack(first.get(0)); // bob has a lease free: the waiting demand gets his next
    assertEquals(List.of(bob.get(2)), ids(q.delivered()));
    q.nack(first.get(1), 0, null); // alice's nacked item comes back and is hers to take again
    assertEquals(List.of(alice.get(1)), ids(q.delivered()), "alice's next, her nacked one goes behind it");
    assertTrue(q.metrics.get(QueueMetrics.GROUP_LIMITED) > 0);

    q.policy("ns", null); // no limit: the rest at once
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));
    q.demand(ALICE, "lim", 100);
    List<String> rest = ids(q.delivered());
    assertEquals(48, rest.size(), "47 of bob's and alice's nacked one: " + rest);
  }

  @Test
  void aLimitSetWhileAGroupsItemsAreFlatHoldsAndPassesEachOfThemOnce() {
    // No policy yet: every group's ready items sit in the ready index itself (decisions D48).
    List<String> bob = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      bob.add(q.enqueue(item("late", 0).setGroupKey("bob").build()));
    }
    List<String> alice = List.of(q.enqueue(item("late", 0).setGroupKey("alice").build()),
        q.enqueue(item("late", 0).setGroupKey("alice").build()));
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0)
        .setGroupConcurrencyOverrides(Map.of("bob", 1)).build());
    q.advance(Duration.ofMillis(NamespaceStore.Reader.RECHECK_MS + 20));

    q.demand(ALICE, "late", 10);
    List<DeliveredItem> first = q.delivered();
    assertEquals(List.of(bob.get(0), alice.get(0), alice.get(1)), ids(first), "bob's limit of 1 holds for his flat items");
    assertEquals(9, q.metrics.get(QueueMetrics.GROUP_LIMITED), "each of bob's other items passed once, into his queue");
    q.demand(BOB, "late", 10);
    assertEquals(List.of(), q.delivered());
    assertEquals(10, q.metrics.get(QueueMetrics.GROUP_LIMITED), "then bob is passed at one entry");

    List<String> served = new ArrayList<>(List.of(bob.get(0)));
    DeliveredItem held = first.get(0);
    for (int i = 1; i < 10; i++) {
      q.ack(held);
      List<DeliveredItem> next = q.delivered();
      assertEquals(1, next.size(), "a freed lease gives bob his next, and only it");
      held = next.get(0);
      served.add(held.getItemId());
    }
    assertEquals(bob, served, "in his order");
  }

  @Test
  void anyTopicDemandMergesTheNamespaceTopicsInPriorityOrder() {
    String a5 = q.enqueue(item("a", 5).build());
    String b1 = q.enqueue(item("b", 1).build());
    String c3 = q.enqueue(item("c", 3).build());
    q.enqueue(item("a", 9).setNamespace("other").build());
    q.demand(ALICE, Map.of("*", 3), Duration.ofSeconds(5));
    assertEquals(List.of(b1, c3, a5), ids(q.delivered()));
  }

  @Test
  void itemsArrivingWhileDemandIsOpenAreDispatchedAtOnce() {
    q.demand(ALICE, "t", 2);
    assertTrue(q.delivered().isEmpty());
    String id = q.enqueue(item("t", 0).build());
    assertEquals(List.of(id), ids(q.delivered()));
    q.enqueue(item("t", 0).build());
    assertEquals(1, q.delivered().size());
    q.enqueue(item("t", 0).build());
    assertTrue(q.delivered().isEmpty(), "the demand of 2 is used up");
  }

  @Test
  void anItemArrivingForAnOpenDemandIsLeasedWithoutEverBeingIndexedAsReady() {
    q.demand(ALICE, "t", 1);
    String id = q.enqueue(item("t", 0).build());
    assertEquals(List.of(id), ids(q.delivered()));
    assertTrue(q.indexKeys().stream().noneMatch(k -> k[0] == KeyFamily.READY || k[0] == KeyFamily.AGE),
        "no ready or age entry");
    String later = q.enqueue(item("t", 0).build());
    assertTrue(q.delivered().isEmpty(), "the demand of 1 is used up");
    assertTrue(q.indexKeys().stream().anyMatch(k -> k[0] == KeyFamily.READY), "with no demand it waits as READY");
    q.demand(ALICE, "t", 1);
    assertEquals(List.of(later), ids(q.delivered()));
  }

  @Test
  void onlyTheStateLogReachesTheChangelogTheItemTableAndTheIndexesStayLocal() {
    q.demand(ALICE, "t", 1);
    q.enqueue(item("t", 0).build());
    q.enqueue(item("t", 3).setTtlMs(60_000L).build());
    q.enqueue(item("t", 1).setDeliverAfter(q.now() + 5_000).build());
    List<byte[]> keys = q.changelogKeys();
    assertFalse(keys.isEmpty());
    assertTrue(keys.stream().allMatch(k -> k[0] == KeyFamily.STATE_BLOCK || k[0] == KeyFamily.META),
        "only the state log's blocks and the generation, high-water and change marks are changelogged");
    assertEquals(List.of(), q.itemTableChangelogKeys(), "the item table has no changelog");
    assertTrue(q.indexKeys().stream().anyMatch(k -> k[0] == KeyFamily.TIMER), "the timers are in the index store");
    assertTrue(q.indexKeys().stream().noneMatch(k -> k[0] == KeyFamily.COUNTS),
        "the counts stay in memory while the task runs (written at an orderly close)");
  }

  @Test
  void theStateLogsChangesReachTheChangelogAtTheCommitOneRecordPerBlockTheMarksAfterThem() {
    // The test driver commits after every record; the commit hook writes out what the record changed.
    q.enqueue(item("t", 0).build());
    List<byte[]> keys = q.changelogKeys();
    assertEquals(4, keys.size(), "the generation, the item's block, the high-water mark, the count of changes");
    assertArrayEquals(new byte[] {KeyFamily.META, 'i'}, keys.get(0), "a new generation first, before any change");
    assertEquals(KeyFamily.STATE_BLOCK, keys.get(1)[0]);
    assertArrayEquals(new byte[] {KeyFamily.META, 'h'}, keys.get(2));
    assertArrayEquals(new byte[] {KeyFamily.META, 'c'}, keys.get(3), "the count of changes last");
    q.enqueue(item("t", 0).build());
    assertEquals(3, q.changelogKeys().size(), "the next commit: the block and the two marks");
    q.demand(ALICE, "t", 2);
    assertEquals(2, q.delivered().size());
    List<byte[]> leased = q.changelogKeys();
    assertEquals(1, leased.stream().filter(k -> k[0] == KeyFamily.STATE_BLOCK).count(),
        "two items leased in one step: their block once");
  }

  @Test
  void anOldItemTurnsColdWholeInTheStateLogAndIsServedAndAckedAsBefore() {
    q = new QueueDriver(Map.of(QueueConfig.COLD_AFTER_MS_CONFIG, 2_000L, QueueConfig.DELAY_TIERS_CONFIG, "1h"));
    String old = q.enqueue(item("t", 0).setDeliverAfter(q.now() + 5_000).build());
    q.changelogKeys();
    q.advance(Duration.ofMillis(1_500));
    assertEquals(0, q.metrics.get(QueueMetrics.COLD_ITEMS), "not cold before its time");
    q.advance(Duration.ofMillis(1_500));
    assertEquals(1, q.metrics.get(QueueMetrics.COLD_ITEMS));
    List<TestRecord<byte[], byte[]>> moved = q.changelogRecords();
    List<byte[]> cold = moved.stream().filter(r -> r.key()[0] == KeyFamily.COLD_ITEM).map(TestRecord::value).toList();
    assertEquals(1, cold.size(), "the item, whole");
    assertEquals("p0", java.nio.charset.StandardCharsets.UTF_8.decode(
        dev.ordo.serde.OrdoSerdes.STORED_ITEM.decode(cold.get(0)).getItem().getPayload()).toString());
    assertTrue(moved.stream().anyMatch(r -> r.key()[0] == KeyFamily.STATE_BLOCK && r.value() == null),
        "its block, left empty, deleted");
    assertTrue(moved.stream().anyMatch(r -> java.util.Arrays.equals(r.key(), new byte[] {KeyFamily.META, 'k'})),
        "the cold watermark moved");
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.advance(Duration.ofMillis(2_100));
    DeliveredItem d = one();
    assertEquals(old, d.getItemId(), "due and served as before");
    q.ack(d);
    assertTrue(q.changelogRecords().stream().anyMatch(r -> r.key()[0] == KeyFamily.COLD_ITEM && r.value() == null),
        "the ack deletes the cold copy");
  }

  @Test
  void demandIsSoftStateThatLapsesUnlessRefreshed() {
    q.demand(ALICE, Map.of("t", 5), Duration.ofMillis(100));
    q.advance(Duration.ofMillis(150));
    q.enqueue(item("t", 0).build());
    assertTrue(q.delivered().isEmpty(), "a lapsed demand receives nothing");
    q.demand(ALICE, Map.of("t", 5), Duration.ofMillis(100));
    assertEquals(1, q.delivered().size());
  }

  @Test
  void deliverAfterHoldsTheItemUntilItsTimeAndReleasesItWithinAPunctuation() {
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    String id = q.enqueue(item("t", 0).setDeliverAfter(q.now() + 1_000).build());
    q.advance(Duration.ofMillis(990));
    assertTrue(q.delivered().isEmpty(), "not before deliverAfter");
    q.advance(Duration.ofMillis(30));
    assertEquals(List.of(id), ids(q.delivered()));
  }

  @Test
  void aTaskQuietForSecondsStillTakesItsTimersOnTime() {
    // Seconds ahead, beyond the coarse tick: the task takes only the coarse tick until a timer is
    // near, then the fine one again (Ticks); neither the due time nor the lease may come a tick late.
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    String delayed = q.enqueue(item("t", 0).setDeliverAfter(q.now() + 4_321).build());
    q.advance(Duration.ofMillis(4_311));
    assertTrue(q.delivered().isEmpty(), "not before deliverAfter");
    q.advance(Duration.ofMillis(30));
    DeliveredItem d = one();
    assertEquals(delayed, d.getItemId());

    q.extend(d, 3_333);
    long expiresAt = q.outcomes().get(0).getLeaseExpiresAt();
    q.advance(Duration.ofMillis(expiresAt - q.now() - 10));
    assertTrue(q.delivered().isEmpty(), "the lease holds until its expiry");
    q.advance(Duration.ofMillis(40));
    DeliveredItem again = one();
    assertEquals(delayed, again.getItemId());
    assertEquals(2, again.getAttempt(), "redelivered within a fine tick of the expiry");
  }

  @Test
  void aQuietTaskTicksOnceASecondAndFinelyOnlyWhileATimerIsNear() {
    q.enqueue(item("t", 0).build());
    q.advance(Duration.ofSeconds(2));
    long before = q.metrics.get(QueueMetrics.TICKS);
    q.advance(Duration.ofSeconds(10));
    long quiet = q.metrics.get(QueueMetrics.TICKS) - before;
    assertTrue(quiet >= 9 && quiet <= 11, "the coarse tick alone, once a second (every 20 ms was 500): " + quiet);

    q.enqueue(item("t", 0).setDeliverAfter(q.now() + 5_000).build());
    before = q.metrics.get(QueueMetrics.TICKS);
    q.advance(Duration.ofSeconds(10));
    long withTimer = q.metrics.get(QueueMetrics.TICKS) - before;
    assertTrue(withTimer >= 50 && withTimer <= 80,
        "the fine tick in the second before the due time, the coarse one otherwise: " + withTimer);
  }

  @Test
  void ackDeletesTheItem() {
    String id = q.enqueue(item("t", 0).build());
    q.demand(ALICE, "t", 1);
    DeliveredItem d = one();
    q.ack(d);
    Outcome o = q.outcomes().get(0);
    assertEquals(OutcomeResult.APPLIED, o.getResult());
    assertEquals(id, o.getItemId());
    q.ack(d);
    assertEquals(OutcomeResult.UNKNOWN_ITEM, q.outcomes().get(0).getResult(), "already acked");
    q.advance(Duration.ofSeconds(31));
    q.demand(ALICE, "t", 1);
    assertTrue(q.delivered().isEmpty(), "an acked item is never redelivered");
    assertEquals(1, q.metrics.get(QueueMetrics.ACKED));
    assertEquals(1, q.metrics.get(QueueMetrics.UNKNOWN_ITEM));
  }

  @Test
  void itemsLeasedByOneDemandTravelTogetherInPriorityOrderInRecordsOfAtMost200() {
    for (int i = 0; i < 250; i++) {
      q.enqueue(item("t", 250 - i).build());
    }
    long before = q.deliveryRecords();
    q.demand(ALICE, "t", 250);
    List<DeliveredItem> d = q.delivered();
    assertEquals(before + 2, q.deliveryRecords(), "250 items in records of 200 and 50");
    assertEquals(250, d.size());
    for (int i = 1; i < d.size(); i++) {
      assertTrue(d.get(i - 1).getPriority() <= d.get(i).getPriority(), "priority order across the records");
    }
    q.enqueue(item("t", 0).build());
    q.demand(ALICE, "t", 1);
    assertEquals(before + 3, q.deliveryRecords(), "a single item travels alone");
    assertEquals(1, q.delivered().size());
  }

  @Test
  void severalAcksInOneCommandAreEachAppliedOrRefusedAndAnsweredInOneDelivery() {
    q.enqueue(item("t", 0).build());
    q.enqueue(item("t", 1).build());
    q.demand(ALICE, "t", 2);
    List<DeliveredItem> d = q.delivered();
    assertEquals(2, d.size());
    long before = q.deliveryRecords();
    q.command(ALICE, new dev.ordo.schema.Acks(List.of(
        new dev.ordo.schema.Ack(d.get(0).getItemId(), d.get(0).getLeaseId()),
        new dev.ordo.schema.Ack(d.get(1).getItemId(), "not-the-lease"),
        new dev.ordo.schema.Ack("0-999", "x"),
        new dev.ordo.schema.Ack("1-5", "x"),
        new dev.ordo.schema.Ack("junk", "x"))));
    assertEquals(before + 1, q.deliveryRecords(), "one delivery answers the whole command");
    assertEquals(List.of(OutcomeResult.APPLIED, OutcomeResult.STALE_LEASE, OutcomeResult.UNKNOWN_ITEM,
        OutcomeResult.INVALID, OutcomeResult.INVALID), q.outcomes().stream().map(Outcome::getResult).toList());
    assertEquals(1, q.metrics.get(QueueMetrics.ACKED));
    assertEquals(2, q.metrics.get(QueueMetrics.INVALID_COMMAND));
    q.ack(d.get(0));
    assertEquals(OutcomeResult.UNKNOWN_ITEM, q.outcomes().get(0).getResult(), "the first item is gone");
    q.ack(d.get(1));
    assertEquals(OutcomeResult.APPLIED, q.outcomes().get(0).getResult(), "the refused ack left the second leased");
  }

  @Test
  void staleLeaseAndUnknownItemAreRefusedAndCounted() {
    q.enqueue(item("t", 0).setLeaseDurationMs(100L).build());
    q.demand(ALICE, "t", 1);
    DeliveredItem first = one();
    q.advance(Duration.ofMillis(120)); // lease expires, item redelivered to the next demand
    q.demand(BOB, "t", 1);
    DeliveredItem second = one();
    assertEquals(first.getItemId(), second.getItemId());
    assertNotEquals(first.getLeaseId(), second.getLeaseId());
    q.ack(first);
    assertEquals(OutcomeResult.STALE_LEASE, q.outcomes().get(0).getResult());
    q.ack("0-999", "whatever");
    assertEquals(OutcomeResult.UNKNOWN_ITEM, q.outcomes().get(0).getResult());
    q.ack(second);
    assertEquals(OutcomeResult.APPLIED, q.outcomes().get(0).getResult());
    assertEquals(1, q.metrics.get(QueueMetrics.STALE_LEASE));
    assertEquals(1, q.metrics.get(QueueMetrics.UNKNOWN_ITEM));
  }

  @Test
  void perTopicMetersFollowTheItemsStateChanges() {
    q.enqueue(item("t", 0).build());
    q.advance(Duration.ofMillis(200));
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    DeliveredItem d = one();
    q.extend(d, 60_000);
    q.nack(d, 0, null);
    DeliveredItem again = one();
    q.ack(d); // its lease is no longer the item's: stale
    q.ack(again);
    q.enqueue(item("u", 0).setTtlMs(100L).build());
    q.advance(Duration.ofMillis(300));
    q.enqueueRedriven(item("u", 1).build());
    var topic = new String[] {"namespace", "ns", "topic", "t"};
    assertEquals(1, q.registry.find("ordo.enqueued").tags(topic).counter().count());
    assertEquals(2, q.registry.find("ordo.leases").tags(topic).counter().count());
    var first = q.registry.find("ordo.first.attempt.age").tags(topic).timer();
    assertEquals(1, first.count(), "one first attempt");
    assertEquals(200, first.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS), 0.001, "enqueue to lease, driver clock");
    var ages = q.registry.find("ordo.attempt.age").tags(topic).timer();
    assertEquals(2, ages.count(), "every attempt");
    assertEquals(200, ages.max(java.util.concurrent.TimeUnit.MILLISECONDS), 50, "the second attempt's age: enqueue to it");
    assertEquals(1, q.registry.find("ordo.stale.leases").tags(topic).counter().count());
    assertEquals(1, q.registry.find("ordo.ttl.expired").tags("namespace", "ns", "topic", "u").counter().count());
    assertEquals(0, q.registry.find("ordo.ttl.expired").tags(topic).counter().count(), "acked, not expired");
    assertEquals(1, q.registry.find("ordo.redriven").tags("namespace", "ns", "topic", "u").counter().count());
    assertEquals(0, q.registry.find("ordo.redriven").tags(topic).counter().count());
    assertEquals(1, q.registry.find("ordo.extends").tags(topic).counter().count());
    assertEquals(1, q.registry.find("ordo.lease.ends").tags(topic).tag("outcome", "NACK").counter().count());
    var perAck = q.registry.find("ordo.attempts.per.ack").tags(topic).summary();
    assertEquals(1, perAck.count());
    assertEquals(2, perAck.totalAmount(), 0.001, "acked on its second delivery");
  }

  @Test
  void nackCountsAnAttemptReplacesMetadataAndWaitsTheDelay() {
    q.enqueue(item("t", 0).build());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    DeliveredItem d = one();
    q.nack(d, 500, "retry-1");
    assertEquals(OutcomeResult.APPLIED, q.outcomes().get(0).getResult());
    q.advance(Duration.ofMillis(480));
    assertTrue(q.delivered().isEmpty(), "nack delay not over");
    q.advance(Duration.ofMillis(40));
    DeliveredItem again = one();
    assertEquals(2, again.getAttempt());
    assertEquals("retry-1", text(again.getMetadata()));
    assertEquals(d.getItemId(), again.getItemId(), "the ID is stable across nacks");
  }

  @Test
  void nackAtMaxAttemptsDeadLettersWithReasonAndHistory() {
    String id = q.enqueue(item("t", 0).setMaxAttempts(2).build());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.nack(one(), 0, null);
    DeliveredItem second = one();
    assertEquals(2, second.getAttempt());
    q.nack(second, 0, "last");
    assertTrue(q.delivered().isEmpty());
    List<DeadLetter> dls = q.deadLetters();
    assertEquals(1, dls.size());
    DeadLetter dl = dls.get(0);
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, dl.getReason());
    assertEquals(id, dl.getItemId());
    assertEquals(2, dl.getAttempts());
    assertEquals(2, dl.getHistory().size());
    assertEquals("boom", dl.getLastError());
    assertEquals("last", text(dl.getItem().getMetadata()));
    List<Outcome> nacks = q.outcomes();
    assertEquals(null, nacks.get(0).getDeadLetterReason(), "the first nack put the item back");
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, nacks.get(1).getDeadLetterReason(),
        "the outcome says the nack dead-lettered the item, in a field a client can read");
    q.ack(second);
    assertEquals(OutcomeResult.UNKNOWN_ITEM, q.outcomes().stream().reduce((a, b) -> b).orElseThrow().getResult());
  }

  @Test
  void extendPushesTheLeaseExpiryOut() {
    q.enqueue(item("t", 0).setLeaseDurationMs(200L).build());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    DeliveredItem d = one();
    q.advance(Duration.ofMillis(150));
    q.extend(d, 500);
    Outcome o = q.outcomes().get(0);
    assertEquals(OutcomeResult.APPLIED, o.getResult());
    assertEquals(q.now() + 500, o.getLeaseExpiresAt());
    q.advance(Duration.ofMillis(400)); // past the original expiry
    assertTrue(q.delivered().isEmpty(), "an extended lease does not expire at its old time");
    q.advance(Duration.ofMillis(150));
    assertEquals(2, one().getAttempt(), "it expires at the extended time");
  }

  @Test
  void expiredAtLeastOnceLeaseIsRedeliveredThenDeadLetteredAtTheLimit() {
    q.enqueue(item("t", 0).setLeaseDurationMs(100L).setMaxAttempts(2).build());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    DeliveredItem first = one();
    q.advance(Duration.ofMillis(120));
    DeliveredItem second = one();
    assertEquals(2, second.getAttempt());
    assertNotEquals(first.getLeaseId(), second.getLeaseId());
    q.advance(Duration.ofMillis(120));
    assertTrue(q.delivered().isEmpty());
    DeadLetter dl = q.deadLetters().get(0);
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, dl.getReason());
    assertEquals(2, q.metrics.get(QueueMetrics.LEASE_EXPIRED));
  }

  @Test
  void anAtMostOnceItemThatIsNackedOrReleasedIsNeverDeliveredAgain() {
    q.enqueue(item("amo", 0).setDeliverySemantics(DeliverySemantics.AT_MOST_ONCE).build());
    q.enqueue(item("amo", 1).setDeliverySemantics(DeliverySemantics.AT_MOST_ONCE).build());
    q.enqueue(item("amo", 2).setDeliverySemantics(DeliverySemantics.AT_MOST_ONCE).build());
    q.demand(ALICE, Map.of("amo", 3), Duration.ofMinutes(5));
    List<DeliveredItem> got = q.delivered();
    assertEquals(3, got.size());
    q.nack(got.get(0), 0, null);
    q.command(ALICE, new dev.ordo.schema.Release(got.get(1).getItemId(), got.get(1).getLeaseId(), null));
    q.command(ALICE, new dev.ordo.schema.Nack(got.get(2).getItemId(), got.get(2).getLeaseId(), 0L, null, "poison", true));
    List<Outcome> outcomes = q.outcomes();
    assertEquals(List.of(OutcomeResult.APPLIED, OutcomeResult.APPLIED, OutcomeResult.APPLIED),
        outcomes.stream().map(Outcome::getResult).toList());
    assertTrue(outcomes.get(0).getDetail().contains("never delivered again"), outcomes.get(0).getDetail());
    assertTrue(outcomes.get(1).getDetail().contains("never delivered again"), outcomes.get(1).getDetail());
    assertEquals(DeadLetterReason.REJECTED, outcomes.get(2).getDeadLetterReason(), "a nack may still dead-letter it");

    q.advance(Duration.ofMinutes(1));
    q.demand(BOB, Map.of("amo", 5), Duration.ofMinutes(5));
    assertTrue(q.delivered().isEmpty(), "none of the three comes back");
    assertEquals(2, q.metrics.get(QueueMetrics.AT_MOST_ONCE_DROPPED));
    assertEquals(1, q.deadLetters().size());
  }

  @Test
  void aLeaseGivenBackUnseenIsUndoneAsIfNeverGrantedEvenForAnAtMostOnceItem() {
    q.enqueue(item("amo", 0).setDeliverySemantics(DeliverySemantics.AT_MOST_ONCE).build());
    q.enqueue(item("amo", 1).build());
    q.demand(ALICE, Map.of("amo", 2), Duration.ofMinutes(5));
    List<DeliveredItem> got = q.delivered();
    assertEquals(2, got.size());
    for (DeliveredItem d : got) {
      q.command(ALICE, new dev.ordo.schema.Release(d.getItemId(), d.getLeaseId(), ReturnReason.LATE));
    }
    assertEquals(List.of(OutcomeResult.APPLIED, OutcomeResult.APPLIED),
        q.outcomes().stream().map(Outcome::getResult).toList());
    assertEquals(0, q.metrics.get(QueueMetrics.AT_MOST_ONCE_DROPPED), "nobody saw it: nothing to drop");
    assertEquals(2, q.metrics.get(QueueMetrics.returned(ReturnReason.LATE)));
    q.demand(BOB, Map.of("amo", 2), Duration.ofMinutes(5));
    List<DeliveredItem> again = q.delivered();
    assertEquals(2, again.size(), "both ready again");
    assertEquals(List.of(1, 1), again.stream().map(DeliveredItem::getAttempt).toList(), "the attempt given back");
    assertEquals(DeliverySemantics.AT_MOST_ONCE, again.get(0).getSemantics());
    // A plain release of the same at-most-once item by its application still drops it.
    q.release(again.get(0));
    assertEquals(1, q.metrics.get(QueueMetrics.AT_MOST_ONCE_DROPPED));
  }

  @Test
  void aLeaseThatRunsOutWithoutAHeartbeatIsCountedApartFromOneThatWasExtended() {
    q.enqueue(item("t", 0).setLeaseDurationMs(100L).build());
    q.enqueue(item("t", 1).setLeaseDurationMs(100L).build());
    q.demand(ALICE, Map.of("t", 2), Duration.ofMinutes(5));
    List<DeliveredItem> got = q.delivered();
    assertEquals(2, got.size());
    q.advance(Duration.ofMillis(50));
    q.extend(got.get(1), 100);
    q.advance(Duration.ofMillis(500));
    assertEquals(2, q.metrics.get(QueueMetrics.LEASE_EXPIRED));
    assertEquals(1, q.metrics.get(QueueMetrics.LEASE_EXPIRED_UNEXTENDED), "only the one nobody heartbeat");
  }

  @Test
  void aOnceDemandLeasesWhatIsThereSaysHowManyAndKeepsNothingOpen() {
    q.enqueue(item("t", 0).build());
    q.enqueue(item("t", 1).build());
    q.command(ALICE, new Demand("ns", new java.util.HashMap<>(Map.of("t", 5)), 60_000L, true, true, true, -1L, 0L));
    assertEquals(2, q.delivered().size());
    List<Outcome> answer = q.outcomes();
    assertEquals(1, answer.size());
    assertEquals(CommandKind.DEMAND, answer.get(0).getCommand());
    assertEquals(2, answer.get(0).getGranted(), "what it was granted: the requester waits for exactly that");
    q.enqueue(item("t", 2).build());
    assertTrue(q.delivered().isEmpty(), "nothing kept open: a later item is not leased to it");
    // Filled in full, a once demand needs no answer: the items are the answer.
    q.command(BOB, new Demand("ns", new java.util.HashMap<>(Map.of("t", 1)), 60_000L, true, true, true, -1L, 0L));
    assertEquals(1, q.delivered().size());
    assertTrue(q.outcomes().isEmpty());
  }

  @Test
  void aOnceDemandLeavesTheRequestersStandingDemandAsItWas() {
    q.demand(ALICE, Map.of("t", 3), Duration.ofMinutes(5));
    q.command(ALICE, new Demand("ns", new java.util.HashMap<>(Map.of("t", 1)), 60_000L, true, true, true, -1L, 0L));
    assertEquals(0, q.outcomes().get(0).getGranted());
    for (int i = 0; i < 4; i++) {
      q.enqueue(item("t", i).build());
    }
    assertEquals(3, q.delivered().size(), "the standing demand of three, not replaced by the once demand");
  }

  @Test
  void underFlowControlItemsInTransitAreNotGrantedAgainWhenTheDemandIsRefreshed() {
    for (int i = 0; i < 10; i++) {
      q.enqueue(item("t", i).build());
    }
    Demand credit3 = new Demand("ns", new java.util.HashMap<>(Map.of("t", 3, "u", 3)), 60_000L, true, false, false,
        3L, 0L);
    q.command(ALICE, credit3);
    assertEquals(3, q.delivered().size());
    q.command(ALICE, credit3); // a refresh before any of them arrived: 3 free slots, nothing received
    assertTrue(q.delivered().isEmpty(), "the three in transit fill the consumer's slots");
    q.command(ALICE, new Demand("ns", new java.util.HashMap<>(Map.of("t", 3, "u", 3)), 60_000L, true, false, false,
        5L, 2L)); // two arrived and finished: 2 received, 3 free
    assertEquals(2, q.delivered().size(), "one still in transit");
  }

  @Test
  void atMostOnceItemIsDeletedWhenItsLeaseExpiresAndNeverDeliveredTwice() {
    q.enqueue(item("t", 0).setLeaseDurationMs(100L).setDeliverySemantics(DeliverySemantics.AT_MOST_ONCE).build());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    DeliveredItem d = one();
    assertEquals(DeliverySemantics.AT_MOST_ONCE, d.getSemantics());
    q.advance(Duration.ofMillis(500));
    q.demand(BOB, Map.of("t", 5), Duration.ofMinutes(5));
    assertTrue(q.delivered().isEmpty());
    assertTrue(q.deadLetters().isEmpty());
    assertEquals(1, q.metrics.get(QueueMetrics.AT_MOST_ONCE_DROPPED));
    q.ack(d);
    assertEquals(OutcomeResult.UNKNOWN_ITEM, q.outcomes().get(0).getResult());
  }

  @Test
  void releaseMakesTheItemReadyAgainWithoutCountingAnAttempt() {
    q.enqueue(item("t", 0).build());
    q.demand(ALICE, "t", 1);
    q.release(one());
    assertEquals(OutcomeResult.APPLIED, q.outcomes().get(0).getResult());
    q.demand(BOB, "t", 1);
    assertEquals(1, one().getAttempt());
  }

  @Test
  void ttlRemovesAReadyItem() {
    q.enqueue(item("t", 0).setTtlMs(200L).build());
    q.advance(Duration.ofMillis(220));
    q.demand(ALICE, "t", 1);
    assertTrue(q.delivered().isEmpty());
    assertEquals(1, q.metrics.get(QueueMetrics.TTL_EXPIRED));
  }

  @Test
  void ttlRemovesADelayedItem() {
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.enqueue(item("t", 0).setTtlMs(200L).setDeliverAfter(q.now() + 500).build());
    q.advance(Duration.ofMillis(600));
    assertTrue(q.delivered().isEmpty());
    assertEquals(1, q.metrics.get(QueueMetrics.TTL_EXPIRED));
  }

  @Test
  void ttlRemovesALeasedItemAndItsLeaseNoLongerAcks() {
    q.enqueue(item("t", 0).setTtlMs(200L).build());
    q.demand(ALICE, "t", 1);
    DeliveredItem d = one();
    q.advance(Duration.ofMillis(220));
    q.ack(d);
    assertEquals(OutcomeResult.UNKNOWN_ITEM, q.outcomes().get(0).getResult());
    assertEquals(1, q.metrics.get(QueueMetrics.TTL_EXPIRED));
  }

  @Test
  void ttlCanDeadLetterInsteadOfDeleting() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.TTL_DEAD_LETTER_CONFIG, true, QueueConfig.TTL_MS_CONFIG, 100L));
    String id = q.enqueue(item("t", 0).build());
    q.advance(Duration.ofMillis(120));
    DeadLetter dl = q.deadLetters().get(0);
    assertEquals(DeadLetterReason.TTL_EXPIRED, dl.getReason());
    assertEquals(id, dl.getItemId());
  }

  @Test
  void cancelRemovesAnItemInAnyState() {
    String id = q.enqueue(item("t", 0).setDeliverAfter(q.now() + 10_000).build());
    q.cancel(id);
    assertEquals(OutcomeResult.APPLIED, q.outcomes().get(0).getResult());
    q.cancel(id);
    assertEquals(OutcomeResult.UNKNOWN_ITEM, q.outcomes().get(0).getResult());
  }

  @Test
  void statsArePublishedPerTopicAtMostOncePerIntervalAndTombstonedWhenEmpty() {
    q.enqueue(item("t", 3).build());
    q.enqueue(item("t", 1).build());
    q.enqueue(item("t", 2).setDeliverAfter(q.now() + 60_000).build());
    q.advance(Duration.ofMillis(500));
    assertTrue(q.stats().isEmpty(), "not before the interval");
    q.advance(Duration.ofMillis(600));
    List<Map.Entry<String, TopicStats>> s = q.stats();
    assertEquals(1, s.size());
    assertEquals("ns/t/0", s.get(0).getKey());
    TopicStats st = s.get(0).getValue();
    assertEquals(2, st.getReady());
    assertEquals(1, st.getDelayed());
    assertEquals(0, st.getLeased());
    assertEquals(1, st.getHeadPriority());
    assertEquals(QueueDriver.T0.toEpochMilli(), st.getOldestReadyAt());
    q.advance(Duration.ofSeconds(2));
    assertTrue(q.stats().isEmpty(), "nothing changed, nothing published");
    q.demand(ALICE, "t", 5);
    for (DeliveredItem d : q.delivered()) {
      q.ack(d);
    }
    q.cancel("0-2");
    q.advance(Duration.ofMillis(1100));
    s = q.stats();
    assertEquals(1, s.size());
    assertNull(s.get(0).getValue(), "an emptied topic is a tombstone");
  }

  @Test
  void notAvroOnItemsIsDeadLetteredWithItsRawBytesAndTheQueueGoesOn() {
    byte[] junk = "not avro at all".getBytes(StandardCharsets.UTF_8);
    String bad = q.enqueueRaw(junk);
    String good = q.enqueue(item("t", 0).build());
    DeadLetter dl = q.deadLetters().get(0);
    assertEquals(DeadLetterReason.MALFORMED, dl.getReason());
    assertEquals(bad, dl.getItemId());
    assertArrayEquals(junk, ByteBuffer.wrap(dl.getRawValue().array()).array());
    q.demand(ALICE, "t", 1);
    assertEquals(List.of(good), ids(q.delivered()));
    assertEquals(1, q.metrics.get(QueueMetrics.MALFORMED));
  }

  @Test
  void invalidFieldsAreDeadLetteredNamingTheField() {
    q.enqueue(item("t", 0).setLeaseDurationMs(-1L).build());
    q.enqueue(item("t", 0).setPayload(ByteBuffer.allocate(10 * 1024 + 1)).build());
    q.enqueue(item("bad/topic", 0).build());
    q.enqueue(item("t", 0).setMaxAttempts(0).build());
    List<DeadLetter> dls = q.deadLetters();
    assertEquals(4, dls.size());
    dls.forEach(d -> assertEquals(DeadLetterReason.INVALID, d.getReason()));
    assertTrue(dls.get(0).getDetail().contains("leaseDurationMs"), dls.get(0).getDetail());
    assertTrue(dls.get(1).getDetail().contains("over the limit"), dls.get(1).getDetail());
    assertTrue(dls.get(2).getDetail().contains("topic"), dls.get(2).getDetail());
    assertTrue(dls.get(3).getDetail().contains("maxAttempts"), dls.get(3).getDetail());
    assertNotNull(dls.get(1).getRawValue(), "raw bytes are kept");
  }

  @Test
  void malformedAndInvalidCommandsAreDeadLetteredNotThrown() {
    q.commandRaw(new byte[] {1, 2, 3});
    q.ack("not-an-id", "l");
    q.command(ALICE, new dev.ordo.schema.Extend("0-0", "l", -5L));
    assertEquals(3, q.deadLetters().size());
    List<Outcome> answers = q.outcomes();
    assertEquals(2, answers.size(), "a decodable command with a requester is answered");
    answers.forEach(o -> assertEquals(OutcomeResult.INVALID, o.getResult()));
    assertTrue(answers.get(0).getDetail().contains("not-an-id"), answers.get(0).getDetail());
    assertTrue(answers.get(1).getDetail().contains("leaseDurationMs"), answers.get(1).getDetail());
    String id = q.enqueue(item("t", 0).build());
    q.demand(ALICE, "t", 1);
    assertEquals(List.of(id), ids(q.delivered()), "the stream thread goes on");
  }

  @Test
  void longDelaysParkInTheTiersAndComeBackAsReEntryAtTheirDueTime() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.DELAY_TIERS_CONFIG, "200ms,1s,5s"));
    long due = q.now() + 3_000;
    String id = q.enqueue(item("t", 0).setDeliverAfter(due).build());
    List<DelayedRecord> parked = q.tier("ordo.delay.1s");
    assertEquals(1, parked.size(), "the longest tier not longer than 3 s is 1 s");
    DelayedRecord env = parked.get(0);
    assertEquals(due, env.getDueAt());
    assertEquals("ordo.commands", env.getTargetTopic());
    assertEquals(0, env.getTargetPartition());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.advance(Duration.ofMillis(2_900));
    // the tiers hand the re-entry back shortly before due; the rest waits in the timer index
    q.commandRaw(env.getValue().array());
    assertTrue(q.delivered().isEmpty(), "not before its due time");
    q.advance(Duration.ofMillis(120));
    DeliveredItem d = one();
    assertEquals(id, d.getItemId());
    assertEquals(1, d.getAttempt());
  }

  @Test
  void nackWithALongDelayParksAndKeepsAttemptsAndMetadata() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.DELAY_TIERS_CONFIG, "200ms,1s"));
    String id = q.enqueue(item("t", 0).build());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    q.nack(one(), 1_500, "m2");
    DelayedRecord env = q.tier("ordo.delay.1s").get(0);
    q.advance(Duration.ofMillis(1_600));
    assertTrue(q.delivered().isEmpty(), "a parked item waits for its re-entry");
    q.commandRaw(env.getValue().array());
    DeliveredItem d = one();
    assertEquals(id, d.getItemId());
    assertEquals(2, d.getAttempt());
    assertEquals("m2", text(d.getMetadata()));
  }

  @Test
  void reEntryOfACancelledOrExpiredParkedItemIsDropped() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.DELAY_TIERS_CONFIG, "200ms"));
    String cancelled = q.enqueue(item("t", 0).setDeliverAfter(q.now() + 1_000).build());
    String expired = q.enqueue(item("t", 0).setDeliverAfter(q.now() + 1_000).setTtlMs(500L).build());
    List<DelayedRecord> envs = q.tier("ordo.delay.200ms");
    assertEquals(2, envs.size());
    q.cancel(cancelled);
    q.advance(Duration.ofMillis(1_100));
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    envs.forEach(e -> q.commandRaw(e.getValue().array()));
    assertTrue(q.delivered().isEmpty());
    assertEquals(2, q.metrics.get(QueueMetrics.REENTRY_DROPPED));
    assertEquals(1, q.metrics.get(QueueMetrics.TTL_EXPIRED), "TTL removed " + expired + " while parked");
  }

  @Test
  void aRedeliveryCarriesTheAttemptsTheStoreKept() {
    // The delivered record is made from the stored item: the lease that ran out counted as an attempt.
    // (That the item table's value keeps every field through its codec is SerdeRoundTripTest's.)
    q.enqueue(item("t", 0).setLeaseDurationMs(100L).build());
    q.demand(ALICE, Map.of("t", 5), Duration.ofMinutes(5));
    assertEquals(1, one().getAttempt());
    q.advance(Duration.ofMillis(120));
    assertEquals(2, one().getAttempt());
  }
}
