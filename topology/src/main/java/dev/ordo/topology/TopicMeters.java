package dev.ordo.topology;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.store.TopicCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Per (namespace, topic) meters of one instance, from the partitions it owns (docs/operations.md,
 * "Metrics"): items by state and the age of the oldest ready item (gauges, fed by each partition's
 * stats and read at scrape time), enqueues and leases (counters), the age of an item at its first
 * lease (enqueue to first attempt, Amazon's AgeOfFirstAttempt) and its age at every lease as
 * histograms, TTL expiries, stale leases, redriven items, dead letters by reason, leases ended without an ack by how (nack,
 * expiry, release), extends, and the attempts each acked item took. Plus the instance's queue counters
 * ({@link QueueMetrics}) as {@code ordo_queue_events_total{event}}.
 *
 * <p><b>Cardinality is bounded</b>: at most {@code maxTopics} (namespace, topic) label sets; past
 * that, a topic's meters are those of {@code namespace="_other", topic="_other"}, and
 * {@code ordo_metrics_topics_folded_total} counts the topics folded. A topic's label set goes when
 * the partitions here hold nothing of it and nothing happened to it for {@code idleMs}.
 *
 * <p>Called from stream threads: every map is concurrent, and a topic's meters are made once.
 * {@link #NONE} records nothing (an embedder that wants no metrics pays one branch per event).
 */
public final class TopicMeters {
  public static final String OTHER = "_other";
  private static final java.util.Set<String> LEASE_ENDS = java.util.Set.of("NACK", "LEASE_EXPIRED", "RELEASED");

  /** Meters nobody reads. */
  public static final TopicMeters NONE = new TopicMeters();

  private final MeterRegistry registry;
  private final int maxTopics;
  private final long idleMs;
  private final LongSupplier clock;
  private final Map<TopicKey, TopicMeterSet> topics = new ConcurrentHashMap<>();
  private final Counter folded;
  private final java.util.Set<Integer> rebuildingPartitions = ConcurrentHashMap.newKeySet();
  /** Each partition's deduplication window: entries held (decisions D57). */
  private final Map<Integer, Long> dedupEntries = new ConcurrentHashMap<>();

  private record TopicKey(String namespace, String topic) {}

  private TopicMeters() {
    this.registry = null;
    this.maxTopics = 0;
    this.idleMs = 0;
    this.clock = System::currentTimeMillis;
    this.folded = null;
  }

  /**
   * @param registry where the meters go
   * @param maxTopics (namespace, topic) label sets at most; more are folded into {@value #OTHER}
   * @param idleMs how long a topic with nothing here keeps its label set
   * @param metrics the instance's queue counters, exported as {@code ordo_queue_events_total}
   * @param clock wall-clock milliseconds (ages are measured against it at scrape time)
   */
  public TopicMeters(MeterRegistry registry, int maxTopics, Duration idle, QueueMetrics metrics, LongSupplier clock) {
    if (maxTopics < 1) {
      throw new IllegalArgumentException("maxTopics must be positive, got " + maxTopics);
    }
    this.registry = registry;
    this.maxTopics = maxTopics;
    this.idleMs = idle.toMillis();
    this.clock = clock;
    this.folded = Counter.builder("ordo.metrics.topics.folded")
        .description("(namespace, topic) label sets folded into _other: over ordo.metrics.topics.max")
        .register(registry);
    Gauge.builder("ordo.index.rebuilding.partitions", rebuildingPartitions, java.util.Set::size)
        .description("Partitions of this instance whose index is being rebuilt (dispatch waits for it);"
            + " progress: ordo_queue_events_total{event=\"index.rebuilt.items\"}")
        .register(registry);
    Gauge.builder("ordo.dedup.entries", dedupEntries, m -> m.values().stream().mapToLong(Long::longValue).sum())
        .description("Deduplication IDs held in the windows of this instance's partitions (each capped by"
            + " ordo.dedup.max.entries; at the cap the oldest are forgotten early, counted as event dedup.evicted)")
        .register(registry);
    for (String event : QueueMetrics.EVENTS) {
      FunctionCounter.builder("ordo.queue.events", metrics, m -> m.get(event))
          .description("What the queue's processors on this instance did (QueueMetrics), since it started")
          .tags("event", event)
          .register(registry);
    }
  }

  public boolean enabled() {
    return registry != null;
  }

  /** An item of the topic was taken in (any state). */
  public void enqueued(String namespace, String topic) {
    if (registry != null) {
      topic(namespace, topic).enqueued.increment();
    }
  }

  /**
   * An item of the topic was leased.
   *
   * @param firstAttempt its first lease
   * @param sinceEnqueueMs enqueue to now: its age at this attempt
   */
  public void leased(String namespace, String topic, boolean firstAttempt, long sinceEnqueueMs) {
    if (registry == null) {
      return;
    }
    topic(namespace, topic).leased(firstAttempt, sinceEnqueueMs);
  }

  /** An item of the topic was deleted by its time to live (dead-lettered too, with ordo.ttl.dead.letter). */
  public void ttlExpired(String namespace, String topic) {
    if (registry != null) {
      topic(namespace, topic).ttlExpired.increment();
    }
  }

  /** A command named an item of the topic with a lease that is not the item's. */
  public void staleLease(String namespace, String topic) {
    if (registry != null) {
      topic(namespace, topic).staleLeases.increment();
    }
  }

  /** An item of the topic came back from the dead letters (a redrive job's, by its header). */
  public void redriven(String namespace, String topic) {
    if (registry != null) {
      topic(namespace, topic).redriven.increment();
    }
  }

  /** Whether the partition's index is being rebuilt (the instance-wide gauge counts those that are). */
  public void rebuilding(int partition, boolean now) {
    if (registry == null) {
      return;
    }
    if (now) {
      rebuildingPartitions.add(partition);
    } else {
      rebuildingPartitions.remove(partition);
    }
  }

  /**
   * A lease of the topic ended without an ack: {@code outcome} is the attempt record's (NACK,
   * LEASE_EXPIRED, RELEASED).
   */
  public void leaseEnded(String namespace, String topic, String outcome) {
    if (registry == null) {
      return;
    }
    topic(namespace, topic).leaseEnded(LEASE_ENDS.contains(outcome) ? outcome : "OTHER");
  }

  /** A lease of the topic was extended. */
  public void extended(String namespace, String topic) {
    if (registry != null) {
      topic(namespace, topic).extended.increment();
    }
  }

  /** A leased item of the topic was acked on its {@code attempts}-th delivery. */
  public void acked(String namespace, String topic, int attempts) {
    if (registry != null) {
      topic(namespace, topic).attemptsPerAck.record(attempts);
    }
  }

  /** An item of the topic was refused as a duplicate of an earlier one in its deduplication window (decisions D57). */
  public void duplicate(String namespace, String topic) {
    if (registry != null) {
      topic(namespace, topic).duplicates.increment();
    }
  }

  /**
   * Items of the topic passed over {@code n} times because their group had no token of its rate
   * ({@code groupRate}, docs/queue.md "Group rates"): rate-limited waits.
   */
  public void groupRateLimited(String namespace, String topic, long n) {
    if (registry != null) {
      topic(namespace, topic).groupRateLimited.increment(n);
    }
  }

  /** How many deduplication IDs the partition's window holds now. */
  public void dedupEntries(int partition, long entries) {
    if (registry != null) {
      dedupEntries.put(partition, entries);
    }
  }

  /** An item of the topic in {@code state} was deleted by a purge job. */
  public void purged(String namespace, String topic, String state) {
    if (registry == null) {
      return;
    }
    topic(namespace, topic).purged(state);
  }

  public void deadLettered(String namespace, String topic, DeadLetterReason reason) {
    if (registry == null) {
      return;
    }
    topic(namespace, topic).deadLettered(reason);
  }

  /**
   * A partition's counts of the topic, as its processor publishes them (every stats interval for a
   * changed topic). {@code oldestReadyAt}: null when nothing is ready.
   */
  public void counts(int partition, String namespace, String topic, TopicCounts counts, Long oldestReadyAt) {
    if (registry == null) {
      return;
    }
    topic(namespace, topic).counts(partition, counts, oldestReadyAt);
  }

  /** The partition is no longer here (its task moved or closed): its counts leave every topic. */
  public void forgetPartition(int partition) {
    if (registry != null) {
      topics.values().forEach(t -> t.forget(partition));
      dedupEntries.remove(partition);
    }
  }

  /** Removes the label sets of topics with nothing here that have been idle for {@code idleMs}. */
  public void sweep() {
    if (registry == null) {
      return;
    }
    long now = clock.getAsLong();
    List<TopicKey> idle = new ArrayList<>();
    topics.forEach((k, t) -> {
      if (t.idleSince(now, idleMs)) {
        idle.add(k);
      }
    });
    for (TopicKey k : idle) {
      TopicMeterSet t = topics.remove(k);
      if (t != null) {
        t.meters().forEach(registry::remove);
      }
    }
  }

  /** The (namespace, topic) label sets held now (for tests). */
  public int topicCount() {
    return topics.size();
  }

  private TopicMeterSet topic(String namespace, String topic) {
    TopicKey key = new TopicKey(namespace, topic);
    TopicMeterSet t = topics.get(key);
    if (t == null) {
      if (topics.size() >= maxTopics && !topics.containsKey(key)) {
        folded.increment();
        key = new TopicKey(OTHER, OTHER);
      }
      t = topics.computeIfAbsent(key, k -> new TopicMeterSet(registry, clock, k.namespace(), k.topic()));
    }
    t.touch(clock.getAsLong());
    return t;
  }
}
