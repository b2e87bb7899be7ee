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

  /** Replaces the policy of {@code namespace}; returns once the cluster has it. */
  public void set(String namespace, NamespacePolicy policy) {
    Names.check("namespace", namespace);
    if (policy == null) {
      throw new IllegalArgumentException("policy is missing (to remove one, use delete)");
    }
    write(namespace, OrdoSerdes.NAMESPACE_POLICY.encode(policy.toRecord(namespace, System.currentTimeMillis())));
  }

  /** Removes the policy of {@code namespace}: its items take the server's settings again. */
  public void delete(String namespace) {
    Names.check("namespace", namespace);
    write(namespace, null);
  }

  /** The policy of {@code namespace}, if it has one. */
  public Optional<NamespacePolicy> get(String namespace) {
    Names.check("namespace", namespace);
    return Optional.ofNullable(all().get(namespace));
  }

  /** Every namespace's policy, by namespace, as the topic holds them now (read to its end). */
  public Map<String, NamespacePolicy> all() {
    Map<String, NamespacePolicy> out = new TreeMap<>();
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
            out.put(ns, NamespacePolicy.fromRecord(OrdoSerdes.NAMESPACE_POLICY.decode(r.value())));
          } catch (OrdoSerdeException e) {
            out.remove(ns); // the queue ignores it too
          }
        }
      }
    }
    return out;
  }

  private void write(String namespace, byte[] value) {
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
