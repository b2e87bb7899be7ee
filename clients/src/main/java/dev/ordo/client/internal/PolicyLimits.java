package dev.ordo.client.internal;

import dev.ordo.schema.NamespacePolicy;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The backlog limits of the namespace policies on {@code <cluster>.namespaces}, as a producer needs
 * them: fed the topic's records by a {@link StatsReader}, a tombstone or a policy without a limit
 * removing the namespace's. A record that does not decode counts as no limit, as the queue treats it.
 */
public final class PolicyLimits {
  private final String topic;
  private final Map<String, Long> maxBacklog = new ConcurrentHashMap<>();
  /** The policies that shard group keys ({@code shards > 1}), by namespace (decisions D62). */
  private final Map<String, NamespacePolicy> sharded = new ConcurrentHashMap<>();
  /** False while no namespace shards: a grouped item then costs the producer no look-up. */
  private volatile boolean anySharded;

  public PolicyLimits(String topic) {
    this.topic = topic;
  }

  public String topic() {
    return topic;
  }

  public void apply(ConsumerRecord<byte[], byte[]> record) {
    if (record.key() == null) {
      return;
    }
    String namespace = new String(record.key(), StandardCharsets.UTF_8);
    Long limit = null;
    NamespacePolicy shards = null;
    if (record.value() != null) {
      try {
        NamespacePolicy policy = OrdoSerdes.NAMESPACE_POLICY.decode(record.value());
        limit = policy.getMaxBacklog();
        shards = policy.getShards() != null && policy.getShards() > 1 ? policy : null;
      } catch (OrdoSerdeException e) {
        limit = null;
      }
    }
    if (shards == null) {
      sharded.remove(namespace);
    } else {
      sharded.put(namespace, shards);
      anySharded = true;
    }
    if (limit == null) {
      maxBacklog.remove(namespace);
    } else {
      maxBacklog.put(namespace, limit);
    }
  }

  /**
   * The namespace's policy when it shards group keys ({@code shards > 1}), else null: what a producer
   * needs to pick a grouped item's partition ({@link dev.ordo.api.Shards#forGroup}).
   */
  public NamespacePolicy sharded(String namespace) {
    return anySharded ? sharded.get(namespace) : null;
  }

  /** The namespace's policy backlog limit, or null when it has none. */
  public Long maxBacklog(String namespace) {
    return maxBacklog.get(namespace);
  }
}
