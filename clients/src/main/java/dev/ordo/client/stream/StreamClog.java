package dev.ordo.client.stream;

import dev.ordo.client.DeadLetterNow;
import dev.ordo.client.stream.internal.ClogGuard;
import dev.ordo.client.stream.internal.FailurePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StreamConsumer}'s clog guard and its probe (step 5 of its protocol): each handler outcome
 * goes to the {@link ClogGuard}, and {@link #handled} says what becomes of the record; while probing,
 * which record is the probe. The guard's state is published for {@link StreamConsumer#clogState}. Pure
 * but for logging: time is an argument. Poll thread only, but {@link #published}.
 */
final class StreamClog {
  private static final Logger log = LoggerFactory.getLogger(StreamClog.class);

  /** What becomes of a record whose handler returned. */
  enum Step {
    /** Finished: it succeeded. */
    FINISH,
    /** Retried through the tiers or dead-lettered. */
    SETTLE,
    /** The probe failed: it is settled as any failure, and the stream is rewound to wait for the next probe. */
    SETTLE_AND_REWIND_ALL,
    /** Its failure clogged the stream: every partition is rewound, and it runs again. */
    CLOG,
    /** A failure while clogged: neither retried nor dead-lettered, it is fetched and runs again. */
    REOPEN
  }

  private record Probe(PartitionWork work, long offset) {}

  private final ClogGuard guard;
  private final String groupId;
  private final StreamCounters counters;
  private Probe probe;
  private volatile ClogState published = ClogState.FLOWING;

  StreamClog(ClogGuard guard, String groupId, StreamCounters counters) {
    this.guard = guard;
    this.groupId = groupId;
    this.counters = counters;
  }

  ClogState state() {
    return guard.state();
  }

  /** The state as of the poll thread's last turn, for any thread. */
  ClogState published() {
    return published;
  }

  void publish() {
    published = guard.state();
  }

  /** Whether the clogged stream's next probe is due at {@code now}: then the caller rewinds it and {@link #startProbing}. */
  boolean probeDue(long now) {
    return guard.probeDue(now);
  }

  void startProbing() {
    probe = null;
    published = ClogState.PROBING;
  }

  /** Probing, and no probe runs yet: the next record handed out is the probe. */
  boolean wantsProbe() {
    return guard.state() == ClogState.PROBING && probe == null;
  }

  /** {@code record} of {@code w} was handed out as the probe. */
  void probeStarted(PartitionWork w, StreamRecord record) {
    probe = new Probe(w, record.offset());
    counters.probes.incrementAndGet();
    log.info("Stream of group {} is clogged: probing with {}", groupId, record);
  }

  /** Every partition stays paused: the stream is clogged, or its probe runs. */
  boolean pausesAll() {
    return guard.state() == ClogState.CLOGGED || (guard.state() == ClogState.PROBING && probe != null);
  }

  /** {@code timeout}, or less when clogged and the next probe is due sooner. */
  long pollTimeout(long now, long timeout) {
    if (guard.state() == ClogState.CLOGGED) {
      return Math.min(timeout, Math.max(0, guard.nextProbeAt() - now));
    }
    return timeout;
  }

  /** {@code w} is no longer owned: if its record was the probe, another record probes. */
  void dropped(PartitionWork w) {
    if (probe != null && probe.work() == w) {
      probe = null;
    }
  }

  /**
   * The handler of {@code record} of {@code w} returned at {@code now}, with {@code failure} (null:
   * normally): counts the outcome and says what becomes of the record. A {@link DeadLetterNow} is a verdict
   * on the record, not a sign of an outage.
   */
  Step handled(PartitionWork w, StreamRecord record, Throwable failure, long now) {
    boolean isProbe = probe != null && probe.work() == w && probe.offset() == record.offset();
    if (isProbe) {
      probe = null;
    }
    if (failure == null || failure instanceof DeadLetterNow) {
      if (isProbe) {
        guard.probeSucceeded(now);
        if (failure == null) {
          log.info("Stream of group {} flows again: the probe {} succeeded", groupId, record);
        }
      } else {
        guard.record(false, now);
      }
      return failure == null ? Step.FINISH : Step.SETTLE;
    }
    if (isProbe) {
      guard.probeFailed(now);
      log.info("Stream of group {} stays clogged: the probe {} failed ({}); next probe in {} ms", groupId, record,
          FailurePolicy.describe(failure), guard.backoffMs());
      return Step.SETTLE_AND_REWIND_ALL; // this one record moves on through the tiers
    }
    if (guard.state() != ClogState.FLOWING) {
      return Step.REOPEN;
    }
    if (!guard.record(true, now)) {
      return Step.SETTLE;
    }
    int[] window = guard.window(now);
    counters.clogs.incrementAndGet();
    log.warn("Stream of group {} clogged: {} of the last {} records failed (last: {}: {}). Pausing every partition"
        + " at its first unfinished record instead of copying failures into the delay tiers; first probe in {} ms",
        groupId, window[1], window[0], record, FailurePolicy.describe(failure), guard.backoffMs());
    return Step.CLOG;
  }
}
