package dev.ordo.client.stream.internal;

import dev.ordo.client.DeadLetterNow;
import dev.ordo.client.HandlerSignal;
import dev.ordo.client.NackOptions;
import dev.ordo.client.RetryLater;
import dev.ordo.client.internal.Backoff;
import dev.ordo.schema.DeadLetterReason;

/**
 * What becomes of a record whose handler threw, when the stream flows: another attempt after a
 * backoff, or the dead-letter topic. Pure: the random draw for the jitter is an argument.
 */
public final class FailurePolicy {
  /** The decision. */
  public sealed interface Verdict permits Retry, GiveUp {}

  /** Copy the record to the retry topic, to come back as attempt {@code nextAttempt} after {@code delayMs}. */
  public record Retry(int nextAttempt, long delayMs) implements Verdict {}

  /** Dead-letter the record. */
  public record GiveUp(DeadLetterReason reason, String detail) implements Verdict {}

  private final int maxAttempts;
  private final Backoff backoff;

  public FailurePolicy(int maxAttempts, Backoff backoff) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max attempts must be at least 1, got " + maxAttempts);
    }
    this.maxAttempts = maxAttempts;
    this.backoff = backoff;
  }

  /**
   * @param attempt the attempt that failed, 1 for the first
   * @param random a draw in [0, 1) for the backoff's jitter
   */
  public Verdict onFailure(Throwable failure, int attempt, double random) {
    if (failure instanceof DeadLetterNow) {
      return new GiveUp(DeadLetterReason.REJECTED, "the handler rejected it on attempt " + attempt);
    }
    if (attempt >= maxAttempts) {
      return new GiveUp(DeadLetterReason.MAX_ATTEMPTS, "failed " + attempt + " of " + maxAttempts + " attempts");
    }
    long delay = failure instanceof RetryLater r ? r.delay().toMillis() : backoff.delayMs(attempt, random);
    return new Retry(attempt + 1, delay);
  }

  /** The error as kept in headers and dead letters: class and message (a signal's message), at most 1,000 characters. */
  public static String describe(Throwable t) {
    String text = t instanceof HandlerSignal
        ? String.valueOf(t.getMessage())
        : t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    return text.length() > NackOptions.MAX_ERROR_LENGTH ? text.substring(0, NackOptions.MAX_ERROR_LENGTH) : text;
  }
}
