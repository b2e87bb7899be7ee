package dev.ordo.faults.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.faults.history.HistoryChecker.Result;
import dev.ordo.faults.history.HistoryChecker.Settings;
import dev.ordo.faults.history.Op.Outcome;
import dev.ordo.faults.history.Op.Semantics;
import dev.ordo.faults.history.Violation.Rule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each rule of the history checker, on small hand-made histories: one that breaks it, and ones that look
 * close but are allowed, most of them within the clock error (1 s here).
 */
class HistoryCheckerTest {
  private static final Settings AT_LEAST_ONCE = Settings.defaults();
  private static final Settings EXACTLY_ONCE = Settings.defaults().withExactlyOnce(true);
  private static final Outcome APPLIED = Outcome.APPLIED;

  @Test
  void anAcknowledgedItemThatEndsNowhereIsLost() {
    Result r = check(AT_LEAST_ONCE,
        alo("lost", 0), del("lost", "l1", 100, 1, 30_100),
        alo("stale", 0), del("stale", "l2", 100, 1, 30_100), ack("stale", "l2", 200, Outcome.STALE_LEASE),
        ttl("long-ttl", 0, 20_000), end(10_000));

    assertOnly(r, Rule.LOST, "lost", "stale", "long-ttl");
    assertEquals(1, r.answers(Outcome.STALE_LEASE), "a stale lease is counted, not reported");
  }

  @Test
  void everyLegitimateEndOfAnItemIsAccepted() {
    Result r = check(AT_LEAST_ONCE,
        alo("acked", 0), del("acked", "l1", 100, 1, 30_100), ack("acked", "l1", 200, APPLIED),
        alo("ack-unanswered", 0), del("ack-unanswered", "l2", 100, 1, 30_100),
        ack("ack-unanswered", "l2", 200, Outcome.TIMEOUT),
        alo("dead", 0), new Op.DeadLettered(9_000, "c", "dead", "0-3", "MAX_ATTEMPTS", 5),
        alo("queued", 0), new Op.Remaining(10_000, "c", "queued"),
        ttl("expired", 0, 5_000),
        ttl("expired-within-clock-error", 0, 10_500),
        amo("amo-dropped", 0), del("amo-dropped", "l3", 100, 1, 30_100),
        unknown("maybe-never-enqueued", 0, Semantics.AT_LEAST_ONCE),
        end(10_000));

    assertClean(r);
  }

  @Test
  void anAtMostOnceItemDeliveredTwiceIsReported() {
    Result r = check(AT_LEAST_ONCE,
        amo("twice", 0), del("twice", "l1", 100, 1, 1_100), del("twice", "l2", 1_200, 2, 2_200),
        unknown("unanswered-twice", 0, Semantics.AT_MOST_ONCE), del("unanswered-twice", "l3", 100, 1, 1_100),
        del("unanswered-twice", "l4", 1_200, 2, 2_200),
        amo("once", 0), del("once", "l5", 100, 1, 1_100), ack("once", "l5", 200, APPLIED),
        alo("alo-twice", 0), del("alo-twice", "l6", 100, 1, 1_100), del("alo-twice", "l7", 1_200, 2, 2_200),
        ack("alo-twice", "l7", 1_300, APPLIED));

    assertOnly(r, Rule.AMO_TWICE, "twice", "unanswered-twice");
  }

  @Test
  void underExactlyOnceTwoLeasesOfAnItemNeverHoldTogether() {
    Op[] ops = {
        alo("overlap", 0), del("overlap", "a", 0, 1, 30_000), del("overlap", "b", 10_000, 2, 40_000),
        ack("overlap", "b", 20_000, APPLIED),
        alo("extended", 0), del("extended", "c", 0, 1, 30_000), ext("extended", "c", 20_000, 60_000, APPLIED),
        del("extended", "d", 40_000, 2, 70_000), ack("extended", "d", 50_000, APPLIED),
    };
    assertOnly(check(EXACTLY_ONCE, ops), Rule.OVERLAPPING_LEASES, "overlap", "extended");
    assertClean(check(AT_LEAST_ONCE, ops)); // the rule holds under exactly-once only
  }

  @Test
  void aLeaseEndedByItsAnswerExpiryOrWithinTheClockErrorLetsAnotherOneStart() {
    Result r = check(EXACTLY_ONCE,
        alo("nacked", 0), del("nacked", "a", 0, 1, 30_000), nack("nacked", "a", 5_000, 0, false, APPLIED),
        del("nacked", "b", 5_100, 2, 35_100), ack("nacked", "b", 5_200, APPLIED),
        alo("released", 0), del("released", "c", 0, 1, 30_000), rel("released", "c", 2_000, APPLIED),
        del("released", "d", 2_500, 1, 32_500), ack("released", "d", 2_600, APPLIED),
        alo("expired-skewed", 0), del("expired-skewed", "e", 0, 1, 30_000),
        del("expired-skewed", "f", 29_500, 2, 59_500), ack("expired-skewed", "f", 29_600, APPLIED),
        alo("refused-extension", 0), del("refused-extension", "g", 0, 1, 30_000),
        ext("refused-extension", "g", 20_000, 60_000, Outcome.STALE_LEASE),
        del("refused-extension", "h", 40_000, 2, 70_000), ack("refused-extension", "h", 40_100, APPLIED));

    assertClean(r);
  }

  @Test
  void aDelayedItemOrANackedOneIsNeverDeliveredBeforeItsTime() {
    Result r = check(AT_LEAST_ONCE,
        delayed("before-due", 0, 10_000), del("before-due", "a", 8_000, 1, 38_000),
        ack("before-due", "a", 8_100, APPLIED),
        alo("before-nack-delay", 0), del("before-nack-delay", "b", 500, 1, 30_500),
        nack("before-nack-delay", "b", 1_000, 5_000, false, APPLIED),
        del("before-nack-delay", "c", 3_000, 2, 33_000), ack("before-nack-delay", "c", 3_100, APPLIED),
        // The nacked lease's delivery is missing from the history: what came after is told by the clock.
        alo("nacked-unlogged", 0), nack("nacked-unlogged", "d", 1_000, 5_000, false, APPLIED),
        del("nacked-unlogged", "e", 1_500, 2, 31_500), // within the clock error of the nack: maybe before it
        del("nacked-unlogged", "f", 3_000, 3, 33_000), ack("nacked-unlogged", "f", 3_100, APPLIED));

    assertOnly(r, Rule.EARLY, "before-due", "before-nack-delay", "nacked-unlogged");
  }

  @Test
  void deliveriesWithinTheClockErrorOfTheirTimeAreNotEarly() {
    Result r = check(AT_LEAST_ONCE,
        delayed("due", 0, 10_000), del("due", "a", 9_500, 1, 39_500), ack("due", "a", 9_600, APPLIED),
        alo("nacked", 0), del("nacked", "b", 500, 1, 30_500), nack("nacked", "b", 1_000, 5_000, false, APPLIED),
        del("nacked", "c", 5_500, 2, 35_500), ack("nacked", "c", 5_600, APPLIED),
        // A delivery before the nack (attempt 1, given back by a release) logged by a client whose clock runs
        // ahead is not taken for the redelivery: attempts, not clocks, tell what came after the nack.
        alo("skewed", 0), del("skewed", "d", 1_500, 1, 31_500), rel("skewed", "d", 1_600, APPLIED),
        del("skewed", "e", 800, 1, 30_800), nack("skewed", "e", 1_000, 5_000, false, APPLIED),
        del("skewed", "f", 6_100, 2, 36_100), ack("skewed", "f", 6_200, APPLIED),
        alo("unanswered-nack", 0), del("unanswered-nack", "g", 500, 1, 30_500),
        nack("unanswered-nack", "g", 1_000, 5_000, false, Outcome.TIMEOUT),
        del("unanswered-nack", "h", 1_200, 2, 31_200), ack("unanswered-nack", "h", 1_300, APPLIED));

    assertClean(r);
  }

  @Test
  void anItemIsNeverDeliveredAfterItsTimeToLive() {
    Result r = check(AT_LEAST_ONCE,
        ttl("late", 0, 5_000), del("late", "a", 7_000, 1, 37_000), ack("late", "a", 7_100, APPLIED),
        ttl("within-clock-error", 0, 5_000), del("within-clock-error", "b", 5_800, 1, 35_800),
        ack("within-clock-error", "b", 5_900, APPLIED),
        new Op.EnqueueUnknown(0, "c", "unanswered", Semantics.AT_LEAST_ONCE, 5, 0, 5_000, null, 5),
        del("unanswered", "c", 7_000, 1, 37_000), ack("unanswered", "c", 7_100, APPLIED));

    assertOnly(r, Rule.AFTER_TTL, "late");
  }

  @Test
  void aDeadLetterMustBeExplainedByItsReason() {
    Result r = check(AT_LEAST_ONCE,
        alo("too-few-attempts", 0), dead("too-few-attempts", 9_000, "MAX_ATTEMPTS", 3),
        alo("more-delivered", 0), del("more-delivered", "a", 100, 6, 30_100),
        dead("more-delivered", 9_000, "MAX_ATTEMPTS", 5),
        alo("no-ttl", 0), dead("no-ttl", 9_000, "TTL_EXPIRED", 1),
        ttl("ttl-not-passed", 0, 5_000), dead("ttl-not-passed", 2_000, "TTL_EXPIRED", 0),
        alo("not-asked", 0), del("not-asked", "b", 100, 1, 30_100),
        nack("not-asked", "b", 200, 0, false, APPLIED), dead("not-asked", 9_000, "REJECTED", 1),
        alo("asked-but-stale", 0), del("asked-but-stale", "c", 100, 1, 30_100),
        nack("asked-but-stale", "c", 200, 0, true, Outcome.STALE_LEASE), dead("asked-but-stale", 9_000, "REJECTED", 1),
        end(10_000));

    assertOnly(r, Rule.UNEXPLAINED_DEAD_LETTER,
        "too-few-attempts", "more-delivered", "no-ttl", "ttl-not-passed", "not-asked", "asked-but-stale");
  }

  @Test
  void explainedDeadLettersAreAccepted() {
    Result r = check(AT_LEAST_ONCE,
        alo("max", 0), del("max", "a", 100, 4, 30_100), dead("max", 9_000, "MAX_ATTEMPTS", 5),
        // Deliveries the history missed (a client crashed before logging them) do not make it unexplained.
        alo("missed-deliveries", 0), dead("missed-deliveries", 9_000, "MAX_ATTEMPTS", 5),
        ttl("ttl", 0, 5_000), dead("ttl", 6_000, "TTL_EXPIRED", 0),
        ttl("ttl-within-clock-error", 0, 5_000), dead("ttl-within-clock-error", 4_500, "TTL_EXPIRED", 0),
        alo("rejected", 0), del("rejected", "b", 100, 1, 30_100), nack("rejected", "b", 200, 0, true, APPLIED),
        dead("rejected", 9_000, "REJECTED", 1),
        alo("rejected-unanswered", 0), del("rejected-unanswered", "c", 100, 1, 30_100),
        nack("rejected-unanswered", "c", 200, 0, true, Outcome.TIMEOUT),
        dead("rejected-unanswered", 9_000, "REJECTED", 1),
        alo("other-reason", 0), dead("other-reason", 9_000, "CANCELLED", 0),
        end(10_000));

    assertClean(r);
  }

  @Test
  void aWorseItemHandedOutWhileABetterOneTakenInBeforeItWasReadyBreaksPriorityOrder() {
    Result r = check(AT_LEAST_ONCE,
        prio("better", 0, 1, 0, 1), prio("worse", 0, 5, 0, 2),
        delOn("worse", "a", 2_000, 0, 5, 32_000), ack("worse", "a", 2_100, APPLIED),
        delOn("better", "b", 4_000, 0, 1, 34_000), ack("better", "b", 4_100, APPLIED));

    assertOnly(r, Rule.PRIORITY_ORDER, "better");
    assertTrue(r.violations().get(0).detail().contains("worse"), r.violations().toString());
  }

  @Test
  void priorityOrderAllowsConcurrentRequestersLaterArrivalsFaultsAndItemsThatCouldNotGoFirst() {
    Result r = check(AT_LEAST_ONCE.withFaultWindows(List.of(new long[] {3_500, 5_000})),
        prio("worse", 0, 5, 0, 10), delOn("worse", "a", 2_000, 0, 5, 32_000), ack("worse", "a", 2_100, APPLIED),
        // Handed out within the clock error of the worse one: two requesters served at once.
        prio("concurrent", 0, 1, 0, 1), delOn("concurrent", "b", 2_800, 0, 1, 32_800),
        ack("concurrent", "b", 2_900, APPLIED),
        // At a later offset than the worse one: taken in after it, maybe after it was handed out.
        prio("later-offset", 0, 1, 0, 11), delOn("later-offset", "c", 6_000, 0, 1, 36_000),
        ack("later-offset", "c", 6_100, APPLIED),
        prio("other-partition", 0, 1, 1, 2), delOn("other-partition", "d", 6_000, 1, 1, 36_000),
        ack("other-partition", "d", 6_100, APPLIED),
        prio("same-priority", 0, 5, 0, 3), delOn("same-priority", "e", 6_000, 0, 5, 36_000),
        ack("same-priority", "e", 6_100, APPLIED),
        new Op.Enqueued(0, "c", "grouped", "0-4", Semantics.AT_LEAST_ONCE, 1, 0, 0, "tenant", 5, 0),
        delOn("grouped", "f", 6_000, 0, 1, 36_000), ack("grouped", "f", 6_100, APPLIED),
        new Op.Enqueued(0, "c", "delayed", "0-5", Semantics.AT_LEAST_ONCE, 1, 1_000, 0, null, 5, 0),
        delOn("delayed", "g", 6_000, 0, 1, 36_000), ack("delayed", "g", 6_100, APPLIED),
        // Leased first before the worse one, given back and leased again: its first hand-out counts.
        prio("released", 0, 1, 0, 6), delOn("released", "h", 1_000, 0, 1, 31_000), rel("released", "h", 1_100, APPLIED),
        delOn("released", "i", 6_000, 0, 1, 36_000), ack("released", "i", 6_100, APPLIED),
        // Handed out during a fault: a task that just moved serves what it has taken in.
        prio("in-fault", 0, 1, 0, 7), delOn("in-fault", "j", 4_500, 0, 1, 34_500), ack("in-fault", "j", 4_600, APPLIED));

    assertClean(r);
  }

  @Test
  void withTheLeaseLengthKnownAnItemThatWaitedInAConsumersBufferIsNotTakenForALateHandOut() {
    Op[] ops = {
        prio("buffered", 0, 1, 0, 1), prio("worse", 0, 5, 0, 2),
        delOn("worse", "a", 2_000, 0, 5, 32_000), ack("worse", "a", 2_100, APPLIED),
        // Leased at 1,500 (its lease ends 30 s later), handed to its application only at 4,000.
        delOn("buffered", "b", 4_000, 0, 1, 31_500), ack("buffered", "b", 4_100, APPLIED),
    };
    assertOnly(check(AT_LEAST_ONCE, ops), Rule.PRIORITY_ORDER, "buffered");
    assertClean(check(AT_LEAST_ONCE.withLeaseMs(30_000), ops));
  }

  @Test
  void anAtLeastOnceItemLeasedTwiceAtOnceDuringAFaultIsANoteOutsideAViolation() {
    Op[] ops = {
        alo("k", 0), del("k", "l1", 1_000, 1, 31_000), del("k", "l2", 2_000, 1, 32_000),
        ack("k", "l1", 10_000, Outcome.UNKNOWN_ITEM), ack("k", "l2", 10_100, APPLIED),
    };
    Settings eos = AT_LEAST_ONCE.withExactlyOnce(true);
    assertOnly(check(eos, ops), Rule.OVERLAPPING_LEASES, "k");
    Result inFault = check(eos.withFaultWindows(List.of(new long[] {900, 1_200})), ops);
    assertClean(inFault);
    assertEquals(1, inFault.notes().size(), inFault.notes().toString());
  }

  @Test
  void aLeaseEndsAtACommandThatGotNoAnswer() {
    Result r = check(AT_LEAST_ONCE.withExactlyOnce(true),
        alo("k", 0), del("k", "l1", 1_000, 1, 31_000), nack("k", "l1", 1_500, 200, false, Outcome.TIMEOUT),
        del("k", "l2", 2_000, 2, 32_000), ack("k", "l2", 2_100, APPLIED));
    assertClean(r);
  }

  @Test
  void theItemsTheServersHoldAtTheEndAreTheOnesTheFinalLookUpsFound() {
    Op[] found = {alo("a", 0), new Op.Remaining(5_000, "lookup", "a"), alo("b", 0), del("b", "l", 100, 1, 30_100),
        ack("b", "l", 200, APPLIED)};
    Op[] same = java.util.stream.Stream.concat(java.util.Arrays.stream(found),
        java.util.stream.Stream.of(new Op.ServerCounts(5_000, "stats", Map.of(HistoryChecker.QUEUED, 1L))))
        .toArray(Op[]::new);
    assertClean(check(AT_LEAST_ONCE, same));
    Op[] more = java.util.stream.Stream.concat(java.util.Arrays.stream(found),
        java.util.stream.Stream.of(new Op.ServerCounts(5_000, "stats", Map.of(HistoryChecker.QUEUED, 2L))))
        .toArray(Op[]::new);
    assertOnly(check(AT_LEAST_ONCE, more), Rule.COUNTS, (String) null);
  }

  @Test
  void theServersAckedCountMustMatchACompleteHistory() {
    Op[] ops = {
        alo("a", 0), del("a", "l1", 100, 1, 30_100), ack("a", "l1", 200, APPLIED),
        ack("a", "l1", 300, Outcome.UNKNOWN_ITEM), // an ack after the item is gone: counted, not a violation
        new Op.ServerCounts(1_000, "server-1", Map.of("acked", 1L)),
        new Op.ServerCounts(1_000, "server-2", Map.of("acked", 1L, "dead_lettered", 0L)),
    };
    Result complete = check(AT_LEAST_ONCE.withComplete(true), ops);
    assertOnly(complete, Rule.COUNTS, (String) null);

    Result partial = check(AT_LEAST_ONCE, ops);
    assertClean(partial);
    assertEquals(1, partial.notes().size(), "a difference is told for an incomplete history");
    assertTrue(partial.notes().get(0).contains("count 2 acked"), partial.notes().toString());
    assertEquals(1, partial.answers(Outcome.UNKNOWN_ITEM));

    Result matching = check(AT_LEAST_ONCE.withComplete(true),
        alo("a", 0), del("a", "l1", 100, 1, 30_100), ack("a", "l1", 200, APPLIED),
        new Op.ServerCounts(1_000, "server-1", Map.of("acked", 1L)));
    assertClean(matching);
    assertEquals(List.of(), matching.notes());
  }

  @Test
  void theSummaryCountsOperationsItemsStaleAnswersAndViolationsByRule() {
    Result r = check(AT_LEAST_ONCE,
        alo("lost", 0), del("lost", "l1", 100, 1, 30_100), ack("lost", "l1", 40_000, Outcome.STALE_LEASE),
        amo("twice", 0), del("twice", "l2", 100, 1, 1_100), del("twice", "l3", 1_200, 2, 2_200));

    assertEquals(6, r.operations());
    assertEquals(2, r.items());
    assertEquals("6 ops, 2 items, 1 stale-lease answers: 2 violations (lost 1, amo-twice 1)", r.summary());
    assertEquals("0 ops, 0 items, 0 stale-lease answers: no violations", check(AT_LEAST_ONCE).summary());
  }

  private static Result check(Settings settings, Op... ops) {
    return HistoryChecker.check(History.of(ops), settings);
  }

  /** The result has violations of {@code rule} only, about these items in this order. */
  private static void assertOnly(Result r, Rule rule, String... itemKeys) {
    assertEquals(List.of(rule), r.violations().stream().map(Violation::rule).distinct().toList(),
        r.violations().toString());
    assertEquals(java.util.Arrays.asList(itemKeys), r.violations().stream().map(Violation::itemKey).toList(),
        r.violations().toString());
  }

  private static void assertClean(Result r) {
    assertTrue(r.ok(), r.violations().toString());
  }

  private static Op.Enqueued alo(String key, long at) {
    return new Op.Enqueued(at, "c", key, "0-" + key, Semantics.AT_LEAST_ONCE, 5, 0, 0, null, 5, 0);
  }

  private static Op.Enqueued amo(String key, long at) {
    return new Op.Enqueued(at, "c", key, "0-" + key, Semantics.AT_MOST_ONCE, 5, 0, 0, null, 5, 0);
  }

  private static Op.Enqueued ttl(String key, long at, long ttlMs) {
    return new Op.Enqueued(at, "c", key, "0-" + key, Semantics.AT_LEAST_ONCE, 5, 0, ttlMs, null, 5, 0);
  }

  private static Op.Enqueued delayed(String key, long at, long dueAt) {
    return new Op.Enqueued(at, "c", key, "0-" + key, Semantics.AT_LEAST_ONCE, 5, dueAt, 0, null, 5, 0);
  }

  private static Op.Enqueued prio(String key, long at, int priority, int partition, long offset) {
    return new Op.Enqueued(at, "c", key, partition + "-" + offset, Semantics.AT_LEAST_ONCE, priority, 0, 0, null, 5,
        partition);
  }

  private static Op.EnqueueUnknown unknown(String key, long at, Semantics semantics) {
    return new Op.EnqueueUnknown(at, "c", key, semantics, 5, 0, 0, null, 5);
  }

  private static Op.Delivered del(String key, String lease, long at, int attempt, long expiresAt) {
    return new Op.Delivered(at, "c", key, "0-" + key, lease, attempt, expiresAt, 0, 5);
  }

  private static Op.Delivered delOn(String key, String lease, long at, int partition, int priority, long expiresAt) {
    return new Op.Delivered(at, "c", key, partition + "-" + key, lease, 1, expiresAt, partition, priority);
  }

  private static Op.Acked ack(String key, String lease, long at, Outcome result) {
    return new Op.Acked(at, "c", key, "0-" + key, lease, result);
  }

  private static Op.Nacked nack(String key, String lease, long at, long delayMs, boolean deadLetter, Outcome result) {
    return new Op.Nacked(at, "c", key, lease, delayMs, deadLetter, result);
  }

  private static Op.Extended ext(String key, String lease, long at, long newExpiresAt, Outcome result) {
    return new Op.Extended(at, "c", key, lease, newExpiresAt, result);
  }

  private static Op.Released rel(String key, String lease, long at, Outcome result) {
    return new Op.Released(at, "c", key, lease, result);
  }

  private static Op.DeadLettered dead(String key, long at, String reason, int attempts) {
    return new Op.DeadLettered(at, "c", key, "0-" + key, reason, attempts);
  }

  /** Sets the end of the history: the final look-up. */
  private static Op end(long at) {
    return new Op.ServerCounts(at, "checker", Map.of());
  }
}
