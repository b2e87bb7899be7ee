package dev.ordo.client;

/**
 * A handler's decision about its item, thrown from {@link ItemHandler#handle}: {@link RetryLater}
 * or {@link DeadLetterNow}. Any other exception is a retriable failure with backoff.
 */
public abstract sealed class HandlerSignal extends RuntimeException permits RetryLater, DeadLetterNow {
  HandlerSignal(String message, Throwable cause) {
    super(message, cause);
  }
}
