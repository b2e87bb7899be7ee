package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Bad input is refused before anything is written, with a message naming the field. */
class EnqueueRequestTest {
  private static EnqueueRequest.Builder valid() {
    return EnqueueRequest.builder("ns", "t", new byte[] {1});
  }

  @Test
  void refusesEachBadFieldNamingIt() {
    Map<String, UnaryOperator<EnqueueRequest.Builder>> bad = Map.of(
        "delay", b -> b.delay(Duration.ofMillis(-1)),
        "lease", b -> b.lease(Duration.ZERO),
        "ttl", b -> b.ttl(Duration.ofSeconds(-5)),
        "maxAttempts", b -> b.maxAttempts(0),
        "groupKey", b -> b.groupKey("a/b"),
        "deliverAfter", b -> b.delay(Duration.ofSeconds(1)).deliverAfter(Instant.now()));
    bad.forEach((field, change) -> {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> change.apply(valid()).build());
      assertTrue(e.getMessage().contains(field), field + ": " + e.getMessage());
    });
    for (String namespace : new String[] {null, "", "a/b", "x\u0001", "n".repeat(201)}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> EnqueueRequest.builder(namespace, "t", new byte[0]).build());
      assertTrue(e.getMessage().startsWith("namespace"), e.getMessage());
    }
    assertTrue(assertThrows(IllegalArgumentException.class, () -> EnqueueRequest.builder("ns", "*", new byte[0]).build())
        .getMessage().contains("topic"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> EnqueueRequest.builder("ns", "t", null).build())
        .getMessage().contains("payload"));
  }

  @Test
  void aDelayBecomesAnAbsoluteTimeWhenSentAndZeroMeansAtOnce() {
    assertEquals(1_500L, valid().delay(Duration.ofMillis(500)).build().deliverAfterMs(1_000));
    assertEquals(null, valid().delay(Duration.ZERO).build().deliverAfterMs(1_000));
    assertEquals(42L, valid().deliverAfter(Instant.ofEpochMilli(42)).build().deliverAfterMs(1_000));
    assertEquals(null, valid().build().deliverAfterMs(1_000));
  }

  /**
   * Kafka's producer sizes a header name by code points (an unpaired high surrogate counts 4 bytes) but
   * writes {@code String.getBytes} ('?', one byte): the broker refuses such a record's whole batch, other
   * enqueues' records in it too (HttpFuzzTest found it through the HTTP API). Such a name is refused here.
   */
  @Test
  void refusesAHeaderNameThatIsNotUnicodeText() {
    for (String name : new String[] {"\ud800", "a\ud800b", "\udc00", "b\udbff"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> valid().header(name, "v").build(), name);
      assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
    }
    assertEquals("\ud83d\ude00", valid().header("\ud83d\ude00", "v").build().headers().entries().get(0).name(),
        "a surrogate pair is a code point like any other");
  }

  @Test
  void theProducerRefusesAPayloadOverItsLimitBeforeWritingAnything() {
    // No broker: the check happens before anything is sent.
    try (QueueProducer producer = new QueueProducer(Map.of("bootstrap.servers", "127.0.0.1:9",
        QueueProducerConfig.PAYLOAD_MAX_BYTES_CONFIG, 4))) {
      PayloadTooLargeException e = assertThrows(PayloadTooLargeException.class,
          () -> producer.enqueue(EnqueueRequest.builder("ns", "t", new byte[5]).build()));
      assertEquals(5, e.size());
      assertTrue(e.getMessage().contains("payload"), e.getMessage());
      assertThrows(PayloadTooLargeException.class, () -> producer.enqueueAll(List.of(
          EnqueueRequest.builder("ns", "t", new byte[1]).build(), EnqueueRequest.builder("ns", "t", new byte[9]).build())));
    }
  }
}
