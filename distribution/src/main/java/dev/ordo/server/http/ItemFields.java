package dev.ordo.server.http;

import dev.ordo.client.EnqueueRequest;
import dev.ordo.server.http.internal.JsonBody;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An item's fields in a JSON body (an enqueue, a batch entry, a nack, a schedule): every field checked
 * when read, an IllegalArgumentException naming a bad one (the router's 400).
 */
final class ItemFields {
  static final Set<String> ENQUEUE_FIELDS = new LinkedHashSet<>(List.of("payload", "payloadBase64", "priority",
      "delayMs", "leaseMs", "ttlMs", "maxAttempts", "atMostOnce", "groupKey", "metadata", "metadataBase64",
      "headers", "headersBase64", "dedupId"));

  private ItemFields() {}

  /** The item an enqueue's fields describe (every field checked; IllegalArgumentException names a bad one). */
  static EnqueueRequest enqueueRequest(JsonBody b, String namespace, String topic, String traceId) {
    byte[] payload = bytes(b, "payload", true);
    EnqueueRequest.Builder builder = EnqueueRequest.builder(namespace, topic, payload);
    Integer priority = b.integer("priority", Integer.MIN_VALUE);
    if (priority != null) {
      builder.priority(priority);
    }
    Long delay = b.millis("delayMs", 0);
    if (delay != null) {
      builder.delay(Duration.ofMillis(delay));
    }
    Long lease = b.millis("leaseMs", 1);
    if (lease != null) {
      builder.lease(Duration.ofMillis(lease));
    }
    Long ttl = b.millis("ttlMs", 1);
    if (ttl != null) {
      builder.ttl(Duration.ofMillis(ttl));
    }
    Integer maxAttempts = b.integer("maxAttempts", 1);
    if (maxAttempts != null) {
      builder.maxAttempts(maxAttempts);
    }
    if (Boolean.TRUE.equals(b.bool("atMostOnce"))) {
      builder.atMostOnce();
    }
    builder.groupKey(b.string("groupKey"));
    builder.dedupId(b.string("dedupId"));
    builder.metadata(bytes(b, "metadata", false));
    headers(b, builder);
    if (traceId != null) {
      builder.traceId(traceId);
    }
    return builder.build();
  }

  /**
   * The item's headers: {@code headers} as {name: UTF-8 text}, then {@code headersBase64} as
   * {name: base64} for binary values; a JSON null is a header with a null value.
   */
  static void headers(JsonBody b, EnqueueRequest.Builder builder) {
    Map<String, byte[]> text = b.stringObject("headers", s -> s.getBytes(StandardCharsets.UTF_8));
    Map<String, byte[]> binary = b.stringObject("headersBase64", s -> {
      try {
        return java.util.Base64.getDecoder().decode(s);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("is not valid base64: " + e.getMessage());
      }
    });
    for (Map<String, byte[]> m : java.util.Arrays.asList(text, binary)) {
      if (m != null) {
        for (Map.Entry<String, byte[]> e : m.entrySet()) {
          if (e.getKey().isEmpty()) {
            throw new IllegalArgumentException("headers: a header name must not be empty");
          }
          builder.header(e.getKey(), e.getValue());
        }
      }
    }
  }

  /** {@code name} as UTF-8 text or {@code nameBase64}, not both; null when neither (an error if required). */
  static byte[] bytes(JsonBody b, String name, boolean required) {
    String base64 = name + "Base64";
    if (b.has(name) && b.has(base64)) {
      throw new IllegalArgumentException("set " + name + " or " + base64 + ", not both");
    }
    if (b.has(base64)) {
      return b.base64(base64);
    }
    String text = b.string(name);
    if (text == null) {
      if (required) {
        throw new IllegalArgumentException(name + " is missing: set " + name + " (text) or " + base64);
      }
      return null;
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
