package dev.ordo.client;

/** An enqueue whose payload is over the configured limit; nothing was written. */
public final class PayloadTooLargeException extends IllegalArgumentException {
  private final int size;
  private final int limit;

  public PayloadTooLargeException(int size, int limit) {
    super("payload of " + size + " bytes is over the limit of " + limit + " bytes");
    this.size = size;
    this.limit = limit;
  }

  public int size() {
    return size;
  }

  public int limit() {
    return limit;
  }
}
