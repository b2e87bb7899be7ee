package dev.ordo.delay;

import org.apache.kafka.clients.producer.ProducerRecord;

/** What a forwarder does with one tier record now, as {@link OutgoingDecider} decides it. */
sealed interface Outgoing {
  /** Where a produced record goes; each counts in {@link ForwarderStats} once its transaction committed. */
  enum Kind { TIER, TARGET, DEAD_LETTER }

  /** Not yet: at {@code until}; {@code outOfLine}: held aside so the records behind go on, else at the head. */
  record Later(long until, boolean outOfLine) implements Outgoing {}

  /**
   * Produce {@code record} in the open transaction. {@code lateMs}: for a {@link Kind#TARGET}, how late it
   * goes (ms past its due time, negative if early); 0 otherwise.
   */
  record Produce(ProducerRecord<byte[], byte[]> record, Kind kind, long lateMs) implements Outgoing {}

  /** Nothing can be written for it (neither it nor its dead letter): skipped, counted as dropped. */
  record Skip() implements Outgoing {}
}
