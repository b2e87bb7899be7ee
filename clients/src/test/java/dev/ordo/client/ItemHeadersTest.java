package dev.ordo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Headers given to QueueProducer reach the consumers with the item, against a real cluster: a
 * LeaseConsumer's handler on every attempt, QueueClient's dequeue, and the dead letter.
 */
@KafkaCluster
class ItemHeadersTest extends LeaseConsumerTestBase {
  private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    startQueue(kafka, "hdr");
  }

  private static ItemHeaders expected() {
    return ItemHeaders.builder().add("traceparent", TRACEPARENT).add("tag", "a").add("tag", "b")
        .add("bin", new byte[] {(byte) 0xc3, 0x28}).build();
  }

  @Test
  void aLeaseConsumerSeesTheHeadersOnEveryAttemptAndTheDeadLetterKeepsThem() throws Exception {
    List<ItemHeaders> seen = new CopyOnWriteArrayList<>();
    LeaseConsumer c = consumer("hdr-group", "hdr", Map.of(
        LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 50L,
        LeaseConsumerConfig.BACKOFF_MAX_CONFIG, 50L,
        LeaseConsumerConfig.BACKOFF_JITTER_CONFIG, 0.0));
    c.start(item -> {
      seen.add(item.headers());
      throw new IllegalStateException("attempt " + item.attempt() + " fails");
    });
    awaitAssigned(c);
    ItemId id = producer.enqueue(item("hdr", "traced").headers(expected()).maxAttempts(2).build())
        .get(10, TimeUnit.SECONDS);

    DeadLetter dead = awaitDeadLetter(id);
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, dead.getReason());
    assertEquals(List.of(expected(), expected()), seen, "the first delivery and the retry after the nack");
    assertEquals(TRACEPARENT, seen.get(0).lastString("traceparent"));
    assertEquals(expected(), ItemHeaders.fromRecords(dead.getItem().getHeaders()));
  }

  @Test
  void queueClientDequeueReturnsTheHeadersAndAnItemWithoutHasNone() throws Exception {
    try (QueueClient client = new QueueClient(queue.clientConfig())) {
      producer.enqueue(item("plain", "with").header("traceparent", TRACEPARENT).groupKey("k").build())
          .get(10, TimeUnit.SECONDS);
      producer.enqueue(item("plain", "without").groupKey("k").build()).get(10, TimeUnit.SECONDS);
      List<QueueItem> got = new CopyOnWriteArrayList<>();
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        got.addAll(client.dequeue("plain", "t", 2, Duration.ofSeconds(1)).get(10, TimeUnit.SECONDS));
        return got.size() == 2;
      });
      for (QueueItem d : got) {
        String payload = new String(d.payload(), java.nio.charset.StandardCharsets.UTF_8);
        if (payload.equals("with")) {
          assertEquals(TRACEPARENT, d.headers().lastString("traceparent"));
        } else {
          assertTrue(d.headers().isEmpty(), "no headers, none delivered");
        }
        client.ack(d).get(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void theProducerRefusesHeadersOverItsLimitAndReservedNames() {
    Map<String, Object> config = queue.producerConfig();
    config.put(QueueProducerConfig.HEADERS_MAX_BYTES_CONFIG, 16);
    try (QueueProducer small = new QueueProducer(config)) {
      HeadersTooLargeException e = assertThrows(HeadersTooLargeException.class,
          () -> small.enqueue(item("hdr", "x").header("traceparent", TRACEPARENT).build()));
      assertEquals(11 + TRACEPARENT.length(), e.size());
      assertEquals(16, e.limit());
    }
    IllegalArgumentException reserved = assertThrows(IllegalArgumentException.class,
        () -> item("hdr", "x").header("ordo.redriven.from", "1-1").build());
    assertTrue(reserved.getMessage().contains("'ordo.redriven.from' is reserved"), reserved.getMessage());
  }
}
