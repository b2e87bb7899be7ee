package dev.ordo.client.dlq;

import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The dead letters a redrive or purge handles: chosen by ID, or by a filter ({@link #all()} is the
 * empty filter, said explicitly). Only dead letters on {@code <cluster>.dlq} when the job is
 * created are selected; later ones are not (as SQS's message move tasks).
 */
public record DeadLetterSelection(List<DeadLetterId> ids, DeadLetterFilter filter) {
  public DeadLetterSelection {
    if ((ids == null || ids.isEmpty()) == (filter == null)) {
      throw new IllegalArgumentException("select dead letters by ids or by a filter (or all), one of them");
    }
    ids = ids == null ? List.of() : List.copyOf(new TreeSet<>(ids));
  }

  public static DeadLetterSelection ids(List<DeadLetterId> ids) {
    Objects.requireNonNull(ids, "ids");
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("ids is empty: name at least one dead letter");
    }
    return new DeadLetterSelection(ids, null);
  }

  public static DeadLetterSelection filter(DeadLetterFilter filter) {
    return new DeadLetterSelection(null, Objects.requireNonNull(filter, "filter"));
  }

  public static DeadLetterSelection all() {
    return new DeadLetterSelection(null, DeadLetterFilter.ANY);
  }
}
