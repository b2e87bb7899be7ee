package dev.ordo.client.dlq;

import java.util.List;

/** A dead letter named by ID is not on {@code <cluster>.dlq} (never was, or past its retention). HTTP: 404. */
public class UnknownDeadLetterException extends RuntimeException {
  private final List<String> ids;

  public UnknownDeadLetterException(List<String> ids) {
    super("unknown dead letter" + (ids.size() == 1 ? " " : "s ") + String.join(", ", ids)
        + ": no such record on the dead-letter topic (never written, or past its retention)");
    this.ids = List.copyOf(ids);
  }

  public List<String> ids() {
    return ids;
  }
}
