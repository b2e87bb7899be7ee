package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/schedule} on a server running the delay-tier forwarders (tiers 200 ms and 500 ms),
 * read back by a plain Kafka consumer from a target topic whose timestamps are the broker's append
 * times: a record is never there before its due time.
 */
@KafkaCluster
class ScheduleApiTest {
  @TempDir
  static Path tmp;

  private static TestServer server;
  private static RealKafka cluster;
  private static final String TARGET = "scheduled-target";

  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    cluster = kafka;
    try (Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic(TARGET, 1, (short) 1)
          .configs(Map.of("message.timestamp.type", "LogAppendTime")))).all().get();
    }
    kafka.awaitTopics(TARGET);
    server = TestServer.start(kafka, "sched", tmp.resolve("server"), "200ms,500ms");
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void recordsArriveAtTheirTopicNeverBeforeTheirDueTimeWithKeyValueAndHeaders() {
    Map<String, Object> viaTiers = new HashMap<>();
    viaTiers.put("topic", TARGET);
    viaTiers.put("key", "through-tiers");
    viaTiers.put("value", "v1");
    viaTiers.put("headers", Map.of("traceparent", "00-abc-def-01"));
    viaTiers.put("delayMs", 1_500);
    Reply tiered = server.post("/v1/schedule", viaTiers);
    assertEquals(202, tiered.status(), tiered::text);
    assertTrue(tiered.json().get("writtenTo").get("topic").asText().startsWith("sched.delay."),
        () -> "a delay of a tier or more goes into a tier at once: " + tiered.text());
    long tieredDue = Instant.parse(tiered.json().get("dueAt").asText()).toEpochMilli();

    Map<String, Object> held = Map.of("topic", TARGET, "keyBase64", Base64.getEncoder().encodeToString(new byte[] {0, 1}),
        "valueBase64", Base64.getEncoder().encodeToString(new byte[] {(byte) 0xff}), "delayMs", 100);
    long heldAsked = System.currentTimeMillis();
    Reply shortOne = server.post("/v1/schedule", held);
    assertEquals(202, shortOne.status(), shortOne::text);
    assertEquals(TARGET, shortOne.json().get("writtenTo").get("topic").asText(),
        "shorter than the shortest tier: held by the server, written to its topic, then answered");
    assertTrue(System.currentTimeMillis() - heldAsked >= 100, "answered once written, at its due time");
    long heldDue = Instant.parse(shortOne.json().get("dueAt").asText()).toEpochMilli();

    Reply past = server.post("/v1/schedule", Map.of("topic", TARGET, "key", "past", "value", "v3",
        "dueAt", Instant.now().minusSeconds(60).toString()));
    assertEquals(202, past.status(), past::text);
    assertEquals(TARGET, past.json().get("writtenTo").get("topic").asText(), "due already: written at once");

    Map<String, ConsumerRecord<byte[], byte[]>> byKey = new HashMap<>();
    Properties props = cluster.clientProperties();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(TARGET, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          byKey.put(Base64.getEncoder().encodeToString(r.key()), r);
        }
        return byKey.size() >= 3;
      });
    }
    ConsumerRecord<byte[], byte[]> t = byKey.get(b64("through-tiers"));
    assertEquals("v1", new String(t.value(), StandardCharsets.UTF_8));
    assertEquals("00-abc-def-01", new String(t.headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8));
    assertTrue(t.timestamp() >= tieredDue, () -> "appended " + (tieredDue - t.timestamp()) + " ms before its due time");
    ConsumerRecord<byte[], byte[]> h = byKey.get(Base64.getEncoder().encodeToString(new byte[] {0, 1}));
    assertEquals(List.of((byte) 0xff), List.of(h.value()[0]));
    assertTrue(h.timestamp() >= heldDue, () -> "appended " + (heldDue - h.timestamp()) + " ms before its due time");
    assertTrue(byKey.containsKey(b64("past")));

    // The tiers' meters saw the record through: forwarded to its target by a tier, never early.
    String metrics = server.get("/metrics").text();
    double toTarget = metrics.lines().filter(l -> l.startsWith("ordo_delay_records_total{") && l.contains("to=\"target\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    assertTrue(toTarget >= 1, () -> "a tier forwarded the record to its target:\n" + metrics);
    double early = metrics.lines().filter(l -> l.startsWith("ordo_delay_early_total{"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    assertEquals(0.0, early, "none early");
    double lateCount = metrics.lines().filter(l -> l.startsWith("ordo_delay_lateness_seconds_count{"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    assertEquals(toTarget, lateCount, "every record to a target has its lateness");
  }

  @Test
  void badInputIsRefusedNamingTheFieldAndNothingIsWritten() {
    Map<String, Map<String, Object>> bad = new java.util.LinkedHashMap<>();
    bad.put("does not exist", Map.of("topic", "no-such-topic", "value", "v", "delayMs", 10));
    bad.put("delayMs", Map.of("topic", TARGET, "value", "v", "delayMs", -1));
    bad.put("not both", Map.of("topic", TARGET, "value", "v", "delayMs", 10, "dueAt", Instant.now().toString()));
    bad.put("delayMs or dueAt is missing", Map.of("topic", TARGET, "value", "v"));
    bad.put("dueAt", Map.of("topic", TARGET, "value", "v", "dueAt", "tomorrow"));
    bad.put("value too large", Map.of("topic", TARGET, "value", "x".repeat(ScheduleApi.MAX_RECORD_BYTES + 1),
        "delayMs", 10));
    bad.put("headers", Map.of("topic", TARGET, "value", "v", "delayMs", 10, "headers", List.of("a")));
    bad.put("topic is missing", Map.of("value", "v", "delayMs", 10));
    bad.put("unknown field 'partition'", Map.of("topic", TARGET, "value", "v", "delayMs", 10, "partition", 0));
    List<String> failures = new ArrayList<>();
    bad.forEach((expected, body) -> {
      Reply r = server.post("/v1/schedule", body);
      if (r.status() != 400 || r.error() == null || !r.error().contains(expected)) {
        failures.add(expected + " -> " + r.status() + " " + r.text());
      }
    });
    assertEquals(List.of(), failures);
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
