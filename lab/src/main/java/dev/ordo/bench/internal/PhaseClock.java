package dev.ordo.bench.internal;

import java.time.Duration;

/**
 * The phases of a surge run on the {@link System#nanoTime()} clock, from a start: an uncounted
 * warm-up, then before, during and after the surge; anything later is the drain (A has stopped
 * offering, the bench waits for what is still in the queue). Pure.
 */
public final class PhaseClock {
  /** The phases in order. */
  public enum Phase { WARM_UP, BEFORE, DURING, AFTER, DRAIN }

  /** The phases that are measured and reported. */
  public static final Phase[] MEASURED = {Phase.BEFORE, Phase.DURING, Phase.AFTER};

  private final long[] starts = new long[Phase.values().length];

  /** Phases from {@code startNanos}: {@code warmUp}, {@code calm}, {@code surge}, {@code calm}. */
  public PhaseClock(long startNanos, Duration warmUp, Duration calm, Duration surge) {
    starts[Phase.WARM_UP.ordinal()] = startNanos;
    starts[Phase.BEFORE.ordinal()] = startNanos + warmUp.toNanos();
    starts[Phase.DURING.ordinal()] = starts[Phase.BEFORE.ordinal()] + calm.toNanos();
    starts[Phase.AFTER.ordinal()] = starts[Phase.DURING.ordinal()] + surge.toNanos();
    starts[Phase.DRAIN.ordinal()] = starts[Phase.AFTER.ordinal()] + calm.toNanos();
  }

  /** When {@code phase} starts. */
  public long start(Phase phase) {
    return starts[phase.ordinal()];
  }

  /** When {@code phase} ends: the next one's start ({@link Long#MAX_VALUE} for the drain). */
  public long end(Phase phase) {
    int next = phase.ordinal() + 1;
    return next < starts.length ? starts[next] : Long.MAX_VALUE;
  }

  /** The phase {@code nanos} falls in; times before the start count as warm-up. */
  public Phase phaseOf(long nanos) {
    Phase[] all = Phase.values();
    for (int i = all.length - 1; i > 0; i--) {
      if (nanos - starts[i] >= 0) {
        return all[i];
      }
    }
    return Phase.WARM_UP;
  }
}
