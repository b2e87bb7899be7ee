package dev.ordo.connect;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemHeaders;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueItem;
import dev.ordo.client.TopicActivity;
import dev.ordo.schema.Item;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sink in a real Connect worker (distributed mode, Kafka's own runtime, the packaged plugin on
 * plugin.path), created over REST, enqueueing into a running Ordo queue on a real Kafka cluster.
 */
@KafkaCluster
class OrdoSinkConnectorIT {
  private static final String CLUSTER = "sinkit";
  private static final int PARTITIONS = 3;
  private static RealKafka kafka;
  private static ClusterTopics topics;
  private static Path stateDir;
  private static QueueService queue;
  private static ConnectWorker worker;
  private static KafkaProducer<String, String> source;

  @BeforeAll
  static void start(RealKafka cluster) throws Exception {
    kafka = cluster;
    topics = new ClusterTopics(CLUSTER);
    kafka.createTopics(PARTITIONS, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(),
        topics.topicStats());
    kafka.createTopics(1, topics.namespaces());
    stateDir = Files.createTempDirectory("ordo-sinkit");
    queue = new QueueService(Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()),
        Map.of(QueueConfig.CLUSTER_CONFIG, CLUSTER, QueueConfig.STATS_MS_CONFIG, 200L), PARTITIONS);
    queue.start();
    worker = ConnectWorker.start(kafka, "connect-it");
    Properties p = kafka.clientProperties();
    p.put("linger.ms", "5");
    // One batch in flight per partition: a fresh topic's first batch can come back NOT_LEADER_OR_FOLLOWER
    // while later ones are appended, and its retry (sequence 0) is then refused as out of order for
    // good (seen once in CI: the test waited for 10,000 items that could never come).
    p.put("max.in.flight.requests.per.connection", "1");
    source = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    await().atMost(Duration.ofSeconds(60)).until(queue::isRunning);
  }

  @AfterAll
  static void stop() throws Exception {
    source.close();
    worker.close();
    queue.close();
    try (var files = Files.walk(stateDir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  private static Map<String, String> connector(String sourceTopic) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "dev.ordo.connect.OrdoSinkConnector");
    c.put("tasks.max", "1");
    c.put("topics", sourceTopic);
    c.put("ordo.bootstrap.servers", kafka.bootstrapServers());
    c.put("ordo.cluster", CLUSTER);
    c.put("ordo.namespace", "field:tenant");
    c.put("ordo.topic", "header:queue");
    c.put("ordo.priority", "field:order.priority");
    c.put("ordo.group.key", "field:order.customer.id");
    c.put("ordo.delay", "field:delay_ms");
    c.put("ordo.ttl", "header:ttl");
    c.put("ordo.lease", "PT45S");
    c.put("ordo.max.attempts", "5");
    c.put("ordo.trace.id", "header:traceparent");
    return c;
  }

  /** Record i's W3C trace context. */
  private static String traceparent(long i) {
    return String.format("00-%032x-%016x-01", 0xabc0000L + i, i + 1);
  }

  /**
   * Record i of the source topic: nested JSON, its queue, TTL and trace context in headers (besides a
   * repeated tag and one of Ordo's own names), every 50th delayed 10 minutes.
   */
  private static ProducerRecord<String, String> order(String topic, int i) {
    String delay = i % 50 == 0 ? ",\"delay_ms\":600000" : "";
    String json = "{\"id\":" + i + ",\"tenant\":\"shop\",\"order\":{\"customer\":{\"id\":\"c" + (i % 20)
        + "\"},\"priority\":" + (i % 10) + "}" + delay + "}";
    ProducerRecord<String, String> r = new ProducerRecord<>(topic, "k" + i, json);
    r.headers().add("queue", (i % 2 == 0 ? "emails" : "sms").getBytes(StandardCharsets.UTF_8));
    r.headers().add("ttl", "3600000".getBytes(StandardCharsets.UTF_8));
    r.headers().add("traceparent", traceparent(i).getBytes(StandardCharsets.UTF_8));
    r.headers().add("tag", "a".getBytes(StandardCharsets.UTF_8));
    r.headers().add("ordo.redriven.from", "not-an-item-header".getBytes(StandardCharsets.UTF_8));
    r.headers().add("tag", ("b" + i).getBytes(StandardCharsets.UTF_8));
    return r;
  }

  @Test
  void tenThousandRecordsBecomeItemsWithTheMappedFieldsAcrossATaskRestartNoneLost() throws Exception {
    String name = "orders-sink";
    kafka.createTopics(PARTITIONS, "orders");
    int total = 10_000;
    Map<Long, Long> sourceTime = new HashMap<>();
    for (int i = 0; i < total / 2; i++) {
      long id = i;
      source.send(order("orders", i), (m, e) -> sourceTime.put(id, m.timestamp()));
    }
    source.flush();
    assertTrue(worker.putConnector(name, connector("orders")) / 100 == 2);

    // The worker runs the plugin from the packaged directory: the version comes from our jar's manifest.
    JsonNode plugins = worker.get("/connector-plugins");
    assertTrue(plugins.toString().contains("{\"class\":\"dev.ordo.connect.OrdoSinkConnector\",\"type\":\"sink\",\"version\":\""
        + System.getProperty("ordo.version") + "\"}"),
        plugins.toString());

    ItemReader items = new ItemReader("shop");
    await().atMost(Duration.ofSeconds(60)).until(() -> items.poll() >= 1_000);
    // Records after the last committed offset may be sent again by the restarted task; commits only grow.
    long committedAtRestart = committed("connect-" + name, "orders");
    assertEquals(204, worker.post("/connectors/" + name + "/tasks/0/restart"), "task restart accepted");
    for (int i = total / 2; i < total; i++) {
      long id = i;
      source.send(order("orders", i), (m, e) -> sourceTime.put(id, m.timestamp()));
    }
    source.flush();

    await().atMost(Duration.ofSeconds(120)).until(() -> {
      items.poll();
      return items.byId.size() == total;
    });
    assertEquals("RUNNING", worker.taskState(name, 0));
    await().atMost(Duration.ofSeconds(30)).until(() -> committed("connect-" + name, "orders") == total);
    items.poll();
    long duplicates = items.records - total;
    System.out.printf("OrdoSinkConnectorIT: %d records -> %d items (%d duplicates; %d records were past the last"
        + " commit when the task restarted)%n", total, items.records, duplicates, total / 2 - committedAtRestart);
    assertTrue(duplicates <= total / 2 - committedAtRestart,
        duplicates + " duplicates, more than the " + (total / 2 - committedAtRestart) + " records after the last commit");

    for (int i = 0; i < total; i++) {
      Item item = items.byId.get((long) i);
      assertNotNull(item, "record " + i + " is an item");
      assertEquals("shop", item.getNamespace());
      assertEquals(i % 2 == 0 ? "emails" : "sms", item.getTopic(), "topic from the header");
      assertEquals(i % 10, item.getPriority(), "priority from order.priority");
      assertEquals("c" + (i % 20), item.getGroupKey(), "group key from order.customer.id");
      assertEquals(3_600_000L, item.getTtlMs(), "ttl from the header");
      assertEquals(45_000L, item.getLeaseDurationMs(), "lease constant");
      assertEquals(5, item.getMaxAttempts(), "max attempts constant");
      assertEquals(traceparent(i), item.getTraceId(), "trace id from the header");
      // ordo.headers=all (the default): every header of the record, in order, on the item's record
      // (where the queue takes them from), but not Ordo's own; ttl's text back from the Integer the
      // worker's SimpleHeaderConverter made of it.
      assertEquals(List.of("queue=" + (i % 2 == 0 ? "emails" : "sms"), "ttl=3600000", "traceparent=" + traceparent(i),
          "tag=a", "tag=b" + i), items.headersById.get((long) i).entries().stream().map(ItemHeaders.Entry::toString)
          .toList(), "record " + i + "'s headers");
      if (i % 50 == 0) {
        assertNotNull(item.getDeliverAfter(), "record " + i + " delayed");
        assertTrue(item.getDeliverAfter() >= sourceTime.get((long) i) + 600_000, "delay from delay_ms");
      } else {
        assertNull(item.getDeliverAfter(), "record " + i + " due at once");
      }
      JsonNode payload = ConnectWorker.JSON.readTree(item.getPayload().array());
      assertEquals("c" + (i % 20), payload.path("order").path("customer").path("id").asText(), "payload is the value");
    }

    // The queue took them all in (delayed ones wait), and hands them out with the mapped fields.
    Map<String, Object> clientConfig = new HashMap<>();
    clientConfig.put("bootstrap.servers", kafka.bootstrapServers());
    clientConfig.put(QueueClientConfig.CLUSTER_CONFIG, CLUSTER);
    try (QueueClient client = new QueueClient(clientConfig)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> client.activeTopics("shop").get().stream()
          .mapToLong(TopicActivity::total).sum() == items.records);
      List<TopicActivity> active = client.activeTopics("shop").get();
      long delayed = active.stream().mapToLong(t -> t.delayed() + t.parked()).sum();
      assertEquals(items.delayedRecords, delayed, "delayed items wait: " + active);
      List<QueueItem> got = client.dequeue("shop", "emails", 50, Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
      assertTrue(!got.isEmpty(), "items handed out");
      for (QueueItem d : got) {
        int id = ConnectWorker.JSON.readTree(d.payload()).path("id").asInt();
        assertEquals(0, id % 2, "an emails item");
        assertEquals(id % 10, d.priority());
        assertEquals("c" + (id % 20), d.groupKey());
        assertEquals(traceparent(id), d.traceId());
        ItemHeaders headers = d.headers();
        assertEquals(traceparent(id), headers.lastString("traceparent"), "the record's traceparent delivered with the item");
        assertEquals(List.of("a", "b" + id), headers.values("tag").stream()
            .map(v -> new String(v, StandardCharsets.UTF_8)).toList(), "repeated names kept, in order");
        assertNull(headers.lastValue("ordo.redriven.from"), "Ordo's own names are not kept");
        assertTrue(id % 50 != 0, "a delayed item is not handed out");
        client.ack(d).get(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void offsetsAreNotCommittedWhileEnqueuesFailAndTheRecordsAreSentAgainOnceTheySucceed() throws Exception {
    String name = "refused-sink";
    kafka.createTopics(1, "refused");
    int total = 200;
    for (int i = 0; i < total; i++) {
      source.send(new ProducerRecord<>("refused", 0, "k" + i, order("refused", i).value(), order("refused", i).headers()));
    }
    source.flush();
    Map<String, String> config = connector("refused");
    config.put("ordo.namespace", "refused");
    // Every item is larger than this: Kafka refuses each send (RecordTooLargeException), none is written.
    config.put("ordo.kafka.max.request.size", "100");
    worker.putConnector(name, config);

    javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
    javax.management.ObjectName taskMetrics =
        new javax.management.ObjectName("kafka.connect:type=connector-task-metrics,connector=" + name + ",task=0");
    await().atMost(Duration.ofSeconds(60)).until(() -> jmx.isRegistered(taskMetrics)
        && ((Number) jmx.getAttribute(taskMetrics, "offset-commit-failure-percentage")).doubleValue() > 0);
    assertEquals(0, committed("connect-" + name, "refused"), "no offset committed while the enqueues fail");

    config.remove("ordo.kafka.max.request.size");
    worker.putConnector(name, config); // the worker restarts the task with the fixed settings
    ItemReader items = new ItemReader("refused");
    await().atMost(Duration.ofSeconds(60)).until(() -> items.poll() == total);
    await().atMost(Duration.ofSeconds(30)).until(() -> committed("connect-" + name, "refused") == total);
    items.poll();
    assertEquals(total, items.records, "every record once: the refused sends wrote nothing");
  }

  @Test
  void badRecordsGoToTheDeadLetterTopicWithTheReasonAndTheGoodOnesAreEnqueued() throws Exception {
    String name = "mixed-sink";
    kafka.createTopics(1, "mixed");
    Map<String, String> config = connector("mixed");
    config.put("ordo.payload.max.bytes", "200");
    config.put("ordo.headers.max.bytes", "200");
    config.put("errors.tolerance", "all");
    config.put("errors.deadletterqueue.topic.name", "mixed-dlq");
    config.put("errors.deadletterqueue.topic.replication.factor", "1");
    config.put("errors.deadletterqueue.context.headers.enable", "true");
    worker.putConnector(name, config);

    List<ProducerRecord<String, String>> records = new ArrayList<>();
    records.add(mixed(0, "{\"id\":0,\"tenant\":\"mixed\",\"order\":{\"priority\":1}}"));
    records.add(mixed(1, "{\"id\":1,\"order\":{\"priority\":1}}"));
    records.add(mixed(2, "{\"id\":2,\"tenant\":\"mixed\",\"order\":{\"priority\":\"high\"}}"));
    records.add(mixed(3, "{\"id\":3,\"tenant\":\"mixed\",\"pad\":\"" + "x".repeat(300) + "\"}"));
    records.add(mixed(4, null));
    records.add(mixed(5, "{\"id\":5,\"tenant\":\"mixed\",\"order\":{\"priority\":2}}"));
    ProducerRecord<String, String> bigHeaders = mixed(6, "{\"id\":6,\"tenant\":\"mixed\",\"order\":{\"priority\":2}}");
    bigHeaders.headers().add("note", "y".repeat(300).getBytes(StandardCharsets.UTF_8));
    records.add(bigHeaders);
    for (ProducerRecord<String, String> r : records) {
      source.send(r);
    }
    source.flush();

    Map<Long, Map<String, String>> dead = new HashMap<>();
    Properties p = kafka.clientProperties();
    try (KafkaConsumer<byte[], byte[]> dlq = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      kafka.awaitTopics("mixed-dlq");
      TopicPartition tp = new TopicPartition("mixed-dlq", 0);
      dlq.assign(List.of(tp));
      dlq.seekToBeginning(List.of(tp));
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> r : dlq.poll(Duration.ofMillis(200))) {
          Map<String, String> headers = new HashMap<>();
          for (Header h : r.headers()) {
            headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
          }
          dead.put(Long.parseLong(headers.get("__connect.errors.offset")), headers);
        }
        return dead.size() >= 5;
      });
    }
    assertEquals(java.util.Set.of(1L, 2L, 3L, 4L, 6L), dead.keySet(), "the bad records, by source offset");
    Map<Long, String> reasons = new HashMap<>();
    dead.forEach((offset, h) -> {
      assertEquals("dev.ordo.connect.OrdoSinkTask$BadRecordException", h.get("__connect.errors.exception.class.name"));
      assertEquals("mixed", h.get("__connect.errors.topic"));
      reasons.put(offset, h.get("__connect.errors.exception.message"));
    });
    assertEquals("record mixed-0@1 is not an item: ordo.namespace: field 'tenant' is missing", reasons.get(1L));
    assertEquals("record mixed-0@2 is not an item: ordo.priority: field 'order.priority': 'high' is not an integer",
        reasons.get(2L));
    assertTrue(reasons.get(3L).matches("record mixed-0@3 is not an item: the payload of \\d+ bytes is over"
        + " ordo.payload.max.bytes \\(200\\)"), reasons.get(3L));
    assertEquals("record mixed-0@4 is not an item: ordo.namespace: field 'tenant' is missing", reasons.get(4L),
        "a tombstone has no fields");
    assertEquals("record mixed-0@6 is not an item: ordo.headers: the headers kept come to 310 bytes (names and values),"
        + " over ordo.headers.max.bytes (200)", reasons.get(6L), "queue=q (6 bytes) and note (304 bytes)");

    ItemReader items = new ItemReader("mixed");
    await().atMost(Duration.ofSeconds(30)).until(() -> items.poll() == 2);
    assertEquals(java.util.Set.of(0L, 5L), items.byId.keySet(), "the good records are items");
    assertEquals(2, items.byId.get(5L).getPriority());
    await().atMost(Duration.ofSeconds(30)).until(() -> committed("connect-" + name, "mixed") == records.size());
    assertEquals("RUNNING", worker.taskState(name, 0), "bad records tolerated");
  }

  @Test
  void withoutErrorToleranceABadRecordFailsTheTaskWithTheReason() throws Exception {
    String name = "strict-sink";
    kafka.createTopics(1, "strict");
    source.send(mixed(0, "{\"id\":0,\"tenant\":\"strict\",\"order\":{\"priority\":1}}", "strict"));
    source.send(mixed(1, "{\"id\":1,\"tenant\":\"strict\",\"order\":{\"priority\":[1]}}", "strict"));
    source.send(mixed(2, "{\"id\":2,\"tenant\":\"strict\",\"order\":{\"priority\":1}}", "strict"));
    source.flush();
    worker.putConnector(name, connector("strict"));
    await().atMost(Duration.ofSeconds(60)).until(() -> "FAILED".equals(worker.taskState(name, 0)));
    String trace = worker.taskTrace(name, 0);
    assertTrue(trace.contains("OrdoSinkTask$BadRecordException: record strict-0@1 is not an item: ordo.priority:"
        + " field 'order.priority': an array is not an integer"), trace);
    assertTrue(committed("connect-" + name, "strict") <= 1, "nothing committed past the bad record");
  }

  private static ProducerRecord<String, String> mixed(int i, String json) {
    return mixed(i, json, "mixed");
  }

  private static ProducerRecord<String, String> mixed(int i, String json, String topic) {
    ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, "k" + i, json);
    r.headers().add("queue", "q".getBytes(StandardCharsets.UTF_8));
    return r;
  }

  @Test
  void theZipHoldsThePluginDirectoryWithoutWhatTheWorkerProvides() throws Exception {
    Path dir = Path.of(System.getProperty("ordo.connect.plugin.path"), "ordo-connect");
    java.util.Set<String> files;
    try (var list = Files.list(dir)) {
      files = list.map(f -> "ordo-connect/" + f.getFileName()).collect(java.util.stream.Collectors.toSet());
    }
    java.util.Set<String> zipped = new java.util.HashSet<>();
    try (var zip = new java.util.zip.ZipFile(System.getProperty("ordo.connect.plugin.zip"))) {
      zip.stream().filter(e -> !e.isDirectory()).forEach(e -> zipped.add(e.getName()));
    }
    assertEquals(files, zipped);
    assertTrue(files.stream().anyMatch(f -> f.startsWith("ordo-connect/ordo-connectors-")), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.startsWith("ordo-connect/ordo-clients-")), files.toString());
    assertTrue(files.stream().noneMatch(f -> f.contains("kafka-clients") || f.contains("connect-api")
        || f.contains("slf4j")), "the worker's own jars are left out: " + files);
  }

  private static long committed(String group, String topic) throws Exception {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      return offsets.entrySet().stream().filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
          .mapToLong(e -> e.getValue().offset()).sum();
    }
  }

  /** Reads <cluster>.items from the start: every item record of a namespace, keyed by its source record's id. */
  private static final class ItemReader {
    private final String namespace;
    final Map<Long, Item> byId = new HashMap<>();
    /** The Kafka headers of each item's record on <cluster>.items: what the sink put there. */
    final Map<Long, ItemHeaders> headersById = new HashMap<>();
    long records;
    long delayedRecords;
    private final KafkaConsumer<byte[], byte[]> consumer;

    ItemReader(String namespace) {
      this.namespace = namespace;
      Properties p = kafka.clientProperties();
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      List<TopicPartition> parts = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        parts.add(new TopicPartition(topics.items(), i));
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
    }

    long poll() throws Exception {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        Item item = OrdoSerdes.ITEM.decode(r.value());
        if (!item.getNamespace().equals(namespace)) {
          continue;
        }
        long id = ConnectWorker.JSON.readTree(item.getPayload().array()).path("id").asLong();
        byId.put(id, item);
        ItemHeaders.Builder headers = ItemHeaders.builder();
        for (Header h : r.headers()) {
          headers.add(h.key(), h.value());
        }
        headersById.put(id, headers.build());
        records++;
        if (item.getDeliverAfter() != null) {
          delayedRecords++;
        }
      }
      return byId.size();
    }
  }
}
