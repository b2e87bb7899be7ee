package dev.ordo.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.delay.DelayClient;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.http.internal.JsonBody;
import dev.ordo.server.http.internal.Views;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * {@code POST /v1/schedule}: the delay service over HTTP (docs/http-api.md). Any record for any
 * existing topic of the cluster, due after a delay or at a time; the forwarders of the delay tiers
 * write it to its topic at or after its due time, never before.
 *
 * <p>When the answer comes, 202: once the record is durable in Kafka. A delay of at least the
 * shortest tier goes into a tier topic at once (the server's {@link DelayClient} holds nothing back:
 * {@code ordo.delay.client.hold.residual=false}, the last forwarder waits the remainder). A shorter
 * delay has no tier to wait in: the server holds the record and writes it to its topic at the due
 * time, and answers then, so the request lasts the delay; a server that dies meanwhile never wrote
 * it, and its caller, whose request failed, knows.
 */
public final class ScheduleApi {
  /** Key, value and headers of a scheduled record, together, at most this many bytes. */
  static final int MAX_RECORD_BYTES = 1_000_000;

  static final Set<String> FIELDS = new LinkedHashSet<>(List.of("topic", "key", "keyBase64", "value", "valueBase64",
      "headers", "delayMs", "dueAt"));

  private final DelayClient delays;
  private final Predicate<String> topicExists;
  private final Duration longestHeld;

  /**
   * @param topicExists whether a topic exists in the cluster (never creates one)
   * @param longestHeld the shortest delay tier: the longest a delay can be held here before a write
   */
  public ScheduleApi(DelayClient delays, Predicate<String> topicExists, Duration longestHeld) {
    this.delays = delays;
    this.topicExists = topicExists;
    this.longestHeld = longestHeld;
  }

  public void register(HttpRouter router) {
    router.post("/v1/schedule", ApiAnswers.guarded(this::schedule));
  }

  HttpResponse schedule(HttpRequest r) throws ApiException {
    JsonBody b = JsonBody.parse(r.body(), FIELDS);
    String topic = b.string("topic");
    if (topic == null || topic.isEmpty()) {
      throw new IllegalArgumentException("topic is missing: the Kafka topic the record is for");
    }
    byte[] key = oneOf(b, "key");
    byte[] value = oneOf(b, "value");
    List<Header> headers = headers(b);
    long size = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    for (Header h : headers) {
      size += h.key().length() + h.value().length;
    }
    if (size > MAX_RECORD_BYTES) {
      throw new IllegalArgumentException("value too large: key, value and headers come to " + size
          + " bytes, more than the " + MAX_RECORD_BYTES + " a scheduled record may have");
    }
    Instant now = Instant.now();
    Instant due = due(b, now);
    if (!topicExists.test(topic)) {
      throw new IllegalArgumentException("topic '" + topic + "' does not exist in the cluster; create it first"
          + " (a schedule never creates topics)");
    }
    CompletableFuture<RecordMetadata> written = delays.schedule(topic, key, value, headers, due);
    Duration wait = Duration.between(now, due).isNegative() ? Duration.ZERO : Duration.between(now, due);
    RecordMetadata m = ApiAnswers.await(written, min(wait, longestHeld).plus(ApiAnswers.SLACK),
        "scheduling the record");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("topic", topic);
    body.put("dueAt", Views.time(due.toEpochMilli()));
    Map<String, Object> at = new LinkedHashMap<>();
    at.put("topic", m.topic());
    at.put("partition", m.partition());
    at.put("offset", m.offset());
    body.put("writtenTo", at);
    return HttpResponse.json(202, body);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** {@code delayMs} (0 or more) or {@code dueAt} (ISO-8601), exactly one. */
  private static Instant due(JsonBody b, Instant now) {
    boolean hasDelay = b.has("delayMs");
    boolean hasDue = b.has("dueAt");
    if (hasDelay && hasDue) {
      throw new IllegalArgumentException("set delayMs or dueAt, not both");
    }
    if (!hasDelay && !hasDue) {
      throw new IllegalArgumentException("delayMs or dueAt is missing: when the record is due");
    }
    if (hasDelay) {
      return now.plusMillis(b.millis("delayMs", 0));
    }
    String text = b.string("dueAt");
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("dueAt must be an ISO-8601 UTC time such as 2026-11-24T10:00:00.000Z, got '"
          + text + "'");
    }
  }

  /** {@code name} as UTF-8 text or {@code nameBase64}, not both; null when neither. */
  private static byte[] oneOf(JsonBody b, String name) {
    return ItemFields.bytes(b, name, false);
  }

  /** {@code headers}: an object of text values, each a Kafka header (UTF-8). */
  private static List<Header> headers(JsonBody b) {
    JsonNode node = b.node("headers");
    List<Header> headers = new ArrayList<>();
    if (node == null) {
      return headers;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException("headers must be an object of names to text values, e.g."
          + " {\"traceparent\": \"00-...\"}");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isTextual()) {
        throw new IllegalArgumentException("headers." + e.getKey() + " must be text");
      }
      headers.add(new RecordHeader(e.getKey(), e.getValue().asText().getBytes(StandardCharsets.UTF_8)));
    }
    return headers;
  }
}
