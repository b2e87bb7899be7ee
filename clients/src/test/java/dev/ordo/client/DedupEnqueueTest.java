package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Deduplication IDs through the Java client against a real cluster and queue (decisions D57). */
@KafkaCluster
class DedupEnqueueTest {
  private static TestQueue queue;
  private static QueueProducer producer;
  private static QueueClient client;

  @BeforeAll
  static void startQueue(RealKafka kafka) throws Exception {
    queue = TestQueue.start(kafka, "dedup");
    producer = new QueueProducer(queue.producerConfig());
    client = new QueueClient(queue.clientConfig());
  }

  @AfterAll
  static void stopQueue() throws Exception {
    client.close();
    producer.close();
    queue.close();
  }

  private static EnqueueRequest.Builder item(String topic, String payload) {
    return EnqueueRequest.builder("dd", topic, payload.getBytes(StandardCharsets.UTF_8));
  }

  /** Dequeues until nothing more comes (5 s for the first, then 1 s); acks what came. */
  private static List<QueueItem> drain(String topic) throws Exception {
    List<QueueItem> all = new ArrayList<>();
    while (true) {
      List<QueueItem> got = client.dequeue("dd", topic, 10, Duration.ofSeconds(all.isEmpty() ? 5 : 1)).get(30, TimeUnit.SECONDS);
      if (got.isEmpty()) {
        return all;
      }
      all.addAll(got);
      for (QueueItem d : got) {
        client.ack(d).get(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aSecondEnqueueWithTheSameIdIsRefusedAndNamesTheFirstItem() throws Exception {
    long before = queue.metrics().get(QueueMetrics.DEDUP_DUPLICATE);
    Enqueued first = client.enqueue(producer, item("orders", "a").dedupId("order-42").build(), Duration.ZERO)
        .get(30, TimeUnit.SECONDS);
    assertFalse(first.duplicate());
    Enqueued second = client.enqueue(producer, item("orders", "b").dedupId("order-42").build(), Duration.ZERO)
        .get(30, TimeUnit.SECONDS);
    assertTrue(second.duplicate(), second::toString);
    assertEquals(first.id(), second.id(), "the first item's ID");
    Enqueued other = client.enqueue(producer, item("orders", "c").dedupId("order-43").build(), Duration.ZERO)
        .get(30, TimeUnit.SECONDS);
    assertFalse(other.duplicate());
    assertNotEquals(first.id(), other.id());

    List<QueueItem> items = drain("orders");
    assertEquals(List.of("a", "c"), items.stream()
        .map(d -> new String(d.payload(), StandardCharsets.UTF_8)).sorted().toList(),
        "the duplicate was not enqueued");
    assertEquals(1, queue.metrics().get(QueueMetrics.DEDUP_DUPLICATE) - before);
  }

  @Test
  void theProducerSendsAnIdsDuplicatesToOnePartitionAndTheQueueRefusesThemToo() throws Exception {
    List<ItemId> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(producer.enqueue(item("plain", "p" + i).dedupId("same").build()).get(30, TimeUnit.SECONDS));
    }
    assertEquals(1, ids.stream().map(ItemId::partition).distinct().count(), "one partition: " + ids);
    assertEquals(1, drain("plain").size(), "four duplicates refused");
  }

  /**
   * Decisions D62: under {@code shards: 2} a grouped item with an ID goes to the shard its ID hashes to.
   * A new producer's very first such item, sent with no backlog wait (as the HTTP API sends), must go
   * there too, not to the group's home before the producer has read the policies: else a duplicate
   * from a producer that has read them lands on the other shard and is taken in.
   */
  @Test
  void aNewProducersFirstGroupedItemWithAnIdGoesToTheIdsShard() throws Exception {
    try (NamespaceAdmin admin = new NamespaceAdmin(java.util.Map.of("bootstrap.servers",
        queue.kafka.bootstrapServers()), queue.topics.cluster())) {
      admin.set("dds", new NamespacePolicy(null).withShards(2));
    }
    String group = "tenant-7";
    int[] shards = dev.ordo.api.Shards.of(group, 2, TestQueue.PARTITIONS);
    String id = null;
    for (int i = 0; id == null; i++) {
      if (dev.ordo.api.Shards.forDedup(shards, "dds", "orders", "order-" + i) != shards[0]) {
        id = "order-" + i; // an ID whose shard is not the group's home
      }
    }
    String dedupId = id;
    try (QueueProducer fresh = new QueueProducer(queue.producerConfig());
         QueueProducer other = new QueueProducer(queue.producerConfig())) {
      ItemId first = fresh.enqueue(EnqueueRequest.builder("dds", "orders", "a".getBytes(StandardCharsets.UTF_8))
          .groupKey(group).dedupId(dedupId).build(), Duration.ZERO).get(30, TimeUnit.SECONDS);
      assertEquals(shards[1], first.partition(), "the ID's shard, not the home " + shards[0]);
      ItemId again = other.enqueue(EnqueueRequest.builder("dds", "orders", "b".getBytes(StandardCharsets.UTF_8))
          .groupKey(group).dedupId(dedupId).build()).get(30, TimeUnit.SECONDS);
      assertEquals(first.partition(), again.partition(), "the duplicate meets the first");
    }
  }

  @Test
  void withoutAnIdTheClientDoesNotWaitForTheQueue() throws Exception {
    Enqueued e = client.enqueue(producer, item("free", "x").build(), Duration.ZERO).get(30, TimeUnit.SECONDS);
    assertFalse(e.duplicate());
    assertEquals(1, drain("free").size());
  }

  @Test
  void anIdLongerThan128CharactersOrNotPrintableAsciiIsRefusedAtOnce() {
    IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
        () -> item("t", "x").dedupId("x".repeat(129)).build());
    assertTrue(tooLong.getMessage().contains("dedupId is longer than 128"), tooLong.getMessage());
    assertThrows(IllegalArgumentException.class, () -> item("t", "x").dedupId("a b").build());
    assertThrows(IllegalArgumentException.class, () -> item("t", "x").dedupId("").build());
  }
}
