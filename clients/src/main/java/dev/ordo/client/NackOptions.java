package dev.ordo.client;

import java.time.Duration;

/**
 * What a nack asks for.
 *
 * @param delay wait before the item is ready again; zero for at once (never negative)
 * @param metadata new metadata for the item, or null to keep its metadata
 * @param error why it failed, kept in the item's attempt history and dead letter; may be null
 * @param deadLetter true: dead-letter the item now, whatever its attempts
 */
public record NackOptions(Duration delay, byte[] metadata, String error, boolean deadLetter) {
  /** Longest error text sent; longer ones are cut. */
  public static final int MAX_ERROR_LENGTH = 1_000;

  public NackOptions {
    if (delay == null) {
      delay = Duration.ZERO;
    }
    if (delay.isNegative()) {
      throw new IllegalArgumentException("nack delay must not be negative, got " + delay);
    }
    if (error != null && error.length() > MAX_ERROR_LENGTH) {
      error = error.substring(0, MAX_ERROR_LENGTH);
    }
  }

  /** Ready again at once. */
  public static NackOptions retry() {
    return new NackOptions(Duration.ZERO, null, null, false);
  }

  /** Ready again after {@code delay}. */
  public static NackOptions retryAfter(Duration delay) {
    return new NackOptions(delay, null, null, false);
  }

  /** To the dead-letter topic now, with reason REJECTED. */
  public static NackOptions deadLetter(String error) {
    return new NackOptions(Duration.ZERO, null, error, true);
  }

  public NackOptions withMetadata(byte[] metadata) {
    return new NackOptions(delay, metadata, error, deadLetter);
  }

  public NackOptions withError(String error) {
    return new NackOptions(delay, metadata, error, deadLetter);
  }
}
