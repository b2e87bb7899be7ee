package dev.ordo.topology.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Deliveries;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
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
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * The fault: an input record whose dead letter Kafka cannot take (the dead letter carries the
 * record's raw key and value, so it is larger than the record). The queue's producer here may send
 * at most 200,000 bytes a request; an item of about 210,000 bytes (a 60 KB key, a payload over the
 * queue's limit) is refused as invalid, and its dead letter with the raw bytes would be about
 * 270,000 bytes. Sent, Kafka would refuse it and fail the stream thread's transaction, and the record
 * would be read and refused again forever (measured: a production exception handler that skips it
 * does not help under exactly-once, the transaction is failed already). The dead letter is written
 * without the raw bytes, naming where the record is, counted, and the partition goes on.
 */
@KafkaCluster
class DeadLetterTooLargeTest {
  @Test
  void aDeadLetterTooLargeForKafkaIsWrittenWithoutTheRawRecordAndThePartitionGoesOn(RealKafka kafka) throws Exception {
    ClusterTopics topics = topics(kafka, "huge");
    try (QueueService queue = new QueueService(streams(kafka, "ordo-huge", Map.of()),
            Map.of(QueueConfig.CLUSTER_CONFIG, "huge", QueueConfig.DLQ_MAX_RECORD_BYTES_CONFIG, 150_000), 1);
        KafkaProducer<byte[], byte[]> producer = producer(kafka);
        KafkaConsumer<byte[], byte[]> replies = replies(kafka)) {
      queue.start();
      await().atMost(Duration.ofSeconds(60)).until(queue::isRunning);

      hugeThenOrdinary(producer, topics);
      assertEquals("ok", firstDelivered(replies, topics),
          "the item after the oversized one was served: the partition went on");
      assertEquals(1, queue.metrics().get(QueueMetrics.DEAD_LETTER_TRIMMED), "the dead letter was trimmed and counted");
      assertEquals(1, queue.metrics().get(QueueMetrics.MALFORMED), "the oversized item was refused as invalid");

      replies.assign(List.of(new TopicPartition(topics.dlq(), 0)));
      replies.seekToBeginning(replies.assignment());
      List<DeadLetter> dead = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : replies.poll(Duration.ofSeconds(1))) {
        dead.add(OrdoSerdes.DEAD_LETTER.decode(r.value()));
      }
      assertEquals(1, dead.size(), "one dead letter");
      DeadLetter d = dead.get(0);
      assertEquals(null, d.getRawValue(), "without the raw record");
      assertEquals(null, d.getRawKey());
      assertEquals(0L, d.getSourceOffset());
      assertTrue(d.getDetail().contains("payload of 150000 bytes is over the limit"), d.getDetail());
      assertTrue(d.getDetail().contains("the record is at huge.items-0@0"), d.getDetail());
    }
  }

  /**
   * The same record under at-least-once with the dead letters' bound set above what the producer may
   * send: Kafka refuses the dead letter, and the queue's production exception handler
   * ({@code OversizedRecordHandler}) skips it, counted, and the partition goes on.
   */
  @Test
  void underAtLeastOnceARecordKafkaRefusesAsTooLargeIsSkippedCountedAndThePartitionGoesOn(RealKafka kafka)
      throws Exception {
    ClusterTopics topics = topics(kafka, "huge-alo");
    try (QueueService queue = new QueueService(
            streams(kafka, "ordo-huge-alo", Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE)),
            Map.of(QueueConfig.CLUSTER_CONFIG, "huge-alo", QueueConfig.DLQ_MAX_RECORD_BYTES_CONFIG, 5_000_000), 1);
        KafkaProducer<byte[], byte[]> producer = producer(kafka);
        KafkaConsumer<byte[], byte[]> replies = replies(kafka)) {
      queue.start();
      await().atMost(Duration.ofSeconds(60)).until(queue::isRunning);

      hugeThenOrdinary(producer, topics);
      assertEquals("ok", firstDelivered(replies, topics),
          "the item after the oversized one was served: the partition went on");
      assertEquals(1, queue.metrics().get(QueueMetrics.PRODUCE_TOO_LARGE), "the refused dead letter was counted");
      assertEquals(0, queue.metrics().get(QueueMetrics.DEAD_LETTER_TRIMMED), "not trimmed: over the producer's limit");
      assertEquals(1, queue.metrics().get(QueueMetrics.MALFORMED), "the oversized item was refused as invalid");
      replies.assign(List.of(new TopicPartition(topics.dlq(), 0)));
      replies.seekToBeginning(replies.assignment());
      assertEquals(0, replies.poll(Duration.ofSeconds(1)).count(), "the dead letter Kafka refused was skipped");
    }
  }

  private static ClusterTopics topics(RealKafka kafka, String cluster) {
    ClusterTopics topics = new ClusterTopics(cluster);
    kafka.createTopics(1, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats(),
        topics.namespaces());
    return topics;
  }

  /** The queue's Kafka Streams settings: its producer may send at most 200,000 bytes a request. */
  private static Map<String, Object> streams(RealKafka kafka, String stateDir, Map<String, Object> more)
      throws java.io.IOException {
    Map<String, Object> m = new java.util.HashMap<>(Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(stateDir).toString(),
        StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), 200_000));
    m.putAll(more);
    return m;
  }

  private static KafkaProducer<byte[], byte[]> producer(RealKafka kafka) {
    Properties pp = kafka.clientProperties();
    pp.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1_000_000);
    return new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static KafkaConsumer<byte[], byte[]> replies(RealKafka kafka) {
    Properties cp = kafka.clientProperties();
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * An item of about 210,000 bytes (a 60 KB key, a payload over the queue's limit: refused as invalid,
   * its raw dead letter about 270,000 bytes), then an ordinary item and a demand for it, on partition 0.
   */
  private static void hugeThenOrdinary(KafkaProducer<byte[], byte[]> producer, ClusterTopics topics) throws Exception {
    producer.send(new ProducerRecord<>(topics.items(), 0, new byte[60_000], OrdoSerdes.ITEM.encode(item(new byte[150_000]))))
        .get(30, TimeUnit.SECONDS);
    producer.send(new ProducerRecord<>(topics.items(), 0, null, OrdoSerdes.ITEM.encode(item("ok".getBytes(
        StandardCharsets.UTF_8))))).get(30, TimeUnit.SECONDS);
    Command demand = new Command(new Requester("after", 0), System.currentTimeMillis(),
        new Demand("ns", Map.of("t", 5), 60_000L, true, false, false, -1L, 0L), false, null);
    producer.send(new ProducerRecord<>(topics.commands(), 0, null, OrdoSerdes.COMMAND.encode(demand)))
        .get(30, TimeUnit.SECONDS);
  }

  /** The payload of the first item delivered on partition 0. */
  private static String firstDelivered(KafkaConsumer<byte[], byte[]> replies, ClusterTopics topics) {
    replies.assign(List.of(new TopicPartition(topics.deliveries(), 0)));
    List<DeliveredItem> got = new ArrayList<>();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      for (ConsumerRecord<byte[], byte[]> r : replies.poll(Duration.ofMillis(100))) {
        got.addAll(Deliveries.items(OrdoSerdes.DELIVERY.decode(r.value())));
      }
      return !got.isEmpty();
    });
    return StandardCharsets.UTF_8.decode(got.get(0).getPayload()).toString();
  }

  private static Item item(byte[] payload) {
    return Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(0).setPayload(ByteBuffer.wrap(payload)).build();
  }
}
