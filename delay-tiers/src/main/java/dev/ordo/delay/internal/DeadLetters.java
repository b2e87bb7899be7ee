package dev.ordo.delay.internal;

import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Dead letters of the delay tiers: a tier record that cannot be forwarded, with why and where it was. */
public final class DeadLetters {
  private DeadLetters() {}

  /**
   * The {@code <cluster>.dlq} record for {@code source}. With {@code withRaw} it carries the source's
   * key and value bytes, so an operator can redrive it; without (when the raw record itself could not
   * be written, e.g. too large) only the reason and the source coordinates.
   */
  public static ProducerRecord<byte[], byte[]> record(String dlqTopic, ConsumerRecord<byte[], byte[]> source,
      DeadLetterReason reason, String detail, boolean withRaw, long now) {
    DeadLetter letter = DeadLetter.newBuilder()
        .setReason(reason)
        .setDetail(detail)
        .setRawKey(withRaw && source.key() != null ? ByteBuffer.wrap(source.key()) : null)
        .setRawValue(withRaw && source.value() != null ? ByteBuffer.wrap(source.value()) : null)
        .setSourceTopic(source.topic())
        .setSourcePartition(source.partition())
        .setSourceOffset(source.offset())
        .setDeadAt(now)
        .build();
    return new ProducerRecord<>(dlqTopic, null, now, withRaw ? source.key() : null,
        OrdoSerdes.DEAD_LETTER.encode(letter));
  }
}
