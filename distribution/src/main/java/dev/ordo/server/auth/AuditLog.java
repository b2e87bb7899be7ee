package dev.ordo.server.auth;

import dev.ordo.client.internal.KafkaProps;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log: one JSON record on {@code <cluster>.audit} (one partition, kept 90 days) for every
 * call of an endpoint that changes what operators and admins govern (policies, redrives, purges,
 * principals), refused calls included: who, when, the request and its outcome. A call is answered
 * once its record is written.
 */
public final class AuditLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Request bodies are kept up to this many characters. */
  static final int MAX_REQUEST_CHARS = 4096;
  /** The most records a read looks through, newest first. */
  static final int MAX_SCANNED = 10_000;

  /** One entry of the log. */
  public record Entry(long offset, Instant time, String principal, String method, String path, String request,
      int status, String outcome) {}

  private final String topic;
  private final Map<String, Object> kafkaConfig;
  private final KafkaProducer<byte[], byte[]> producer;

  public AuditLog(Map<String, Object> kafkaConfig, String topic) {
    this.topic = topic;
    this.kafkaConfig = Map.copyOf(kafkaConfig);
    this.producer = new KafkaProducer<>(KafkaProps.durableWriter(kafkaConfig), new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  /** Writes one entry; waits up to 5 s for Kafka to have it (logged, not thrown, if it does not). */
  public void record(Instant time, String principal, String method, String path, String request, int status,
      String outcome) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("time", time.toString());
    m.put("principal", principal);
    m.put("method", method);
    m.put("path", path);
    m.put("request", request == null || request.length() <= MAX_REQUEST_CHARS ? request
        : request.substring(0, MAX_REQUEST_CHARS) + "...");
    m.put("status", status);
    m.put("outcome", outcome);
    try {
      producer.send(new ProducerRecord<>(topic, 0, principal.getBytes(StandardCharsets.UTF_8), JSON.writeValueAsBytes(m)))
          .get(5, TimeUnit.SECONDS);
    } catch (IOException | ExecutionException | TimeoutException e) {
      LOG.error("Could not write the audit record of {} {} by {} (status {}): {}", method, path, principal, status,
          e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The newest {@code limit} entries, newest first, of {@code principal} if not null. */
  public List<Entry> read(int limit, String principal) {
    Map<String, Object> c = new HashMap<>(kafkaConfig);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    TopicPartition tp = new TopicPartition(topic, 0);
    List<Entry> all = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      Duration timeout = Duration.ofSeconds(10);
      long begin = consumer.beginningOffsets(List.of(tp), timeout).get(tp);
      long end = consumer.endOffsets(List.of(tp), timeout).get(tp);
      consumer.seek(tp, Math.max(begin, end - MAX_SCANNED));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (consumer.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          Entry e = decode(r.offset(), r.value());
          if (e != null && (principal == null || principal.equals(e.principal()))) {
            all.add(e);
          }
        }
      }
    }
    List<Entry> newest = new ArrayList<>();
    for (int i = all.size() - 1; i >= 0 && newest.size() < limit; i--) {
      newest.add(all.get(i));
    }
    return newest;
  }

  private static Entry decode(long offset, byte[] value) {
    try {
      JsonNode n = JSON.readTree(value);
      return new Entry(offset, Instant.parse(n.path("time").asText()), n.path("principal").asText(),
          n.path("method").asText(), n.path("path").asText(), n.path("request").isNull() ? null
          : n.path("request").asText(), n.path("status").asInt(), n.path("outcome").isNull() ? null
          : n.path("outcome").asText());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
