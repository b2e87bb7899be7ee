package dev.ordo.topology.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Deliveries;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.Requester;
import dev.ordo.schema.TopicStats;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.SchemaRegistryClient;
import dev.ordo.serde.WireFormat;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.testing.SchemaRegistryServer;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.QueueService;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue with a real schema registry (Apicurio Registry's Confluent-compatible API, a process of
 * its own): records framed the Confluent way (magic 0, schema id, Avro binary) are queued beside
 * single-object ones, outputs are Confluent-framed, and a record whose schema id is unknown or whose
 * writer schema cannot be resolved to Ordo's is dead-lettered with the reason, counted, and the
 * partition goes on.
 */
@KafkaCluster
class ConfluentFramedInputTest {
  private static SchemaRegistryServer registry;

  @BeforeAll
  static void startRegistry() throws Exception {
    registry = SchemaRegistryServer.start();
  }

  @AfterAll
  static void stopRegistry() {
    if (registry != null) {
      registry.close();
    }
  }

  @Test
  void theRegistryClientRegistersFetchesSetsCompatibilityAndReportsUnknownIds() {
    SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), Duration.ofSeconds(10));
    Schema v1 = SchemaBuilder.record("Probe").namespace("x").fields().requiredInt("a").endRecord();
    int id = client.register("probe-value", v1);
    assertEquals(id, client.register("probe-value", v1), "the same schema, the same id");
    client.setCompatibility("probe-value", "BACKWARD");
    assertEquals("BACKWARD", client.compatibility("probe-value"));
    assertEquals(v1, new SchemaRegistryClient(registry.url(), Duration.ofSeconds(10)).schema(id),
        "a fresh client fetches the schema by id");
    Schema incompatible = SchemaBuilder.record("Probe").namespace("x").fields().requiredString("a").endRecord();
    SchemaRegistryClient.RegistryException refused =
        assertThrows(SchemaRegistryClient.RegistryException.class, () -> client.register("probe-value", incompatible));
    assertEquals(409, refused.status(), "BACKWARD refuses a changed type: " + refused.getMessage());
    SchemaRegistryClient.RegistryException unknown =
        assertThrows(SchemaRegistryClient.RegistryException.class, () -> client.schema(987_654));
    assertTrue(unknown.notFound(), unknown.getMessage());
  }

  @Test
  void confluentFramedItemsAreQueuedBesideSingleObjectOnesAndTheOutputsAreConfluentFramed(RealKafka kafka)
      throws Exception {
    ClusterTopics topics = create(kafka, "cf");
    try (QueueService queue = queue(kafka, "cf");
        KafkaProducer<byte[], byte[]> producer = producer(kafka);
        KafkaConsumer<byte[], byte[]> consumer = consumer(kafka)) {
      queue.start();
      await().atMost(Duration.ofSeconds(60)).until(queue::isRunning);
      SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), Duration.ofSeconds(10));
      for (String topic : List.of(topics.items(), topics.commands(), topics.deliveries(), topics.dlq(),
          topics.topicStats())) {
        assertEquals("BACKWARD", client.compatibility(WireFormat.subject(topic)), topic);
      }

      // A producer of another language: its own, older Item schema (no groupKey, no traceId), registered
      // under the items subject as its serializer would, and the record framed the Confluent way.
      Schema older = withoutFields(Item.getClassSchema(), "groupKey", "traceId");
      int olderId = client.register(WireFormat.subject(topics.items()), older);
      GenericRecord foreign = new GenericData.Record(older);
      foreign.put("namespace", "ns");
      foreign.put("topic", "t");
      foreign.put("priority", 1);
      foreign.put("payload", ByteBuffer.wrap("from-elsewhere".getBytes(StandardCharsets.UTF_8)));
      foreign.put("maxAttempts", 7);
      send(producer, topics.items(), confluent(olderId, foreign));
      // And a Java producer's single-object item.
      send(producer, topics.items(), OrdoSerdes.ITEM.encode(Item.newBuilder().setNamespace("ns").setTopic("t")
          .setPriority(2).setPayload(ByteBuffer.wrap("single-object".getBytes(StandardCharsets.UTF_8))).build()));
      send(producer, topics.commands(), OrdoSerdes.COMMAND.encode(demand("r1")));

      WireFormat wire = WireFormat.confluent(client);
      consumer.assign(List.of(new TopicPartition(topics.deliveries(), 0)));
      List<DeliveredItem> got = new ArrayList<>();
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          assertEquals(WireFormat.MAGIC, r.value()[0], "deliveries are Confluent-framed");
          got.addAll(Deliveries.items(wire.decode(OrdoSerdes.DELIVERY, r.value())));
        }
        return got.size() >= 2;
      });
      assertEquals(List.of("from-elsewhere", "single-object"), got.stream()
          .map(d -> StandardCharsets.UTF_8.decode(d.getPayload()).toString()).toList(), "both, in priority order");
      assertEquals(1, got.get(0).getPriority(), "the foreign item's fields were kept");
      assertEquals("ns", got.get(0).getNamespace());
      assertEquals(null, got.get(0).getGroupKey(), "a field its writer lacked takes Ordo's default");

      consumer.assign(List.of(new TopicPartition(topics.topicStats(), 0)));
      consumer.seekToBeginning(consumer.assignment());
      List<TopicStats> stats = new ArrayList<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          if (r.value() != null) {
            assertEquals(WireFormat.MAGIC, r.value()[0], "stats are Confluent-framed");
            stats.add(wire.decode(OrdoSerdes.TOPIC_STATS, r.value()));
          }
        }
        return !stats.isEmpty();
      });
      assertEquals("t", stats.get(0).getTopic());
      assertEquals(0, queue.metrics().get(QueueMetrics.MALFORMED));
    }
  }

  @Test
  void anUnknownSchemaIdOrAnUnresolvableWriterSchemaIsDeadLetteredWithTheReasonAndThePartitionGoesOn(RealKafka kafka)
      throws Exception {
    ClusterTopics topics = create(kafka, "bad");
    try (QueueService queue = queue(kafka, "bad");
        KafkaProducer<byte[], byte[]> producer = producer(kafka);
        KafkaConsumer<byte[], byte[]> consumer = consumer(kafka)) {
      queue.start();
      await().atMost(Duration.ofSeconds(60)).until(queue::isRunning);
      SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), Duration.ofSeconds(10));

      byte[] unknownId = new byte[] {0, 0, 0x0f, 0x42, 0x3f, 2, 'n', 2, 't'};
      // A schema named as Ordo's Item whose priority is a string: Avro cannot resolve it to Ordo's int.
      Schema clash = SchemaBuilder.record("Item").namespace("dev.ordo.schema").fields()
          .requiredString("namespace").requiredString("topic").requiredString("priority").requiredBytes("payload")
          .endRecord();
      int clashId = client.register("elsewhere-value", clash);
      GenericRecord r = new GenericData.Record(clash);
      r.put("namespace", "ns");
      r.put("topic", "t");
      r.put("priority", "high");
      r.put("payload", ByteBuffer.wrap(new byte[] {1}));
      byte[] unresolvable = confluent(clashId, r);
      send(producer, topics.items(), unknownId);
      send(producer, topics.items(), unresolvable);
      send(producer, topics.items(), OrdoSerdes.ITEM.encode(Item.newBuilder().setNamespace("ns").setTopic("t")
          .setPayload(ByteBuffer.wrap("after".getBytes(StandardCharsets.UTF_8))).build()));
      send(producer, topics.commands(), OrdoSerdes.COMMAND.encode(demand("r2")));

      WireFormat wire = WireFormat.confluent(client);
      consumer.assign(List.of(new TopicPartition(topics.deliveries(), 0)));
      List<DeliveredItem> got = new ArrayList<>();
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(100))) {
          got.addAll(Deliveries.items(wire.decode(OrdoSerdes.DELIVERY, rec.value())));
        }
        return !got.isEmpty();
      });
      assertEquals("after", StandardCharsets.UTF_8.decode(got.get(0).getPayload()).toString(),
          "the item after the two bad ones was served: the partition went on");

      consumer.assign(List.of(new TopicPartition(topics.dlq(), 0)));
      consumer.seekToBeginning(consumer.assignment());
      List<DeadLetter> dead = new ArrayList<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(100))) {
          assertEquals(WireFormat.MAGIC, rec.value()[0], "dead letters are Confluent-framed");
          dead.add(wire.decode(OrdoSerdes.DEAD_LETTER, rec.value()));
        }
        return dead.size() >= 2;
      });
      assertEquals(2, dead.size());
      assertEquals(DeadLetterReason.MALFORMED, dead.get(0).getReason());
      assertTrue(dead.get(0).getDetail().contains("unknown schema id 999999"), dead.get(0).getDetail());
      assertArrayEquals(unknownId, bytes(dead.get(0).getRawValue()), "the raw record is kept for a redrive");
      assertEquals(DeadLetterReason.MALFORMED, dead.get(1).getReason());
      assertTrue(dead.get(1).getDetail().contains("cannot be resolved to Ordo's dev.ordo.schema.Item"),
          dead.get(1).getDetail());
      assertTrue(dead.get(1).getDetail().contains("/fields/2/type"), "names where: " + dead.get(1).getDetail());
      assertArrayEquals(unresolvable, bytes(dead.get(1).getRawValue()));
      assertEquals(2, queue.metrics().get(QueueMetrics.SCHEMA_UNRESOLVED), "counted as unresolved schemas");
      assertEquals(2, queue.metrics().get(QueueMetrics.MALFORMED), "and as malformed records");
      assertEquals(0L, (long) dead.get(0).getSourceOffset());
      assertEquals(1L, (long) dead.get(1).getSourceOffset());
    }
  }

  private static ClusterTopics create(RealKafka kafka, String cluster) throws Exception {
    ClusterTopics topics = new ClusterTopics(cluster);
    kafka.createTopics(1, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats(),
        topics.namespaces());
    return topics;
  }

  private static QueueService queue(RealKafka kafka, String cluster) throws Exception {
    return new QueueService(
        Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ordo-" + cluster).toString()),
        Map.of(QueueConfig.CLUSTER_CONFIG, cluster, QueueConfig.SCHEMA_REGISTRY_URL_CONFIG, registry.url()), 1);
  }

  private static KafkaProducer<byte[], byte[]> producer(RealKafka kafka) {
    return new KafkaProducer<>(kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static KafkaConsumer<byte[], byte[]> consumer(RealKafka kafka) {
    var cp = kafka.clientProperties();
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, String topic, byte[] value) throws Exception {
    producer.send(new ProducerRecord<>(topic, 0, null, value)).get(30, TimeUnit.SECONDS);
  }

  private static Command demand(String requester) {
    return new Command(new Requester(requester, 0), System.currentTimeMillis(),
        new Demand("ns", Map.of("t", 5), 60_000L, true, false, false, -1L, 0L), false, null);
  }

  /** What a Confluent Avro serializer writes: magic 0, the schema id big-endian, Avro binary. */
  private static byte[] confluent(int id, GenericRecord record) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(ByteBuffer.allocate(5).put((byte) 0).putInt(id).array());
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  private static Schema withoutFields(Schema schema, String... dropped) {
    List<Schema.Field> fields = new ArrayList<>();
    for (Schema.Field f : schema.getFields()) {
      if (!List.of(dropped).contains(f.name())) {
        fields.add(new Schema.Field(f, f.schema()));
      }
    }
    return Schema.createRecord(schema.getName(), schema.getDoc(), schema.getNamespace(), false, fields);
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
