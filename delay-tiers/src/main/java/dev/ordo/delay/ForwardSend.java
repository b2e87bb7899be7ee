package dev.ordo.delay;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/** One send of the open transaction, for the tier record at {@code tp}@{@code offset}, and once completed its error. */
final class ForwardSend implements Callback {
  final TopicPartition tp;
  final long offset;
  final Outgoing.Kind kind;
  /** Sent alone, flushed before and after: an error is this record's own. */
  final boolean alone;
  volatile Exception error;

  ForwardSend(TopicPartition tp, long offset, Outgoing.Kind kind, boolean alone) {
    this.tp = tp;
    this.offset = offset;
    this.kind = kind;
    this.alone = alone;
  }

  @Override
  public void onCompletion(RecordMetadata metadata, Exception exception) {
    error = exception;
  }
}
