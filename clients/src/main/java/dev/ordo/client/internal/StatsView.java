package dev.ordo.client.internal;

import dev.ordo.client.TopicActivity;
import dev.ordo.schema.TopicStats;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory copy of the compacted {@code <cluster>.topics}: the latest {@link TopicStats} per
 * {@code namespace/topic/partition}, tombstones removing entries. The owner's consumer reads the
 * topic from the beginning and feeds {@link #apply}; {@link #caughtUp()} completes once it has
 * read up to the end offsets seen at {@link #assign}, so the first answer is not an empty table.
 */
public final class StatsView {
  private static final Logger log = LoggerFactory.getLogger(StatsView.class);

  private final String topic;
  private final Map<String, TopicStats> stats = new ConcurrentHashMap<>();
  /** Items this client was handed since the key's last stats record, which that record does not know of yet. */
  private final Map<String, Long> takenSince = new ConcurrentHashMap<>();
  /**
   * Items this client sent to a {@code namespace/topic/partition} since the key's last stats record
   * (shuffle sharding's choice, {@link #shardBacklogs}): only keys a sharded group was sent to.
   */
  private final Map<String, Long> sentSince = new ConcurrentHashMap<>();
  /** Items that running dequeues count on, by {@code <namespace>/<partition>/<topic>}. */
  private final Map<String, Long> reserved = new ConcurrentHashMap<>();
  private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
  private Map<TopicPartition, Long> endOffsets = Map.of();
  private final Object changed = new Object();

  private final dev.ordo.serde.WireFormat wire;

  public StatsView(String topic) {
    this(topic, dev.ordo.serde.WireFormat.SINGLE_OBJECT);
  }

  /** {@code wire}: how the queue writes its stats (Confluent-framed with a schema registry). */
  public StatsView(String topic, dev.ordo.serde.WireFormat wire) {
    this.topic = topic;
    this.wire = wire;
  }

  public String topic() {
    return topic;
  }

  /**
   * The stats topic's partitions, to add to the consumer's assignment; the caller then seeks them
   * to the beginning and calls {@link #start}.
   */
  public List<TopicPartition> partitions(Consumer<?, ?> consumer, Duration timeout) {
    List<TopicPartition> parts = new ArrayList<>();
    consumer.partitionsFor(topic, timeout).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
    if (parts.isEmpty()) {
      log.warn("Topic {} does not exist; active topics will stay empty", topic);
    }
    return parts;
  }

  /** Remembers where "caught up" is: the end offsets at assignment. */
  public void start(Consumer<?, ?> consumer, List<TopicPartition> parts, Duration timeout) {
    this.endOffsets = parts.isEmpty() ? Map.of() : new HashMap<>(consumer.endOffsets(parts, timeout));
    checkCaughtUp(consumer);
  }

  public void apply(ConsumerRecord<byte[], byte[]> record) {
    try {
      take(record);
    } finally {
      synchronized (changed) {
        changed.notifyAll();
      }
    }
  }

  /**
   * Waits until a stats record arrives or {@code ms} pass, whichever is first (a producer held by a
   * full backlog looks again when the counts change).
   */
  public void awaitChange(long ms) throws InterruptedException {
    if (ms <= 0) {
      return;
    }
    synchronized (changed) {
      changed.wait(ms);
    }
  }

  private void take(ConsumerRecord<byte[], byte[]> record) {
    String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    if (key == null) {
      return;
    }
    takenSince.remove(key);
    if (!sentSince.isEmpty()) {
      sentSince.remove(key);
    }
    if (record.value() == null) {
      stats.remove(key);
      return;
    }
    try {
      stats.put(key, wire.decode(OrdoSerdes.TOPIC_STATS, record.value()));
    } catch (OrdoSerdeException e) {
      log.warn("Skipping undecodable stats record {} at {}-{}@{}: {}", key, record.topic(), record.partition(),
          record.offset(), e.getMessage());
    }
  }

  /** Call after each poll: completes {@link #caughtUp()} once every partition reached its start end offset. */
  public void checkCaughtUp(Consumer<?, ?> consumer) {
    if (caughtUp.isDone()) {
      return;
    }
    for (Map.Entry<TopicPartition, Long> e : endOffsets.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return;
      }
    }
    caughtUp.complete(null);
  }

  public CompletableFuture<Void> caughtUp() {
    return caughtUp;
  }

  /** The namespace's topics with their counts summed over partitions, by topic name. */
  public List<TopicActivity> activeTopics(String namespace, long now) {
    return summed(namespace, now);
  }

  /** Every namespace's topics with their counts summed over partitions, by namespace, then topic name. */
  public List<TopicActivity> activeTopics(long now) {
    return summed(null, now);
  }

  /** Sums the stats of {@code namespace} (null: every namespace) over partitions, per topic. */
  private List<TopicActivity> summed(String namespace, long now) {
    record Key(String namespace, String topic) {}
    Map<Key, long[]> sums = new HashMap<>();
    Map<Key, Integer> heads = new HashMap<>();
    Map<Key, Long> oldest = new HashMap<>();
    for (TopicStats s : stats.values()) {
      if (namespace != null && !s.getNamespace().equals(namespace)) {
        continue;
      }
      Key key = new Key(s.getNamespace(), s.getTopic());
      long[] c = sums.computeIfAbsent(key, t -> new long[5]);
      c[0] += s.getReady();
      c[1] += s.getDelayed();
      c[2] += s.getLeased();
      c[3] += s.getParked();
      c[4] += s.getOverflow();
      if (s.getHeadPriority() != null) {
        heads.merge(key, s.getHeadPriority(), Math::min);
      }
      if (s.getOldestReadyAt() != null) {
        oldest.merge(key, s.getOldestReadyAt(), Math::min);
      }
    }
    List<TopicActivity> out = new ArrayList<>();
    sums.forEach((k, c) -> {
      Long at = oldest.get(k);
      out.add(new TopicActivity(k.namespace(), k.topic(), c[0], c[1], c[2], c[3], c[4], heads.get(k),
          at == null ? null : Instant.ofEpochMilli(at),
          at == null ? Duration.ZERO : Duration.ofMillis(Math.max(0, now - at))));
    });
    out.sort(Comparator.comparing(TopicActivity::namespace).thenComparing(TopicActivity::topic));
    return out;
  }

  /**
   * This client was handed an item of {@code namespace/topic} from {@code partition}: until that
   * partition's next stats record, {@link #readyEntries} counts one ready item fewer there, so that
   * the client's next dequeues do not aim at the items it already took.
   */
  public void taken(String namespace, String topic, int partition) {
    takenSince.merge(namespace + "/" + topic + "/" + partition, 1L, Long::sum);
  }

  /**
   * A partition asked once for items of {@code key} (a topic, or {@code *} for any topic of the
   * namespace) had fewer than its stats showed: until its next stats record, {@link #readyEntries}
   * shows none there, so the client's next plans do not ask it again for items that are gone.
   */
  public void exhausted(String namespace, String key, int partition) {
    for (TopicStats s : stats.values()) {
      if (s.getPartition() == partition && s.getNamespace().equals(namespace)
          && (Selection.ANY_TOPIC.equals(key) || s.getTopic().equals(key))) {
        takenSince.put(namespace + "/" + s.getTopic() + "/" + partition, Long.MAX_VALUE / 4);
      }
    }
  }

  /**
   * A dequeue of this client counts on {@code n} items of a stats entry ({@link DemandPlan#takes}),
   * positive when planned, negative when they arrived or the dequeue ended: {@link #readyEntries}
   * leaves them out meanwhile, so concurrent dequeues of one client spread over the ready items instead
   * of all asking the partition with the best head.
   */
  public void reserve(String namespace, String entryKey, long n) {
    reserved.merge(namespace + "/" + entryKey, n, (a, b) -> a + b == 0 ? null : a + b);
  }

  /** The namespace's (partition, topic) entries with ready items, less those taken since, for {@link DemandPlan}. */
  public List<DemandPlan.Entry> readyEntries(String namespace) {
    List<DemandPlan.Entry> out = new ArrayList<>();
    for (Map.Entry<String, TopicStats> e : stats.entrySet()) {
      TopicStats s = e.getValue();
      if (!s.getNamespace().equals(namespace) || s.getHeadPriority() == null) {
        continue;
      }
      long ready = s.getReady() - takenSince.getOrDefault(e.getKey(), 0L)
          - reserved.getOrDefault(namespace + "/" + DemandPlan.entryKey(s.getPartition(), s.getTopic()), 0L);
      if (ready > 0) {
        out.add(new DemandPlan.Entry(s.getPartition(), s.getTopic(), ready, s.getHeadPriority(),
            s.getOldestReadyAt() == null ? Long.MAX_VALUE : s.getOldestReadyAt()));
      }
    }
    return out;
  }

  /**
   * The backlog (ready, delayed, parked and in OVERFLOW) of {@code namespace/topic} on each of
   * {@code partitions}, as its last stats record says, plus what this client sent there since
   * ({@link #sent}): what shuffle sharding picks a grouped item's partition by (decisions D62). A
   * partition without stats counts 0.
   */
  public long[] shardBacklogs(String namespace, String topic, int[] partitions) {
    long[] out = new long[partitions.length];
    String prefix = namespace + "/" + topic + "/";
    for (int i = 0; i < partitions.length; i++) {
      String key = prefix + partitions[i];
      TopicStats s = stats.get(key);
      long n = s == null ? 0 : s.getReady() + s.getDelayed() + s.getParked() + s.getOverflow();
      out[i] = n + sentSince.getOrDefault(key, 0L);
    }
    return out;
  }

  /** This client sent an item of {@code namespace/topic} to {@code partition}: counted there until its next stats record. */
  public void sent(String namespace, String topic, int partition) {
    sentSince.merge(namespace + "/" + topic + "/" + partition, 1L, Long::sum);
  }

  /** Items of the namespace not being worked on: ready, delayed, parked and in OVERFLOW. */
  public long backlog(String namespace) {
    long n = 0;
    for (TopicStats s : stats.values()) {
      if (s.getNamespace().equals(namespace)) {
        n += s.getReady() + s.getDelayed() + s.getParked() + s.getOverflow();
      }
    }
    return n;
  }
}
