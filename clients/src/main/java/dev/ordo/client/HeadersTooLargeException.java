package dev.ordo.client;

/** An enqueue whose headers are over the configured limit ({@code ordo.headers.max.bytes}); nothing was written. */
public final class HeadersTooLargeException extends TooLargeException {
  public HeadersTooLargeException(int size, int limit) {
    super("headers of " + size + " bytes are over the limit of " + limit + " bytes (ordo.headers.max.bytes)", size, limit);
  }
}
