package dev.ordo.server.http.internal;

import dev.ordo.client.NamespacePause;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.server.auth.TopicTail;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * This server's copy of what is paused (docs/queue.md, "Paused topics"), followed from
 * {@code <cluster>.namespaces} ({@link TopicTail}): what the topic listings and the console show, and
 * the gauges {@code ordo_namespace_paused{namespace}} and {@code ordo_topic_paused{namespace,topic}}
 * (1 while paused; gone once resumed). Every instance reports the whole cluster's pauses, so
 * aggregate them with {@code max}, not {@code sum}. The queue itself reads the pauses from its own
 * global store, not from here.
 */
public final class PauseTable implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final TopicTail tail;
  private final String topic;
  private final MeterRegistry meters;
  private final Map<String, NamespacePause> pauses = new ConcurrentHashMap<>();
  /** Namespaces with a record on the topic: a policy, a pause, or both. */
  private final Set<String> known = ConcurrentHashMap.newKeySet();
  private final Map<List<String>, Meter> gauges = new ConcurrentHashMap<>();

  public PauseTable(Map<String, Object> kafkaConfig, String namespacesTopic, MeterRegistry meters) {
    this.topic = namespacesTopic;
    this.meters = meters;
    this.tail = new TopicTail(kafkaConfig, namespacesTopic, this::apply);
  }

  /** Reads the topic whole; returns once every record in it is applied. */
  public void start() {
    try {
      tail.start(TIMEOUT);
    } catch (TimeoutException e) {
      throw new IllegalStateException("could not read " + topic + " within " + TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + topic, e);
    }
  }

  /** Waits until this copy has read everything the topic holds now: a change just written shows. */
  public void catchUp(Admin admin) {
    TopicPartition p = new TopicPartition(topic, 0);
    try {
      long end = admin.listOffsets(Map.of(p, OffsetSpec.latest())).partitionResult(p)
          .get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).offset();
      tail.awaitPosition(end, TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + topic, e);
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not read " + topic + " to its end: " + e, e);
    }
  }

  /** What of {@code namespace} is paused (nothing: an empty pause). */
  public NamespacePause of(String namespace) {
    NamespacePause p = pauses.get(namespace);
    return p != null ? p : new NamespacePause(namespace, null, Map.of());
  }

  /** True when the namespace has a record on the topic (a policy or a pause). */
  public boolean knows(String namespace) {
    return known.contains(namespace);
  }

  private void apply(byte[] key, byte[] value) {
    if (key == null) {
      return;
    }
    String namespace = new String(key, StandardCharsets.UTF_8);
    NamespacePause next = null;
    if (value != null) {
      known.add(namespace);
      try {
        next = pauseOf(namespace, OrdoSerdes.NAMESPACE_POLICY.decode(value));
      } catch (OrdoSerdeException e) {
        next = null; // the queue ignores it too
      }
    } else {
      known.remove(namespace);
    }
    if (next == null || next.isEmpty()) {
      pauses.remove(namespace);
    } else {
      pauses.put(namespace, next);
    }
    measure(namespace, next);
  }

  static NamespacePause pauseOf(String namespace, NamespacePolicy r) {
    Map<String, Instant> topics = new TreeMap<>();
    r.getPausedTopics().forEach((t, at) -> topics.put(t, Instant.ofEpochMilli(at)));
    return new NamespacePause(namespace, r.getPausedAt() == null ? null : Instant.ofEpochMilli(r.getPausedAt()), topics);
  }

  /** Registers a gauge per paused namespace and topic, and removes those of the namespace no longer paused. */
  private void measure(String namespace, NamespacePause pause) {
    Set<List<String>> wanted = new HashSet<>();
    if (pause != null && pause.namespacePaused()) {
      wanted.add(List.of(namespace));
    }
    if (pause != null) {
      pause.pausedTopics().keySet().forEach(t -> wanted.add(List.of(namespace, t)));
    }
    for (var it = gauges.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (e.getKey().get(0).equals(namespace) && !wanted.contains(e.getKey())) {
        meters.remove(e.getValue());
        it.remove();
      }
    }
    for (List<String> k : wanted) {
      gauges.computeIfAbsent(k, x -> x.size() == 1
          ? Gauge.builder("ordo.namespace.paused", () -> 1).strongReference(true)
              .description("1 while the whole namespace is paused: none of its items is leased (docs/queue.md)")
              .tags("namespace", x.get(0)).register(meters)
          : Gauge.builder("ordo.topic.paused", () -> 1).strongReference(true)
              .description("1 while the topic is paused on its own: none of its items is leased (docs/queue.md)")
              .tags("namespace", x.get(0), "topic", x.get(1)).register(meters));
    }
  }

  @Override
  public void close() {
    tail.close();
    gauges.values().forEach(meters::remove);
    gauges.clear();
  }
}
