package dev.ordo.client.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.stream.internal.RetryCopies;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** A record's attempt and origin travel in headers from copy to copy, and end in its dead letter. */
class StreamRecordTest {
  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
  private static final byte[] VALUE = "v".getBytes(StandardCharsets.UTF_8);

  @Test
  void aSourceRecordIsTheFirstAttemptWhateverItsHeadersSay() {
    RecordHeaders h = new RecordHeaders();
    h.add(RetryHeaders.ATTEMPT, bytes("7"));
    StreamRecord r = StreamRecord.of(record("payments", 2, 40, h), false);
    assertEquals(1, r.attempt());
    assertFalse(r.isRetry());
    assertEquals("payments", r.sourceTopic());
    assertEquals(2, r.sourcePartition());
    assertEquals(40, r.sourceOffset());
    assertNull(r.previousError());
  }

  @Test
  void copiesCarryTheNextAttemptTheOriginAndTheErrorAndKeepTheRecordsOwnHeaders() {
    RecordHeaders own = new RecordHeaders();
    own.add("trace", bytes("t-1"));
    StreamRecord first = StreamRecord.of(record("payments", 2, 40, own), false);
    Headers copy1 = RetryCopies.retryHeaders(first, 2, "java.io.IOException: down");
    StreamRecord second = StreamRecord.of(record("billing.retry", 0, 5, copy1), true);
    assertEquals(2, second.attempt());
    assertTrue(second.isRetry());
    assertEquals("payments", second.sourceTopic());
    assertEquals(2, second.sourcePartition());
    assertEquals(40, second.sourceOffset());
    assertEquals("java.io.IOException: down", second.previousError());

    Headers copy2 = RetryCopies.retryHeaders(second, 3, "java.io.IOException: still down");
    StreamRecord third = StreamRecord.of(record("billing.retry", 1, 9, copy2), true);
    assertEquals(3, third.attempt());
    assertEquals(40, third.sourceOffset());
    assertEquals("java.io.IOException: still down", third.previousError());
    assertEquals(1, count(copy2, RetryHeaders.ATTEMPT), "replaced, not added");
    assertEquals(1, count(copy2, RetryHeaders.LAST_ERROR));
    assertEquals("t-1", new String(copy2.lastHeader("trace").value(), StandardCharsets.UTF_8));
  }

  @Test
  void aRetryCopyWithoutReadableHeadersIsItsOwnOrigin() {
    RecordHeaders h = new RecordHeaders();
    h.add(RetryHeaders.ATTEMPT, bytes("many"));
    StreamRecord r = StreamRecord.of(record("billing.retry", 1, 9, h), true);
    assertEquals(2, r.attempt());
    assertEquals("billing.retry", r.sourceTopic());
    assertEquals(9, r.sourceOffset());
  }

  @Test
  void theDeadLetterHoldsTheReasonAttemptsLastErrorRawBytesAndOrigin() {
    StreamRecord first = StreamRecord.of(record("payments", 2, 40, new RecordHeaders()), false);
    StreamRecord fourth = StreamRecord.of(record("billing.retry", 1, 9, RetryCopies.retryHeaders(first, 4, "e3")), true);
    ProducerRecord<byte[], byte[]> out = RetryCopies.deadLetter("c.dlq", fourth, DeadLetterReason.MAX_ATTEMPTS,
        "failed 4 of 4 attempts", "java.io.IOException: e4", true, 1234);
    assertEquals("c.dlq", out.topic());
    assertArrayEquals(KEY, out.key());
    DeadLetter d = OrdoSerdes.DEAD_LETTER.decode(out.value());
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, d.getReason());
    assertEquals(4, d.getAttempts());
    assertEquals("java.io.IOException: e4", d.getLastError());
    assertArrayEquals(VALUE, bytes(d.getRawValue()));
    assertArrayEquals(KEY, bytes(d.getRawKey()));
    assertEquals("payments", d.getSourceTopic());
    assertEquals(2, d.getSourcePartition());
    assertEquals(40L, d.getSourceOffset());
    assertEquals(1234L, d.getDeadAt());

    DeadLetter bare = OrdoSerdes.DEAD_LETTER.decode(RetryCopies.deadLetter("c.dlq", fourth, DeadLetterReason.INVALID,
        "too large", "e4", false, 1234).value());
    assertNull(bare.getRawValue());
    assertEquals(40L, bare.getSourceOffset());
  }

  private static ConsumerRecord<byte[], byte[]> record(String topic, int partition, long offset, Headers headers) {
    return new ConsumerRecord<>(topic, partition, offset, 0L, TimestampType.CREATE_TIME, KEY.length, VALUE.length,
        KEY, VALUE, headers, Optional.empty());
  }

  private static long count(Headers headers, String key) {
    return StreamSupport.stream(headers.headers(key).spliterator(), false).count();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(java.nio.ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
