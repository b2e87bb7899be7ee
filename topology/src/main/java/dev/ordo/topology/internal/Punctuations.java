package dev.ordo.topology.internal;

import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * A queue task's wall-clock punctuations, scheduled and cancelled as {@link Ticks} and the planner
 * decide: the coarse tick always, at the same instants on every task of the instance; the fine tick
 * only while the task needs it (decisions D38); the continuation of a dispatch only while one is
 * pending (decisions D44). It decides nothing: the {@code QueueProcessor} says what it needs.
 */
final class Punctuations {
  /** The continuation's interval: it fires at the stream thread's next punctuation check. */
  static final long CONTINUATION_MS = 1;

  private final ProcessorContext<?, ?> context;
  private final long fineMs;
  private final long coarseMs;
  private final Punctuator tick;
  private final Punctuator continuationTick;
  /** The fine tick while the task needs it, else null: the coarse tick alone runs. */
  private Cancellable fine;
  /** While a dispatch step left demand unserved: its continuation, else null. */
  private Cancellable continuation;

  /** Schedules the coarse tick and, until the first tick finds the task quiet, the fine one. */
  Punctuations(ProcessorContext<?, ?> context, long fineMs, long statsMs, Punctuator tick, Punctuator continuationTick) {
    this.context = context;
    this.fineMs = fineMs;
    this.coarseMs = Ticks.coarseMs(fineMs, statsMs);
    this.tick = tick;
    this.continuationTick = continuationTick;
    context.schedule(Instant.EPOCH, Duration.ofMillis(coarseMs), PunctuationType.WALL_CLOCK_TIME, tick);
    fine = context.schedule(Duration.ofMillis(fineMs), PunctuationType.WALL_CLOCK_TIME, tick);
  }

  long coarseMs() {
    return coarseMs;
  }

  boolean fineArmed() {
    return fine != null;
  }

  /** Arms the fine tick when {@code needed}, cancels it when not. */
  void fine(boolean needed) {
    if (needed && fine == null) {
      fine = context.schedule(Duration.ofMillis(fineMs), PunctuationType.WALL_CLOCK_TIME, tick);
    } else if (!needed && fine != null) {
      fine.cancel();
      fine = null;
    }
  }

  /** Arms the continuation while {@code pending}, cancels it when not; true when it was armed just now. */
  boolean continuation(boolean pending) {
    if (pending && continuation == null) {
      continuation = context.schedule(Duration.ofMillis(CONTINUATION_MS), PunctuationType.WALL_CLOCK_TIME,
          continuationTick);
      return true;
    }
    if (!pending && continuation != null) {
      continuation.cancel();
      continuation = null;
    }
    return false;
  }
}
