package dev.ordo.client;

/** An enqueue with a part over its configured limit; nothing was written. */
public abstract class TooLargeException extends IllegalArgumentException {
  private final int size;
  private final int limit;

  TooLargeException(String message, int size, int limit) {
    super(message);
    this.size = size;
    this.limit = limit;
  }

  /** The part's size, bytes. */
  public int size() {
    return size;
  }

  /** The limit it is over, bytes. */
  public int limit() {
    return limit;
  }
}
