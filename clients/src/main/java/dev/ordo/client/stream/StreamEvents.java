package dev.ordo.client.stream;

/**
 * What a {@link StreamConsumer}'s other threads tell its poll thread, through one queue: a handler
 * returned (from a worker), a retry copy or dead letter was written or failed (from a producer callback).
 */
final class StreamEvents {
  private StreamEvents() {}

  sealed interface Event permits Handled, Written {}

  /** {@code failure}: null when the handler returned normally. */
  record Handled(PartitionWork work, StreamRecord record, Throwable failure) implements Event {}

  /** {@code error}: null when the write was acknowledged. */
  record Written(StreamSettlements.Settlement settlement, Throwable error) implements Event {}
}
