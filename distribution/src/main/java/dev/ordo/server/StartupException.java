package dev.ordo.server;

/**
 * The server could not start, for a reason the user can act on. The message is one line, shown as
 * is (no stack trace): it names what is wrong and, where it helps, what to do.
 */
public class StartupException extends RuntimeException {
  public StartupException(String message) {
    super(message);
  }

  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
