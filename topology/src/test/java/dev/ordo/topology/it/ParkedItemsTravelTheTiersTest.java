package dev.ordo.topology.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ClusterTopics;
import dev.ordo.delay.DelayTiers;
import dev.ordo.delay.DelayTiersConfig;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.QueueService;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Long waits leave the store as PARKED markers, travel the (shortened) delay tiers and come back
 * as re-entries at their due time, keeping ID, attempts and metadata; a cancelled or expired
 * item's re-entry is dropped. One partition keeps the test's bookkeeping simple.
 */
@KafkaCluster
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParkedItemsTravelTheTiersTest {
  private static final String TIERS = "200ms,500ms,2s";
  private final ClusterTopics topics = new ClusterTopics("park");
  private final RealKafka kafka;
  private QueueService queue;
  private DelayTiers tiers;
  private KafkaProducer<byte[], byte[]> producer;
  private KafkaConsumer<byte[], byte[]> deliveries;
  private final List<DeliveredItem> delivered = new CopyOnWriteArrayList<>();
  private final List<Long> deliveredAt = new CopyOnWriteArrayList<>();

  ParkedItemsTravelTheTiersTest(RealKafka kafka) {
    this.kafka = kafka;
  }

  @BeforeAll
  void start() throws Exception {
    List<NewTopic> specs = new ArrayList<>(DelayTiers.newTopics("park",
        dev.ordo.api.Durations.parseList(TIERS), 1, (short) 1));
    for (String t : List.of(topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats(),
        topics.namespaces())) {
      specs.add(new NewTopic(t, 1, (short) 1));
    }
    try (Admin admin = kafka.admin()) {
      admin.createTopics(specs).all().get(30, TimeUnit.SECONDS);
    }
    kafka.awaitTopics(specs.stream().map(NewTopic::name).toArray(String[]::new));
    queue = new QueueService(
        Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ordo-park").toString()),
        Map.of(QueueConfig.CLUSTER_CONFIG, "park", QueueConfig.DELAY_TIERS_CONFIG, TIERS), 1);
    queue.start();
    tiers = new DelayTiers(Map.of("bootstrap.servers", kafka.bootstrapServers(),
        DelayTiersConfig.CLUSTER_CONFIG, "park", DelayTiersConfig.TIERS_CONFIG, TIERS,
        DelayTiersConfig.INSTANCE_ID_CONFIG, "park-test"));
    tiers.start();
    Properties props = kafka.clientProperties();
    producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    Properties cp = kafka.clientProperties();
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    deliveries = new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    deliveries.assign(List.of(new TopicPartition(topics.deliveries(), 0)));
    await().atMost(Duration.ofSeconds(60)).until(queue::isRunning);
  }

  @AfterAll
  void stop() {
    deliveries.close();
    producer.close();
    tiers.close();
    queue.close();
  }

  private String enqueue(Item item) throws Exception {
    RecordMetadata m = producer.send(new ProducerRecord<>(topics.items(), 0, null, OrdoSerdes.ITEM.encode(item)))
        .get(30, TimeUnit.SECONDS);
    return m.partition() + "-" + m.offset();
  }

  private void command(Object body) throws Exception {
    Command c = new Command(new Requester("parker", 0), System.currentTimeMillis(), body, false, null);
    producer.send(new ProducerRecord<>(topics.commands(), 0, null, OrdoSerdes.COMMAND.encode(c))).get(30, TimeUnit.SECONDS);
  }

  private void demand(String topic) throws Exception {
    command(new Demand("ns", Map.of(topic, 10), 60_000L, true, false, false, -1L, 0L));
  }

  /** Reads deliveries until {@code done} holds or the deadline passes. */
  private void pollDeliveries() {
    for (ConsumerRecord<byte[], byte[]> r : deliveries.poll(Duration.ofMillis(50))) {
      Delivery d = OrdoSerdes.DELIVERY.decode(r.value());
      for (DeliveredItem item : dev.ordo.api.Deliveries.items(d)) {
        delivered.add(item);
        deliveredAt.add(System.currentTimeMillis());
      }
    }
  }

  private static Item.Builder item(String topic) {
    return Item.newBuilder().setNamespace("ns").setTopic(topic).setPriority(0)
        .setPayload(ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aLongNackDelayParksTheItemAndItComesBackAtItsDueTimeWithIdAttemptsAndMetadata() throws Exception {
    String id = enqueue(item("nacked").build());
    demand("nacked");
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      pollDeliveries();
      return delivered.stream().anyMatch(d -> d.getItemId().equals(id));
    });
    DeliveredItem first = delivered.stream().filter(d -> d.getItemId().equals(id)).findFirst().orElseThrow();
    long parkedBefore = queue.metrics().get(QueueMetrics.PARKED);
    long nackedAt = System.currentTimeMillis();
    command(new Nack(id, first.getLeaseId(), 3_000L, ByteBuffer.wrap("m2".getBytes(StandardCharsets.UTF_8)), "x", false));
    demand("nacked");
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() -> {
      pollDeliveries();
      return delivered.stream().filter(d -> d.getItemId().equals(id)).count() == 2;
    });
    int i = 0;
    while (!(delivered.get(i).getItemId().equals(id) && delivered.get(i).getAttempt() == 2)) {
      i++;
    }
    DeliveredItem again = delivered.get(i);
    long lateness = deliveredAt.get(i) - (nackedAt + 3_000);
    System.out.printf("parked nack came back %d ms after its due time%n", lateness);
    assertEquals(parkedBefore + 1, queue.metrics().get(QueueMetrics.PARKED), "the nacked item left the store");
    assertTrue(queue.metrics().get(QueueMetrics.REENTERED) >= 1, "it came back as a re-entry");
    assertTrue(lateness >= -50, "not before its due time (client clock slack 50 ms): " + lateness);
    assertEquals(2, again.getAttempt());
    assertEquals("m2", StandardCharsets.UTF_8.decode(again.getMetadata()).toString());
  }

  @Test
  void aCancelledOrExpiredParkedItemIsDroppedWhenItsReEntryComesBack() throws Exception {
    long droppedBefore = queue.metrics().get(QueueMetrics.REENTRY_DROPPED);
    long due = System.currentTimeMillis() + 2_500;
    String cancelled = enqueue(item("gone").setDeliverAfter(due).build());
    String expired = enqueue(item("gone").setDeliverAfter(due).setTtlMs(1_000L).build());
    demand("gone");
    command(new Cancel(cancelled));
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      pollDeliveries();
      return queue.metrics().get(QueueMetrics.REENTRY_DROPPED) >= droppedBefore + 2;
    });
    pollDeliveries();
    assertTrue(delivered.stream().noneMatch(d -> d.getItemId().equals(cancelled) || d.getItemId().equals(expired)),
        "a dropped re-entry delivers nothing");
  }
}
