package dev.ordo.client;

import java.time.Duration;

/**
 * Thrown by a handler: this attempt failed, try the item again after {@link #delay()} instead of
 * the consumer's backoff (like River's JobSnooze). The attempt counts toward max attempts.
 */
public final class RetryLater extends HandlerSignal {
  private final Duration delay;
  private final byte[] metadata;

  public RetryLater(Duration delay) {
    this(delay, null, null, null);
  }

  public RetryLater(Duration delay, String reason) {
    this(delay, reason, null, null);
  }

  /**
   * @param metadata new metadata for the item (e.g. progress to resume from), or null to keep it
   */
  public RetryLater(Duration delay, String reason, byte[] metadata, Throwable cause) {
    super(reason == null ? "retry after " + delay : reason, cause);
    if (delay == null || delay.isNegative()) {
      throw new IllegalArgumentException("retry delay must not be negative, got " + delay);
    }
    this.delay = delay;
    this.metadata = metadata;
  }

  public Duration delay() {
    return delay;
  }

  /** Null: keep the item's metadata. */
  public byte[] metadata() {
    return metadata;
  }
}
