package dev.ordo.server.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns exceptions into the one-line reasons users see. */
public final class Messages {
  private Messages() {}

  /** The innermost useful message of {@code e}, on one line. */
  public static String oneLine(Throwable e) {
    Throwable t = e;
    while ((t.getMessage() == null || t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return message.replaceAll("\\s*\\R\\s*", " ").trim();
  }
}
