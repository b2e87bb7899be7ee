package dev.ordo.client.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A dequeue breaker per queue partition (decisions D58): a partition whose owner stops answering (a
 * stuck stream thread, a GC pause, a stalled broker) is left out of dequeues for a while instead of
 * holding each dequeue that asked it until its wait ends, and probed again. Pure: every call takes
 * {@code now}; the client acts on what it says. Thread-safe.
 *
 * <p>States, per partition:
 * <ol>
 *   <li><b>CLOSED</b> (0): asked as usual. Each dequeue round it leaves unanswered past the round's
 *       time is a timeout; any answer (a demand's outcome, an item) resets the count. After
 *       {@code threshold} timeouts in a row it opens.</li>
 *   <li><b>OPEN</b> (1): left out of every dequeue's plan until {@code backoff} has passed since it
 *       opened (the first time {@code openMs}, doubled after each failed probe, at most 8 times).</li>
 *   <li><b>HALF_OPEN</b> (2): the first dequeue planned after the backoff may ask it (the probe); the
 *       others still leave it out. An answer closes it; a timeout opens it again with twice the backoff;
 *       no verdict within the backoff (the probe had nothing to ask of it) lets another dequeue probe.</li>
 * </ol>
 * A threshold of 0 turns breakers off: every partition is always asked.
 */
public final class PartitionBreakers {
  /** A breaker's state; {@link #code} is what the metric shows. */
  public enum State {
    CLOSED(0), OPEN(1), HALF_OPEN(2);

    public final int code;

    State(int code) {
      this.code = code;
    }
  }

  private static final int MAX_BACKOFF_FACTOR = 8;

  private static final class Breaker {
    State state = State.CLOSED;
    int timeouts;
    long backoffMs;
    long openedAt;
    long probedAt;
    long changedAt;
    long opens;
    long probes;
  }

  private final int threshold;
  private final long openMs;
  private final Map<Integer, Breaker> breakers = new HashMap<>();

  /**
   * @param threshold timeouts in a row that open a partition's breaker; 0: never
   * @param openMs how long a breaker first stays open before a probe
   */
  public PartitionBreakers(int threshold, long openMs) {
    if (threshold < 0 || openMs < 1) {
      throw new IllegalArgumentException("breaker threshold must be at least 0 and open time at least 1 ms, got "
          + threshold + " and " + openMs);
    }
    this.threshold = threshold;
    this.openMs = openMs;
  }

  /**
   * The partitions of {@code 0..partitions-1} a dequeue planned at {@code now} may ask: the closed ones,
   * and a half-open one whose probe this is. When none may be asked, all (a breaker that leaves nothing
   * to ask protects nothing).
   */
  public synchronized Set<Integer> allowed(int partitions, long now) {
    Set<Integer> out = new TreeSet<>();
    for (int p = 0; p < partitions; p++) {
      if (allows(p, now)) {
        out.add(p);
      }
    }
    if (out.isEmpty()) {
      for (int p = 0; p < partitions; p++) {
        out.add(p);
      }
    }
    return out;
  }

  private boolean allows(int partition, long now) {
    Breaker b = breakers.get(partition);
    if (b == null || b.state == State.CLOSED) {
      return true;
    }
    if (b.state == State.OPEN && now >= b.openedAt + b.backoffMs
        || b.state == State.HALF_OPEN && now >= b.probedAt + b.backoffMs) {
      if (b.state != State.HALF_OPEN) {
        b.changedAt = now;
      }
      b.state = State.HALF_OPEN;
      b.probedAt = now;
      b.probes++;
      return true;
    }
    return false;
  }

  /** A dequeue round asked {@code partition} and got no answer from it within the round's time. */
  public synchronized void timedOut(int partition, long now) {
    if (threshold == 0) {
      return;
    }
    Breaker b = breakers.computeIfAbsent(partition, p -> new Breaker());
    switch (b.state) {
      case CLOSED -> {
        b.timeouts++;
        if (b.timeouts >= threshold) {
          open(b, openMs, now);
        }
      }
      case HALF_OPEN -> open(b, Math.min(2 * b.backoffMs, MAX_BACKOFF_FACTOR * openMs), now);
      case OPEN -> { } // a round planned before it opened: already counted against it
    }
  }

  private static void open(Breaker b, long backoffMs, long now) {
    b.state = State.OPEN;
    b.backoffMs = backoffMs;
    b.openedAt = now;
    b.changedAt = now;
    b.opens++;
  }

  /** {@code partition} answered (an outcome of a demand, or an item): it is served again. */
  public synchronized void answered(int partition, long now) {
    Breaker b = breakers.get(partition);
    if (b == null) {
      return;
    }
    if (b.state != State.CLOSED) {
      b.changedAt = now;
    }
    b.state = State.CLOSED;
    b.timeouts = 0;
  }

  public synchronized State state(int partition) {
    Breaker b = breakers.get(partition);
    return b == null ? State.CLOSED : b.state;
  }

  /** True when the partition's breaker is open or half-open: a dequeue need not wait for its answer. */
  public synchronized boolean tripped(int partition) {
    return state(partition) != State.CLOSED;
  }

  /** Times the partition's breaker opened. */
  public synchronized long opens(int partition) {
    Breaker b = breakers.get(partition);
    return b == null ? 0 : b.opens;
  }

  /** Probes of the partition: dequeues that asked it while half-open. */
  public synchronized long probes(int partition) {
    Breaker b = breakers.get(partition);
    return b == null ? 0 : b.probes;
  }

  /** Milliseconds the partition's breaker has been in its state at {@code now}; 0 for one never tripped. */
  public synchronized long inStateMs(int partition, long now) {
    Breaker b = breakers.get(partition);
    return b == null || b.opens == 0 ? 0 : Math.max(0, now - b.changedAt);
  }
}
