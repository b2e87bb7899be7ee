package dev.ordo.client;

import static org.awaitility.Awaitility.await;

import dev.ordo.api.ItemId;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.Requester;
import dev.ordo.testing.RealKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;

/**
 * What the LeaseConsumer tests share: one Ordo cluster per test class (topics, a running queue
 * instance, a producer) and the consumers a test started, closed after it.
 */
abstract class LeaseConsumerTestBase {
  static TestQueue queue;
  static QueueProducer producer;
  final List<LeaseConsumer> consumers = new ArrayList<>();

  static void startQueue(RealKafka kafka, String cluster) throws Exception {
    queue = TestQueue.start(kafka, cluster);
    producer = new QueueProducer(queue.producerConfig());
  }

  @AfterAll
  static void stopQueue() throws Exception {
    producer.close();
    queue.close();
  }

  @AfterEach
  void closeConsumers() {
    consumers.forEach(c -> c.close(Duration.ZERO));
  }

  /**
   * Commits the group's positions at the current end of deliveries with {@code mark}, as a member
   * would, then has the queue lease {@code 4} items to that member, which never reads them.
   */
  static Set<ItemId> deliverToGhost(String group, String namespace, String mark, Duration lease) throws Exception {
    try (Admin admin = queue.kafka.admin()) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < TestQueue.PARTITIONS; p++) {
        latest.put(new TopicPartition(queue.topics.deliveries(), p), OffsetSpec.latest());
      }
      Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
      admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(10, TimeUnit.SECONDS)
          .forEach((tp, info) -> positions.put(tp, new OffsetAndMetadata(info.offset(), mark)));
      admin.alterConsumerGroupOffsets(group, positions).all().get(10, TimeUnit.SECONDS);
    }
    Set<ItemId> ids = new HashSet<>();
    try (QueueClient ghost = new QueueClient(queue.clientConfig())) {
      for (int p = 0; p < TestQueue.PARTITIONS; p++) {
        ghost.sendDemand(p, new Requester(group + "/m-ghost", p), namespace, Map.of("t", 1), 30_000, true)
            .get(10, TimeUnit.SECONDS);
        ids.add(producer.enqueue(item(namespace, "p" + p).groupKey(QueueClientTest.keyFor(p)).lease(lease).build())
            .get(10, TimeUnit.SECONDS));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> ghost.activeTopics(namespace).get().stream()
          .mapToLong(TopicActivity::leased).sum() == ids.size());
    }
    return ids;
  }

  
  LeaseConsumer consumer(String group, String namespace, Map<String, Object> overrides) {
    return consumer(group, namespace, overrides, ConsumerFaults.NONE);
  }

  /** A consumer failing as {@code faults} says. */
  LeaseConsumer consumer(String group, String namespace, Map<String, Object> overrides, ConsumerFaults faults) {
    Map<String, Object> config = queue.consumerConfig(group, namespace);
    config.putAll(overrides);
    LeaseConsumer c = new LeaseConsumer(new LeaseConsumerConfig(config), faults);
    consumers.add(c);
    return c;
  }

  static void awaitAssigned(LeaseConsumer c) {
    await().atMost(Duration.ofSeconds(20)).until(() -> c.assignment().size() == TestQueue.PARTITIONS);
  }

  static void record(Map<String, Set<ItemId>> processed, String who, LeasedItem item, AtomicInteger runs) {
    processed.computeIfAbsent(who, k -> ConcurrentHashMap.newKeySet()).add(item.id());
    runs.incrementAndGet();
  }

  static EnqueueRequest.Builder item(String namespace, String payload) {
    return EnqueueRequest.builder(namespace, "t", payload.getBytes(StandardCharsets.UTF_8));
  }

  static Set<ItemId> enqueue(String namespace, int n, java.util.function.IntFunction<EnqueueRequest.Builder> item) {
    List<EnqueueRequest> requests = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      requests.add(item.apply(i).build());
    }
    return new HashSet<>(producer.enqueueAll(requests).join());
  }

  static DeadLetter awaitDeadLetter(ItemId id) {
    Map<String, DeadLetter> found = new HashMap<>();
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      for (DeadLetter d : queue.deadLetters()) {
        found.put(d.getItemId(), d);
      }
      return found.containsKey(id.toString());
    });
    return found.get(id.toString());
  }
}
