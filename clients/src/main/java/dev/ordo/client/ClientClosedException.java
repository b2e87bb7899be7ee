package dev.ordo.client;

/**
 * A call on a client ({@link QueueClient}, or the one a {@link LeaseConsumer} embeds) after it was
 * closed, or a request still pending when it closed. Nothing was sent (or, for a pending request,
 * its answer will not be read). It extends {@link IllegalStateException}, which such calls threw
 * before it existed, so code catching that still works; the HTTP API answers it 503 (the server is
 * shutting down).
 */
public class ClientClosedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** {@code what}: the closed client, e.g. {@code client orders-1}. */
  public ClientClosedException(String what) {
    super(what + " is closed");
  }
}
