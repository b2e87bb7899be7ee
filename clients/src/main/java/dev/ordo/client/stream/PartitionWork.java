package dev.ordo.client.stream;

import dev.ordo.client.stream.internal.OffsetTracker;
import java.util.ArrayDeque;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/** What a {@link StreamConsumer}'s poll thread knows of one partition it owns. Poll thread only. */
final class PartitionWork {
  final TopicPartition tp;
  final boolean retry;
  final ArrayDeque<ConsumerRecord<byte[], byte[]>> pending = new ArrayDeque<>();
  OffsetTracker tracker; // from the first fetched record
  int running; // handed to workers, handler not returned
  int settling; // retry copy or dead letter being written
  long committed = -1;
  boolean revoked;

  PartitionWork(TopicPartition tp, boolean retry) {
    this.tp = tp;
    this.retry = retry;
  }

  /** Records of it run, or their retry copies or dead letters are being written. */
  boolean busy() {
    return running > 0 || settling > 0;
  }
}
