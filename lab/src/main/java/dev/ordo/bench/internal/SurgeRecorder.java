package dev.ordo.bench.internal;

import dev.ordo.bench.internal.PhaseClock.Phase;
import java.util.Arrays;
import java.util.BitSet;

/**
 * What the fleet did in a surge run, as workers start on items: for tenant A, each item's latency
 * from its enqueue (the payload's stamp) to a worker starting on it, filed under the phase it was
 * enqueued in; for tenant B, how many items workers started on in each phase (by the time they
 * did). An item counts once, by its sequence number, however often it is delivered. For A also the
 * part of that latency spent in the queue: from its enqueue to its consumer's handler receiving it,
 * before it waits for a worker of the fleet. Thread-safe.
 */
final class SurgeRecorder {
  private final PhaseClock clock;
  private final long[][] latencies = new long[Phase.values().length][];
  private final long[][] queued = new long[Phase.values().length][];
  private final int[] counts = new int[Phase.values().length];
  private final long[] tenantBByPhase = new long[Phase.values().length];
  private final BitSet tenantASeen = new BitSet();
  private final BitSet tenantBSeen = new BitSet();

  SurgeRecorder(PhaseClock clock) {
    this.clock = clock;
    Arrays.setAll(latencies, i -> new long[1024]);
    Arrays.setAll(queued, i -> new long[1024]);
  }

  /** A worker starts on A's item {@code sequence}, enqueued at {@code stampNanos}, now ({@code nowNanos}). */
  synchronized void tenantA(long sequence, long stampNanos, long nowNanos) {
    tenantA(sequence, stampNanos, nowNanos, nowNanos);
  }

  /**
   * A worker starts on A's item {@code sequence}, enqueued at {@code stampNanos}, now
   * ({@code nowNanos}); its handler received it at {@code receivedNanos}.
   */
  synchronized void tenantA(long sequence, long stampNanos, long receivedNanos, long nowNanos) {
    if (!first(tenantASeen, sequence)) {
      return;
    }
    int p = clock.phaseOf(stampNanos).ordinal();
    if (counts[p] == latencies[p].length) {
      latencies[p] = Arrays.copyOf(latencies[p], counts[p] * 2);
      queued[p] = Arrays.copyOf(queued[p], counts[p] * 2);
    }
    queued[p][counts[p]] = receivedNanos - stampNanos;
    latencies[p][counts[p]++] = nowNanos - stampNanos;
  }

  /** A worker starts on B's item {@code sequence} now ({@code nowNanos}). */
  synchronized void tenantB(long sequence, long nowNanos) {
    if (first(tenantBSeen, sequence)) {
      tenantBByPhase[clock.phaseOf(nowNanos).ordinal()]++;
    }
  }

  /** A's enqueue-to-worker latencies (ms) of the items enqueued in {@code phase}. */
  synchronized Stats.Latency tenantA(Phase phase) {
    int p = phase.ordinal();
    return Stats.latency(latencies[p], counts[p], 1e6);
  }

  /** The queue's part of A's latencies (ms): enqueue to its handler receiving it, of items enqueued in {@code phase}. */
  synchronized Stats.Latency tenantAQueued(Phase phase) {
    int p = phase.ordinal();
    return Stats.latency(queued[p], counts[p], 1e6);
  }

  /** B's items workers started on in {@code phase}. */
  synchronized long tenantB(Phase phase) {
    return tenantBByPhase[phase.ordinal()];
  }

  /** A's distinct items workers started on. */
  synchronized long tenantADelivered() {
    return tenantASeen.cardinality();
  }

  /** B's distinct items workers started on. */
  synchronized long tenantBDelivered() {
    return tenantBSeen.cardinality();
  }

  private static boolean first(BitSet seen, long sequence) {
    int i = Math.toIntExact(sequence);
    if (seen.get(i)) {
      return false;
    }
    seen.set(i);
    return true;
  }
}
