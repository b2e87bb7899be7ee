package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Names;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Reads and writes namespace policies: records on the compacted topic {@code <cluster>.namespaces},
 * keyed by namespace, which every Ordo instance holds in a global store; a policy written here
 * applies on every partition once the instances have read it (normally well within a second). A
 * PUT replaces the whole policy; a delete writes a tombstone. Thread-safe.
 *
 * <p>The same record carries the namespace's pause ({@link #pause}, {@link #resume}; docs/queue.md,
 * "Paused topics"): a policy written or deleted keeps the pause, and a pause needs no policy (the
 * record then says {@code policySet=false}). Each change reads the namespace's record from the topic's
 * end and writes it back changed; changes made through one admin are applied one at a time, but two
 * admins (two servers) changing the same namespace at the same instant can lose one of the two
 * changes (decisions D55).
 */
public final class NamespaceAdmin implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final ClusterTopics topics;
  private final Map<String, Object> kafkaConfig;
  private final KafkaProducer<byte[], byte[]> producer;

  /**
   * @param kafkaConfig {@code bootstrap.servers} and any Kafka client settings (security, SASL, SSL)
   * @param cluster the Ordo cluster name ({@code --cluster})
   */
  public NamespaceAdmin(Map<String, Object> kafkaConfig, String cluster) {
    this.topics = new ClusterTopics(cluster);
    this.kafkaConfig = Map.copyOf(kafkaConfig);
    this.producer = new KafkaProducer<>(KafkaProps.durableWriter(kafkaConfig), new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  /** Replaces the policy of {@code namespace} (its pause stays as it is); returns once the cluster has it. */
  public synchronized void set(String namespace, NamespacePolicy policy) {
    Names.check("namespace", namespace);
    if (policy == null) {
      throw new IllegalArgumentException("policy is missing (to remove one, use delete)");
    }
    dev.ordo.schema.NamespacePolicy current = records().get(namespace);
    dev.ordo.schema.NamespacePolicy next = policy.toRecord(namespace, System.currentTimeMillis());
    if (current != null) {
      next.setPausedAt(current.getPausedAt());
      next.setPausedTopics(current.getPausedTopics());
    }
    write(namespace, next);
  }

  /** Removes the policy of {@code namespace}: its items take the server's settings again; its pause stays. */
  public synchronized void delete(String namespace) {
    Names.check("namespace", namespace);
    dev.ordo.schema.NamespacePolicy current = records().get(namespace);
    write(namespace, current == null || NamespacePause.fromRecord(namespace, current).isEmpty() ? null
        : pauseOnly(namespace, current.getPausedAt(), current.getPausedTopics()));
  }

  /** The policy of {@code namespace}, if it has one. */
  public Optional<NamespacePolicy> get(String namespace) {
    Names.check("namespace", namespace);
    return Optional.ofNullable(all().get(namespace));
  }

  /** Every namespace's policy, by namespace, as the topic holds them now (read to its end). */
  public Map<String, NamespacePolicy> all() {
    Map<String, NamespacePolicy> out = new TreeMap<>();
    records().forEach((ns, r) -> {
      if (r.getPolicySet()) {
        out.put(ns, NamespacePolicy.fromRecord(r));
      }
    });
    return out;
  }

  /** Pauses the whole namespace: none of its items is leased until {@link #resume(String)}. Idempotent. */
  public NamespacePause pause(String namespace) {
    return changePause(namespace, null, true);
  }

  /** Pauses one topic of the namespace: none of its items is leased until {@link #resume(String, String)}. Idempotent. */
  public NamespacePause pause(String namespace, String topic) {
    Names.check("topic", topic);
    return changePause(namespace, topic, true);
  }

  /** Ends the pause of the whole namespace; topics paused on their own stay paused. Idempotent. */
  public NamespacePause resume(String namespace) {
    return changePause(namespace, null, false);
  }

  /** Ends the pause of one topic (a pause of its whole namespace, if any, stays). Idempotent. */
  public NamespacePause resume(String namespace, String topic) {
    Names.check("topic", topic);
    return changePause(namespace, topic, false);
  }

  /** What of {@code namespace} is paused now (read to the topic's end). */
  public NamespacePause pauses(String namespace) {
    Names.check("namespace", namespace);
    return NamespacePause.fromRecord(namespace, records().get(namespace));
  }

  /** Every namespace with something paused, by namespace (read to the topic's end). */
  public Map<String, NamespacePause> allPauses() {
    Map<String, NamespacePause> out = new TreeMap<>();
    records().forEach((ns, r) -> {
      NamespacePause p = NamespacePause.fromRecord(ns, r);
      if (!p.isEmpty()) {
        out.put(ns, p);
      }
    });
    return out;
  }

  /**
   * Reads the namespace's record, sets or clears its pause (of the whole namespace when {@code topic}
   * is null), and writes it back unless nothing changed. A pause keeps the time it began.
   */
  private synchronized NamespacePause changePause(String namespace, String topic, boolean pause) {
    Names.check("namespace", namespace);
    dev.ordo.schema.NamespacePolicy current = records().get(namespace);
    Long pausedAt = current == null ? null : current.getPausedAt();
    Map<String, Long> topics = new java.util.HashMap<>(current == null ? Map.of() : current.getPausedTopics());
    long now = System.currentTimeMillis();
    if (topic == null) {
      pausedAt = pause ? (pausedAt != null ? pausedAt : Long.valueOf(now)) : null;
    } else if (pause) {
      topics.putIfAbsent(topic, now);
    } else {
      topics.remove(topic);
    }
    boolean unchanged = current != null && java.util.Objects.equals(pausedAt, current.getPausedAt())
        && topics.equals(current.getPausedTopics()) || current == null && pausedAt == null && topics.isEmpty();
    if (!unchanged) {
      dev.ordo.schema.NamespacePolicy next;
      if (current != null && current.getPolicySet()) {
        next = dev.ordo.schema.NamespacePolicy.newBuilder(current).setPausedAt(pausedAt).setPausedTopics(topics).build();
      } else if (pausedAt == null && topics.isEmpty()) {
        next = null; // nothing left: no policy, no pause
      } else {
        next = pauseOnly(namespace, pausedAt, topics);
      }
      write(namespace, next);
    }
    Map<String, java.time.Instant> since = new TreeMap<>();
    topics.forEach((t, at) -> since.put(t, java.time.Instant.ofEpochMilli(at)));
    return new NamespacePause(namespace, pausedAt == null ? null : java.time.Instant.ofEpochMilli(pausedAt), since);
  }

  private static dev.ordo.schema.NamespacePolicy pauseOnly(String namespace, Long pausedAt, Map<String, Long> topics) {
    return dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace(namespace).setUpdatedAt(System.currentTimeMillis())
        .setPausedAt(pausedAt).setPausedTopics(new java.util.HashMap<>(topics)).setPolicySet(false).build();
  }

  /** Every namespace's record, decodable ones only, as the topic holds them now (read to its end). */
  private Map<String, dev.ordo.schema.NamespacePolicy> records() {
    Map<String, dev.ordo.schema.NamespacePolicy> out = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaProps.positionReader(kafkaConfig),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = consumer.partitionsFor(topics.namespaces(), TIMEOUT).stream()
          .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts, TIMEOUT);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (parts.stream().anyMatch(p -> consumer.position(p, TIMEOUT) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topics.namespaces() + " to its end within " + TIMEOUT);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          if (r.key() == null) {
            continue;
          }
          String ns = new String(r.key(), StandardCharsets.UTF_8);
          if (r.value() == null) {
            out.remove(ns);
            continue;
          }
          try {
            out.put(ns, OrdoSerdes.NAMESPACE_POLICY.decode(r.value()));
          } catch (OrdoSerdeException e) {
            out.remove(ns); // the queue ignores it too
          }
        }
      }
    }
    return out;
  }

  private void write(String namespace, dev.ordo.schema.NamespacePolicy record) {
    byte[] value = record == null ? null : OrdoSerdes.NAMESPACE_POLICY.encode(record);
    try {
      producer.send(new ProducerRecord<>(topics.namespaces(), namespace.getBytes(StandardCharsets.UTF_8), value))
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing the policy of " + namespace, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not write the policy of " + namespace + " to " + topics.namespaces()
          + ": " + (e.getCause() != null ? e.getCause() : e), e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
