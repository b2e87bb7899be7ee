package dev.ordo.faults.history;

import dev.ordo.faults.history.History.Trail;
import dev.ordo.faults.history.Violation.Rule;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Judges a workload's {@link History} against the queue's promises, Jepsen-style: each rule reads what
 * the clients saw and reports a {@link Violation} only where no allowed run could have shown it. The
 * clients' and servers' clocks differ, and an answer reaches a client a while after the server acted,
 * so every comparison of two times allows {@link Settings#clockErrorMs}. An answer that never came
 * ({@link Op.Outcome#TIMEOUT}) may have been applied, and is taken as such where that explains an end.
 *
 * <p>Answers that are not faults are counted, not reported: a stale lease (the lease was gone), an
 * unknown item (after a crash an ack may find its item gone).
 */
public final class HistoryChecker {
  /**
   * How to judge a history.
   *
   * @param clockErrorMs the skew allowed between any two clocks, answer delays included (ms)
   * @param exactlyOnce whether the queue ran exactly-once: then two leases of an item never overlap
   * @param complete whether the history holds every operation of the run (no client lost its log): then
   *     the servers' counters must match it
   * @param leaseMs the lease length every requester of the workload asked for; when known (above 0), an
   *     item's hand-out time is its lease's start (expiry less the length), else when its application got
   *     it, which is right only for a workload that takes each item as it is leased (no buffering)
   */
  public record Settings(long clockErrorMs, boolean exactlyOnce, boolean complete, long leaseMs,
      List<long[]> faultWindows) {
    public static final long DEFAULT_CLOCK_ERROR_MS = 1_000;

    public Settings {
      if (clockErrorMs < 0 || leaseMs < 0) {
        throw new IllegalArgumentException("clockErrorMs and leaseMs must be >= 0");
      }
      faultWindows = List.copyOf(faultWindows);
    }

    /** A second of clock error, at-least-once, history maybe incomplete, lease length unknown, no faults. */
    public static Settings defaults() {
      return new Settings(DEFAULT_CLOCK_ERROR_MS, false, false, 0, List.of());
    }

    public Settings withClockErrorMs(long ms) {
      return new Settings(ms, exactlyOnce, complete, leaseMs, faultWindows);
    }

    public Settings withExactlyOnce(boolean on) {
      return new Settings(clockErrorMs, on, complete, leaseMs, faultWindows);
    }

    public Settings withComplete(boolean on) {
      return new Settings(clockErrorMs, exactlyOnce, on, leaseMs, faultWindows);
    }

    public Settings withLeaseMs(long ms) {
      return new Settings(clockErrorMs, exactlyOnce, complete, ms, faultWindows);
    }

    /**
     * The times (client clock, ms: {@code {from, to}}) a fault was in force, recovery included. A
     * fault may abort the queue's open transactions, and answers sent before their commit (decisions
     * D39: a dequeue a caller waits for) are then decided again: an at-least-once item's lease granted
     * in such a window may be granted a second time, as D39 documents. Such overlaps are notes, not
     * violations; and the priority rule leaves these windows out (a partition that has just moved takes
     * in its backlog after it serves).
     */
    public Settings withFaultWindows(List<long[]> windows) {
      return new Settings(clockErrorMs, exactlyOnce, complete, leaseMs, windows);
    }

    /** True when {@code t} falls in a fault window (give or take the clock error). */
    boolean inFault(long t) {
      for (long[] w : faultWindows) {
        if (t >= w[0] - clockErrorMs && t <= w[1] + clockErrorMs) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * What the check found.
   *
   * @param operations events read
   * @param items distinct item keys
   * @param answers answers to acks, nacks, extensions and releases, by outcome
   * @param violations broken promises, by rule then in history order
   * @param notes findings that are not violations (e.g. counters of an incomplete history that differ)
   */
  public record Result(int operations, int items, Map<Op.Outcome, Integer> answers, List<Violation> violations,
      List<String> notes) {
    public Result {
      answers = Map.copyOf(answers);
      violations = List.copyOf(violations);
      notes = List.copyOf(notes);
    }

    public boolean ok() {
      return violations.isEmpty();
    }

    public List<Violation> violations(Rule rule) {
      return violations.stream().filter(v -> v.rule() == rule).toList();
    }

    public int answers(Op.Outcome outcome) {
      return answers.getOrDefault(outcome, 0);
    }

    /** One line: operations, items, stale-lease answers, violations by rule. */
    public String summary() {
      String head = String.format("%,d ops, %,d items, %,d stale-lease answers", operations, items,
          answers(Op.Outcome.STALE_LEASE));
      String tail = notes.isEmpty() ? "" : String.format(" (%d notes)", notes.size());
      if (violations.isEmpty()) {
        return head + ": no violations" + tail;
      }
      Map<Rule, Long> byRule = violations.stream()
          .collect(Collectors.groupingBy(Violation::rule, () -> new EnumMap<>(Rule.class), Collectors.counting()));
      String rules = byRule.entrySet().stream().map(e -> e.getKey().label() + " " + e.getValue())
          .collect(Collectors.joining(", "));
      return head + ": " + violations.size() + " violations (" + rules + ")" + tail;
    }
  }

  private final History history;
  private final Settings settings;
  private final long err;
  private final List<Violation> violations = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  private HistoryChecker(History history, Settings settings) {
    this.history = history;
    this.settings = settings;
    this.err = settings.clockErrorMs();
  }

  /**
   * The server count of items still in the queue at the end (ready, delayed, leased, parked: the
   * durable stats of every partition), which must equal the items the final look-ups found.
   */
  public static final String QUEUED = "queued";

  public static Result check(History history, Settings settings) {
    return new HistoryChecker(history, settings).run();
  }

  private Result run() {
    for (Trail t : history.items()) {
      lost(t);
      amoTwice(t);
      overlappingLeases(t);
      early(t);
      afterTtl(t);
      unexplainedDeadLetters(t);
    }
    priorityOrder();
    counts();
    violations.sort(Comparator.comparing(Violation::rule)); // stable: history order within a rule
    return new Result(history.ops().size(), history.trails().size(), answers(), violations, notes);
  }

  /**
   * An acknowledged at-least-once item must end somewhere: acked (or an ack without answer), dead-lettered,
   * expired (its TTL ran out before the end, an end that deletes it without a trace), or still queued.
   */
  private void lost(Trail t) {
    Op.Enqueued e = t.enqueued();
    if (e == null || e.semantics() != Op.Semantics.AT_LEAST_ONCE) {
      return;
    }
    boolean expired = e.ttlMs() > 0 && e.at() + e.ttlMs() < history.end() + err;
    if (t.maybeAcked() || !t.deadLetters().isEmpty() || expired || t.remaining()) {
      return;
    }
    report(Rule.LOST, t, "enqueued at %d and delivered %d times, but neither acked, dead-lettered, expired nor "
        + "queued at the end (%d)", e.at(), t.deliveries().size(), history.end());
  }

  /** An at-most-once item is delivered at most once, even when its enqueue's answer was lost. */
  private void amoTwice(Trail t) {
    Op.Submission s = t.submission();
    if (s == null || s.semantics() != Op.Semantics.AT_MOST_ONCE || t.deliveries().size() < 2) {
      return;
    }
    report(Rule.AMO_TWICE, t, "at-most-once, delivered %d times, on leases %s", t.deliveries().size(),
        t.deliveries().stream().map(Op.Delivered::leaseId).toList());
  }

  /**
   * Exactly-once: two leases of one item never hold at once. A lease holds from its delivery until its
   * expiry, moved by applied extensions and cut short by its applied ack, nack or release.
   */
  private void overlappingLeases(Trail t) {
    if (!settings.exactlyOnce()) {
      return;
    }
    List<Op.Delivered> ds = t.deliveries();
    for (int i = 0; i < ds.size(); i++) {
      for (int j = i + 1; j < ds.size(); j++) {
        Op.Delivered a = ds.get(i);
        Op.Delivered b = ds.get(j);
        if (Objects.equals(a.leaseId(), b.leaseId())) {
          continue;
        }
        long overlap = Math.min(leaseEnd(t, a), leaseEnd(t, b)) - Math.max(a.at(), b.at());
        if (overlap <= err) {
          continue;
        }
        Op.Submission s = t.submission();
        boolean alo = s == null || s.semantics() == Op.Semantics.AT_LEAST_ONCE;
        if (alo && (settings.inFault(a.at()) || settings.inFault(b.at()))) {
          notes.add(String.format("%s: leases %s and %s held together for %d ms during a fault (D39's early answers)",
              t.itemKey(), a.leaseId(), b.leaseId(), overlap));
        } else {
          report(Rule.OVERLAPPING_LEASES, t, "leases %s (from %d) and %s (from %d) held together for %d ms",
              a.leaseId(), a.at(), b.leaseId(), b.at(), overlap);
        }
      }
    }
  }

  /**
   * When the lease of a delivery stopped holding, as far as the history tells: its expiry, moved by
   * applied extensions, cut short by the first ack, nack or release of it that was applied or got no
   * answer (one without an answer may have been applied when it was sent).
   */
  private static long leaseEnd(Trail t, Op.Delivered d) {
    long end = d.leaseExpiresAt();
    for (Op.Extended x : t.extensions()) {
      if (x.result() == Op.Outcome.APPLIED && Objects.equals(x.leaseId(), d.leaseId())) {
        end = Math.max(end, x.newExpiresAt());
      }
    }
    List<Op.ItemOp> endings = new ArrayList<>();
    t.acks().stream().filter(a -> ends(a.result()) && Objects.equals(a.leaseId(), d.leaseId()))
        .forEach(endings::add);
    t.nacks().stream().filter(n -> ends(n.result()) && Objects.equals(n.leaseId(), d.leaseId()))
        .forEach(endings::add);
    t.releases().stream().filter(r -> ends(r.result()) && Objects.equals(r.leaseId(), d.leaseId()))
        .forEach(endings::add);
    for (Op.ItemOp ending : endings) {
      end = Math.min(end, ending.at());
    }
    return end;
  }

  private static boolean ends(Op.Outcome o) {
    return o == Op.Outcome.APPLIED || o == Op.Outcome.TIMEOUT;
  }

  /**
   * No delivery before the item is due, nor, after an applied nack with a delay, before the delay ended.
   * The deliveries after a nack are told by their attempt (the queue's own count), so clock skew between
   * clients cannot put an earlier delivery after it.
   */
  private void early(Trail t) {
    Op.Submission s = t.submission();
    for (Op.Delivered d : t.deliveries()) {
      if (s != null && s.dueAt() > 0 && d.at() < s.dueAt() - err) {
        report(Rule.EARLY, t, "delivered at %d on attempt %d, %d ms before it was due (%d)", d.at(), d.attempt(),
            s.dueAt() - d.at(), s.dueAt());
      }
    }
    for (Op.Nacked n : t.nacks()) {
      if (n.result() != Op.Outcome.APPLIED || n.delayMs() <= 0 || n.deadLetter()) {
        continue;
      }
      Op.Delivered nacked = t.delivery(n.leaseId());
      long dueAgain = n.at() + n.delayMs();
      for (Op.Delivered d : t.deliveries()) {
        boolean after = nacked != null ? d.attempt() > nacked.attempt() : d.at() > n.at() + err;
        if (after && d.at() < dueAgain - err) {
          report(Rule.EARLY, t, "delivered at %d on attempt %d, %d ms before the delay of its nack at %d ended",
              d.at(), d.attempt(), dueAgain - d.at(), n.at());
        }
      }
    }
  }

  /**
   * No delivery after the item's time to live. Only for acknowledged enqueues: the acknowledgement's time
   * bounds when the item was enqueued, while an unanswered enqueue may have reached the queue later.
   */
  private void afterTtl(Trail t) {
    Op.Enqueued e = t.enqueued();
    if (e == null || e.ttlMs() <= 0) {
      return;
    }
    long expiry = e.at() + e.ttlMs();
    for (Op.Delivered d : t.deliveries()) {
      long leased = handedOutAt(d); // an answer held up (a paused server) reaches its application late
      if (leased > expiry + err) {
        report(Rule.AFTER_TTL, t, "leased at %d on attempt %d, %d ms after its TTL ran out (%d)", leased,
            d.attempt(), leased - expiry, expiry);
      }
    }
  }

  /** Each dead letter must be explained by its reason. Reasons the checker does not know are let be. */
  private void unexplainedDeadLetters(Trail t) {
    for (Op.DeadLettered dl : t.deadLetters()) {
      switch (dl.reason()) {
        case Op.DeadLettered.MAX_ATTEMPTS -> maxAttempts(t, dl);
        case Op.DeadLettered.TTL_EXPIRED -> ttlExpired(t, dl);
        case Op.DeadLettered.REJECTED -> rejected(t, dl);
        default -> { }
      }
    }
  }

  /**
   * MAX_ATTEMPTS: its attempts reached the item's maximum, and no logged delivery counted more. Deliveries
   * may be missing from the history (a lease taken by a client that crashed before logging it), so the
   * check goes by attempt numbers, not by counting deliveries.
   */
  private void maxAttempts(Trail t, Op.DeadLettered dl) {
    Op.Submission s = t.submission();
    if (s != null && s.maxAttempts() > 0 && dl.attempts() < s.maxAttempts()) {
      report(Rule.UNEXPLAINED_DEAD_LETTER, t, "dead-lettered for MAX_ATTEMPTS after %d attempts, of %d allowed",
          dl.attempts(), s.maxAttempts());
    }
    if (t.highestAttempt() > dl.attempts()) {
      report(Rule.UNEXPLAINED_DEAD_LETTER, t, "delivered on attempt %d, but dead-lettered for MAX_ATTEMPTS after %d",
          t.highestAttempt(), dl.attempts());
    }
  }

  /** TTL_EXPIRED: the item had a TTL, and (for an acknowledged enqueue) it had run out. */
  private void ttlExpired(Trail t, Op.DeadLettered dl) {
    Op.Submission s = t.submission();
    if (s == null) {
      return;
    }
    if (s.ttlMs() <= 0) {
      report(Rule.UNEXPLAINED_DEAD_LETTER, t, "dead-lettered for TTL_EXPIRED, but it has no TTL");
    } else if (t.enqueued() != null && dl.at() < t.enqueued().at() + s.ttlMs() - err) {
      report(Rule.UNEXPLAINED_DEAD_LETTER, t, "dead-lettered for TTL_EXPIRED at %d, %d ms before its TTL ran out",
          dl.at(), t.enqueued().at() + s.ttlMs() - dl.at());
    }
  }

  /** REJECTED: some nack asked for it and was applied (or got no answer, and so may have been). */
  private void rejected(Trail t, Op.DeadLettered dl) {
    boolean asked = t.nacks().stream()
        .anyMatch(n -> n.deadLetter() && (n.result() == Op.Outcome.APPLIED || n.result() == Op.Outcome.TIMEOUT));
    if (!asked) {
      report(Rule.UNEXPLAINED_DEAD_LETTER, t, "dead-lettered as REJECTED, but no nack asked for it");
    }
  }

  /** One first-attempt hand-out the priority rule compares. */
  private record Handout(Trail trail, Op.Delivered delivery, long at) {}

  /**
   * Within a partition, a worse item is not handed out while a better one is ready: of two first-attempt
   * hand-outs of items without delay or group key, when the better item (lower priority number) has the
   * lower offset, it was taken in first (a partition takes in its items in offset order), so it was
   * ready when the worse one was handed out; it must not have been handed out more than the clock error
   * after the worse one. The offsets make the rule independent of when the enqueues were answered and of
   * how far a partition's intake lags. Hand-outs during a fault window are left out (a task that just
   * moved serves what it has taken in while its backlog comes in, and a lease given back unseen restores
   * the attempt), as is an item's later first-attempt hand-out (after a release). The rule assumes one
   * namespace and requesters that ask for every topic the workload enqueues to, without admission limits.
   */
  private void priorityOrder() {
    Map<Integer, List<Handout>> byPartition = new TreeMap<>();
    for (Trail t : history.items()) {
      Op.Submission s = t.submission();
      if (s == null || t.enqueued() == null || s.dueAt() > 0 || s.groupKey() != null || offset(t) < 0) {
        continue;
      }
      t.deliveries().stream().filter(d -> d.attempt() == 1).min(Comparator.comparingLong(this::handedOutAt))
          .ifPresent(d -> {
            long at = handedOutAt(d);
            if (!settings.inFault(at)) {
              byPartition.computeIfAbsent(d.partition(), p -> new ArrayList<>()).add(new Handout(t, d, at));
            }
          });
    }
    byPartition.values().forEach(this::priorityOrder);
  }

  private void priorityOrder(List<Handout> handouts) {
    handouts.sort(Comparator.comparingLong(Handout::at));
    for (int b = 0; b < handouts.size(); b++) {
      Handout better = handouts.get(b);
      long offset = offset(better);
      int priority = better.delivery().priority();
      for (int w = 0; w < b; w++) {
        Handout worse = handouts.get(w);
        if (worse.at() >= better.at() - err) {
          break; // sorted by time: the rest are within the clock error of it
        }
        if (worse.delivery().priority() > priority && offset(worse) > offset) {
          report(Rule.PRIORITY_ORDER, better.trail(), "priority %d at offset %d of partition %d, handed out at %d; "
              + "%s of priority %d at the later offset %d was handed out before it at %d", priority, offset,
              better.delivery().partition(), better.at(), worse.trail().itemKey(), worse.delivery().priority(),
              offset(worse), worse.at());
          break;
        }
      }
    }
  }

  private static long offset(Handout h) {
    return offset(h.trail());
  }

  /** The offset in the item's ID ("partition-offset"), or -1 when it has none. */
  private static long offset(Trail t) {
    String id = t.enqueued().itemId();
    try {
      return Long.parseLong(id.substring(id.indexOf('-') + 1));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      return -1;
    }
  }

  /** When a delivery was handed out: its lease's start when the lease length is known, else its time. */
  private long handedOutAt(Op.Delivered d) {
    return settings.leaseMs() > 0 ? d.leaseExpiresAt() - settings.leaseMs() : d.at();
  }

  /**
   * The servers' count of acked items matches the items the history saw acked. Only a complete history
   * can be held to that; for any other a difference is a note.
   */
  private void counts() {
    Long queued = history.serverCounts().get(QUEUED);
    if (queued != null) {
      long remaining = history.items().stream().filter(Trail::remaining).count();
      if (queued != remaining) {
        violations.add(new Violation(Rule.COUNTS, null, String.format(
            "the servers' stats hold %d items at the end, the final look-ups found %d", queued, remaining)));
      }
    }
    Long served = history.serverCounts().get("acked");
    if (served == null) {
      return;
    }
    long seen = history.items().stream().filter(Trail::acked).count();
    if (served == seen) {
      return;
    }
    String detail = String.format("the servers count %d acked, the history %d items acked", served, seen);
    if (settings.complete()) {
      violations.add(new Violation(Rule.COUNTS, null, detail));
    } else {
      notes.add(detail + " (history not complete)");
    }
  }

  private Map<Op.Outcome, Integer> answers() {
    Map<Op.Outcome, Integer> out = new EnumMap<>(Op.Outcome.class);
    for (Op op : history.ops()) {
      Op.Outcome o = null;
      if (op instanceof Op.Acked a) {
        o = a.result();
      } else if (op instanceof Op.Nacked n) {
        o = n.result();
      } else if (op instanceof Op.Extended x) {
        o = x.result();
      } else if (op instanceof Op.Released r) {
        o = r.result();
      }
      if (o != null) {
        out.merge(o, 1, Integer::sum);
      }
    }
    return out;
  }

  private void report(Rule rule, Trail t, String format, Object... args) {
    violations.add(new Violation(rule, t.itemKey(), String.format(format, args)));
  }
}
