package dev.ordo.client;

/**
 * Thrown by a handler: the item can never succeed (malformed, refused for good); send it to the
 * dead-letter topic now, with this message as its error, whatever attempts it has left.
 */
public final class DeadLetterNow extends HandlerSignal {
  public DeadLetterNow(String reason) {
    super(reason, null);
  }

  public DeadLetterNow(String reason, Throwable cause) {
    super(reason, cause);
  }
}
