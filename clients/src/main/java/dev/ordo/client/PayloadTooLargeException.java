package dev.ordo.client;

/** An enqueue whose payload is over the configured limit; nothing was written. */
public final class PayloadTooLargeException extends TooLargeException {
  public PayloadTooLargeException(int size, int limit) {
    super("payload of " + size + " bytes is over the limit of " + limit + " bytes", size, limit);
  }
}
