package dev.ordo.client.stream.internal;

import dev.ordo.client.stream.RetryHeaders;
import dev.ordo.client.stream.StreamRecord;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.serde.AvroCodec;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** The records a stream consumer writes for a failed record: its retry copy's headers and its dead letter. */
public final class RetryCopies {
  static {
    AvroCodec.trustOrdoSchemas(); // DeadLetter's builder reads schema defaults before any codec may have loaded
  }

  private RetryCopies() {}

  /**
   * The record's own headers (its previous {@link RetryHeaders} left out) plus the attempt the copy
   * will be, where the record was first read and why this attempt failed.
   */
  public static Headers retryHeaders(StreamRecord record, int nextAttempt, String error) {
    RecordHeaders headers = ownHeaders(record);
    headers.add(RetryHeaders.ATTEMPT, utf8(Integer.toString(nextAttempt)));
    addSource(headers, record);
    if (error != null) {
      headers.add(RetryHeaders.LAST_ERROR, utf8(error));
    }
    return headers;
  }

  /**
   * The {@code <cluster>.dlq} record of {@code record}: a {@link DeadLetter} with the reason, attempts,
   * last error and the coordinates where the record was first read, keyed by the record's key, with its
   * headers and the {@link RetryHeaders} of its last attempt. With {@code withRaw} it carries the raw key
   * and value, so an operator can redrive it; without (when the dead letter with them could not be
   * written, e.g. too large) only the rest.
   */
  public static ProducerRecord<byte[], byte[]> deadLetter(String dlqTopic, StreamRecord record, DeadLetterReason reason,
      String detail, String lastError, boolean withRaw, long now) {
    DeadLetter letter = DeadLetter.newBuilder()
        .setReason(reason)
        .setDetail(detail)
        .setAttempts(record.attempt())
        .setLastError(lastError)
        .setRawKey(withRaw && record.key() != null ? ByteBuffer.wrap(record.key()) : null)
        .setRawValue(withRaw && record.value() != null ? ByteBuffer.wrap(record.value()) : null)
        .setSourceTopic(record.sourceTopic())
        .setSourcePartition(record.sourcePartition())
        .setSourceOffset(record.sourceOffset())
        .setDeadAt(now)
        .build();
    RecordHeaders headers = withRaw ? ownHeaders(record) : new RecordHeaders();
    headers.add(RetryHeaders.ATTEMPT, utf8(Integer.toString(record.attempt())));
    addSource(headers, record);
    if (lastError != null) {
      headers.add(RetryHeaders.LAST_ERROR, utf8(lastError));
    }
    return new ProducerRecord<>(dlqTopic, null, now, withRaw ? record.key() : null,
        OrdoSerdes.DEAD_LETTER.encode(letter), headers);
  }

  private static RecordHeaders ownHeaders(StreamRecord record) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : record.headers()) {
      if (!RetryHeaders.ALL.contains(h.key())) {
        headers.add(h.key(), h.value());
      }
    }
    return headers;
  }

  private static void addSource(RecordHeaders headers, StreamRecord record) {
    headers.add(RetryHeaders.SOURCE_TOPIC, utf8(record.sourceTopic()));
    headers.add(RetryHeaders.SOURCE_PARTITION, utf8(Integer.toString(record.sourcePartition())));
    headers.add(RetryHeaders.SOURCE_OFFSET, utf8(Long.toString(record.sourceOffset())));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
