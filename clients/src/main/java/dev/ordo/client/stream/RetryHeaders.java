package dev.ordo.client.stream;

import java.util.Set;

/**
 * The headers a {@link StreamConsumer} puts on a record's retry copy (and on its dead letter), next to
 * the record's own headers. Values are UTF-8 text (numbers in decimal), readable by any Kafka tool.
 * The consumer reads them only on records of its retry topic: a source record that happens to carry
 * them is a first attempt.
 */
public final class RetryHeaders {
  /** The attempt this delivery is: 2 on the first retry copy (a source record is attempt 1). */
  public static final String ATTEMPT = "ordo.attempt";
  /** The topic the record was first read from. */
  public static final String SOURCE_TOPIC = "ordo.source.topic";
  /** The partition the record was first read from. */
  public static final String SOURCE_PARTITION = "ordo.source.partition";
  /** The offset the record was first read at. */
  public static final String SOURCE_OFFSET = "ordo.source.offset";
  /** Why the previous attempt failed: the exception's class and message, at most 1,000 characters. */
  public static final String LAST_ERROR = "ordo.last.error";

  /** Every header above: replaced, not duplicated, on each copy. */
  public static final Set<String> ALL = Set.of(ATTEMPT, SOURCE_TOPIC, SOURCE_PARTITION, SOURCE_OFFSET, LAST_ERROR);

  private RetryHeaders() {}
}
