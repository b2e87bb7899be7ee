package dev.ordo.server.http.internal;

import dev.ordo.api.ItemHeaders;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.QueueItem;
import dev.ordo.client.TopicActivity;
import dev.ordo.schema.AttemptRecord;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemHeader;
import dev.ordo.schema.StoredItem;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes of the HTTP API, as ordered maps. Bytes (payload, metadata) are sent as text
 * under their own name when they are valid UTF-8, else base64 under {@code <name>Base64}; times are
 * ISO-8601 UTC strings ({@code 2025-01-31T12:00:00.123Z}); durations are milliseconds.
 */
public final class Views {
  private Views() {}

  /** A leased item, as a dequeue returns it. */
  public static Map<String, Object> delivered(QueueItem d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", d.id().toString());
    m.put("lease", d.leaseId());
    m.put("namespace", d.namespace());
    m.put("topic", d.topic());
    m.put("priority", d.priority());
    m.put("attempt", d.attempt());
    putBytes(m, "payload", d.payload());
    putBytes(m, "metadata", d.metadata());
    m.put("enqueuedAt", d.enqueuedAt().toString());
    m.put("leaseExpiresAt", d.leaseExpiresAt().toString());
    if (d.groupKey() != null) {
      m.put("groupKey", d.groupKey());
    }
    if (d.traceId() != null) {
      m.put("traceId", d.traceId());
    }
    putHeaders(m, d.headers());
    return m;
  }

  /**
   * An item's state as its partition's store holds it. The lease id is left out on purpose: it is
   * the holder's right to ack or nack, and an operator's look-up should not hand it to anyone else.
   */
  public static Map<String, Object> stored(String id, StoredItem s) {
    Item item = s.getItem();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("namespace", item.getNamespace());
    m.put("topic", item.getTopic());
    m.put("state", s.getState().name());
    m.put("priority", item.getPriority());
    m.put("attempts", s.getAttempts());
    m.put("maxAttempts", s.getMaxAttempts());
    m.put("semantics", s.getSemantics().name());
    m.put("enqueuedAt", time(s.getEnqueuedAt()));
    m.put("readyAt", time(s.getReadyAt()));
    m.put("leaseMs", s.getLeaseDurationMs());
    m.put("expiresAt", s.getExpiresAt() == null ? null : time(s.getExpiresAt()));
    if (s.getLeasedAt() != null) {
      m.put("leasedAt", time(s.getLeasedAt()));
    }
    if (s.getLeaseExpiresAt() != null) {
      m.put("leaseExpiresAt", time(s.getLeaseExpiresAt()));
    }
    if (s.getLeaseHolder() != null) {
      m.put("leaseHolder", s.getLeaseHolder().getId());
    }
    if (item.getGroupKey() != null) {
      m.put("groupKey", item.getGroupKey());
    }
    if (item.getTraceId() != null) {
      m.put("traceId", item.getTraceId());
    }
    putHeaders(m, item.getHeaders());
    putBytes(m, "payload", item.getPayload());
    putBytes(m, "metadata", item.getMetadata());
    List<Map<String, Object>> history = new ArrayList<>();
    for (AttemptRecord a : s.getHistory()) {
      Map<String, Object> h = new LinkedHashMap<>();
      h.put("attempt", a.getAttempt());
      h.put("leasedAt", time(a.getLeasedAt()));
      h.put("endedAt", time(a.getEndedAt()));
      h.put("outcome", a.getOutcome());
      if (a.getError() != null) {
        h.put("error", a.getError());
      }
      history.add(h);
    }
    m.put("history", history);
    return m;
  }

  /** One topic of a namespace with its counts. */
  public static Map<String, Object> topic(TopicActivity t, boolean paused) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("topic", t.topic());
    m.put("ready", t.ready());
    m.put("delayed", t.delayed());
    m.put("leased", t.leased());
    m.put("parked", t.parked());
    m.put("overflow", t.overflow());
    m.put("headPriority", t.headPriority());
    m.put("oldestReadyAgeMs", t.oldestReadyAge() == null ? 0 : t.oldestReadyAge().toMillis());
    m.put("paused", paused);
    return m;
  }

  /**
   * Namespaces with their totals over their topics, in the order of {@code topics} (sorted by
   * namespace, then topic): {@code namespace}, {@code topicCount}, the five counts summed, the oldest
   * ready age among its topics, and with {@code withTopics} each topic as {@link #topic} shows it.
   */
  public static List<Map<String, Object>> namespaces(List<TopicActivity> topics, boolean withTopics,
      java.util.function.Function<String, dev.ordo.client.NamespacePause> pauses) {
    Map<String, Map<String, Object>> byNamespace = new LinkedHashMap<>();
    for (TopicActivity t : topics) {
      Map<String, Object> n = byNamespace.computeIfAbsent(t.namespace(), ns -> {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("namespace", ns);
        m.put("topicCount", 0);
        for (String state : List.of("ready", "delayed", "leased", "parked", "overflow")) {
          m.put(state, 0L);
        }
        m.put("oldestReadyAgeMs", 0L);
        m.put("paused", pauses.apply(ns).namespacePaused());
        if (withTopics) {
          m.put("topics", new ArrayList<Map<String, Object>>());
        }
        return m;
      });
      n.merge("topicCount", 1, (a, b) -> (Integer) a + (Integer) b);
      n.merge("ready", t.ready(), (a, b) -> (Long) a + (Long) b);
      n.merge("delayed", t.delayed(), (a, b) -> (Long) a + (Long) b);
      n.merge("leased", t.leased(), (a, b) -> (Long) a + (Long) b);
      n.merge("parked", t.parked(), (a, b) -> (Long) a + (Long) b);
      n.merge("overflow", t.overflow(), (a, b) -> (Long) a + (Long) b);
      long age = t.oldestReadyAge() == null ? 0 : t.oldestReadyAge().toMillis();
      n.merge("oldestReadyAgeMs", age, (a, b) -> Math.max((Long) a, (Long) b));
      if (withTopics) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> list = (List<Map<String, Object>>) n.get("topics");
        list.add(topic(t, pauses.apply(t.namespace()).paused(t.topic())));
      }
    }
    return new ArrayList<>(byNamespace.values());
  }

  /** An applied command: {@code {"id", "result"}} plus the new lease expiry of an extend, a detail, or the dead-letter reason of a nack that dead-lettered. */
  public static Map<String, Object> applied(CommandOutcome o) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", o.itemId().toString());
    m.put("result", o.result().name());
    if (o.leaseExpiresAt() != null) {
      m.put("leaseExpiresAt", o.leaseExpiresAt().toString());
    }
    if (o.detail() != null) {
      m.put("detail", o.detail());
    }
    if (o.deadLetterReason() != null) {
      m.put("deadLetterReason", o.deadLetterReason());
    }
    return m;
  }

  /**
   * An item's headers, when it has any: {@code headers} as {name: text} for values that are valid
   * UTF-8 (null for a null value), {@code headersBase64} as {name: base64} for the others. A name
   * that repeats shows its last value (as Kafka's {@code lastHeader}); the Java clients see all.
   */
  public static void putHeaders(Map<String, Object> m, List<ItemHeader> headers) {
    if (headers == null || headers.isEmpty()) {
      return;
    }
    putHeaders(m, ItemHeaders.fromRecords(headers));
  }

  public static void putHeaders(Map<String, Object> m, ItemHeaders headers) {
    if (headers.isEmpty()) {
      return;
    }
    Map<String, Object> text = new LinkedHashMap<>();
    Map<String, Object> binary = new LinkedHashMap<>();
    for (Map.Entry<String, byte[]> e : headers.lastValues().entrySet()) {
      String s = ItemHeaders.utf8(e.getValue());
      if (e.getValue() == null || s != null) {
        text.put(e.getKey(), s);
      } else {
        binary.put(e.getKey(), Base64.getEncoder().encodeToString(e.getValue()));
      }
    }
    m.put("headers", text);
    if (!binary.isEmpty()) {
      m.put("headersBase64", binary);
    }
  }

  public static String time(long epochMs) {
    return Instant.ofEpochMilli(epochMs).toString();
  }

  /** {@code name: text} for valid UTF-8, {@code nameBase64: ...} otherwise, {@code name: null} when absent. */
  public static void putBytes(Map<String, Object> m, String name, byte[] bytes) {
    putBytes(m, name, bytes == null ? null : ByteBuffer.wrap(bytes));
  }

  public static void putBytes(Map<String, Object> m, String name, ByteBuffer bytes) {
    if (bytes == null) {
      m.put(name, null);
      return;
    }
    ByteBuffer b = bytes.duplicate();
    try {
      String text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(b.duplicate())
          .toString();
      m.put(name, text);
    } catch (CharacterCodingException e) {
      byte[] raw = new byte[b.remaining()];
      b.get(raw);
      m.put(name + "Base64", Base64.getEncoder().encodeToString(raw));
    }
  }
}
