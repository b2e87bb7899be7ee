package dev.ordo.topology;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.store.TopicCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
  private final Map<TopicKey, Topic> topics = new ConcurrentHashMap<>();
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
    Topic t = topic(namespace, topic);
    t.leased.increment();
    long age = Math.max(0, sinceEnqueueMs);
    t.attemptAge.record(age, TimeUnit.MILLISECONDS);
    if (firstAttempt) {
      t.firstAttemptAge.record(age, TimeUnit.MILLISECONDS);
    }
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
    Topic t = topic(namespace, topic);
    String how = LEASE_ENDS.contains(outcome) ? outcome : "OTHER";
    t.leaseEnds.computeIfAbsent(how, o -> Counter.builder("ordo.lease.ends")
        .description("Leases that ended without an ack, by how: NACK, LEASE_EXPIRED, RELEASED")
        .tags(t.tags).tag("outcome", o)
        .register(registry)).increment();
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
    Topic t = topic(namespace, topic);
    t.purged.computeIfAbsent(state, s -> Counter.builder("ordo.items.purged")
        .description("Items deleted by a purge job, by the state they were in")
        .tags(t.tags).tag("state", s)
        .register(registry)).increment();
  }

  public void deadLettered(String namespace, String topic, DeadLetterReason reason) {
    if (registry == null) {
      return;
    }
    Topic t = topic(namespace, topic);
    t.deadLetters.computeIfAbsent(reason, r -> Counter.builder("ordo.dead.letters")
        .description("Items dead-lettered, by reason")
        .tags(t.tags).tag("reason", r.name())
        .register(registry)).increment();
  }

  /**
   * A partition's counts of the topic, as its processor publishes them (every stats interval for a
   * changed topic). {@code oldestReadyAt}: null when nothing is ready.
   */
  public void counts(int partition, String namespace, String topic, TopicCounts counts, Long oldestReadyAt) {
    if (registry == null) {
      return;
    }
    Topic t = topic(namespace, topic);
    if (counts.total() == 0) {
      t.partitions.remove(partition);
    } else {
      t.partitions.put(partition, new PartitionCounts(counts, oldestReadyAt));
    }
  }

  /** The partition is no longer here (its task moved or closed): its counts leave every topic. */
  public void forgetPartition(int partition) {
    if (registry != null) {
      topics.values().forEach(t -> t.partitions.remove(partition));
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
      if (t.partitions.isEmpty() && now - t.lastActive >= idleMs) {
        idle.add(k);
      }
    });
    for (TopicKey k : idle) {
      Topic t = topics.remove(k);
      if (t != null) {
        t.meters().forEach(registry::remove);
      }
    }
  }

  /** The (namespace, topic) label sets held now (for tests). */
  public int topicCount() {
    return topics.size();
  }

  private Topic topic(String namespace, String topic) {
    TopicKey key = new TopicKey(namespace, topic);
    Topic t = topics.get(key);
    if (t == null) {
      if (topics.size() >= maxTopics && !topics.containsKey(key)) {
        folded.increment();
        key = new TopicKey(OTHER, OTHER);
      }
      t = topics.computeIfAbsent(key, k -> new Topic(k.namespace(), k.topic()));
    }
    t.lastActive = clock.getAsLong();
    return t;
  }

  private record PartitionCounts(TopicCounts counts, Long oldestReadyAt) {}

  /** One (namespace, topic)'s meters. */
  private final class Topic {
    final Tags tags;
    final Map<Integer, PartitionCounts> partitions = new ConcurrentHashMap<>();
    final Map<DeadLetterReason, Counter> deadLetters = new ConcurrentHashMap<>();
    final Map<String, Counter> leaseEnds = new ConcurrentHashMap<>();
    final Map<String, Counter> purged = new ConcurrentHashMap<>();
    final List<Meter> fixed = new ArrayList<>();
    final Counter enqueued;
    final Counter leased;
    final Timer firstAttemptAge;
    final Timer attemptAge;
    final Counter ttlExpired;
    final Counter staleLeases;
    final Counter redriven;
    final Counter duplicates;
    final Counter groupRateLimited;
    final Counter extended;
    final DistributionSummary attemptsPerAck;
    volatile long lastActive;

    Topic(String namespace, String topic) {
      tags = Tags.of("namespace", namespace, "topic", topic);
      for (String state : new String[] {"ready", "delayed", "leased", "parked", "overflow"}) {
        fixed.add(Gauge.builder("ordo.items", this, t -> t.sum(state))
            .description("Items of the topic by state, on the partitions this instance owns")
            .tags(tags).tag("state", state)
            .register(registry));
      }
      fixed.add(Gauge.builder("ordo.oldest.ready.age", this, Topic::oldestReadyAgeSeconds)
          .description("Age of the oldest ready item of the topic on the partitions this instance owns (0 when none)")
          .baseUnit("seconds")
          .tags(tags)
          .register(registry));
      enqueued = Counter.builder("ordo.enqueued").description("Items taken in").tags(tags).register(registry);
      leased = Counter.builder("ordo.leases").description("Leases (deliveries) of items").tags(tags).register(registry);
      firstAttemptAge = Timer.builder("ordo.first.attempt.age")
          .description("Age of items at their first lease: enqueue to first attempt (AgeOfFirstAttempt)")
          .tags(tags)
          .publishPercentileHistogram()
          .minimumExpectedValue(Duration.ofMillis(1))
          .maximumExpectedValue(Duration.ofHours(1))
          .register(registry);
      attemptAge = Timer.builder("ordo.attempt.age")
          .description("Age of items at every lease, retries included: enqueue to this attempt")
          .tags(tags)
          .publishPercentileHistogram()
          .minimumExpectedValue(Duration.ofMillis(1))
          .maximumExpectedValue(Duration.ofHours(1))
          .register(registry);
      ttlExpired = Counter.builder("ordo.ttl.expired").description("Items deleted by their time to live")
          .tags(tags).register(registry);
      staleLeases = Counter.builder("ordo.stale.leases")
          .description("Commands refused: the lease they named was not the item's").tags(tags).register(registry);
      redriven = Counter.builder("ordo.redriven").description("Items taken in from a dead-letter redrive")
          .tags(tags).register(registry);
      fixed.add(attemptAge);
      fixed.add(ttlExpired);
      fixed.add(staleLeases);
      fixed.add(redriven);
      duplicates = Counter.builder("ordo.items.duplicate")
          .description("Items refused as duplicates: their deduplication ID was taken in within the window")
          .tags(tags).register(registry);
      fixed.add(duplicates);
      groupRateLimited = Counter.builder("ordo.group.rate.limited")
          .description("Ready items passed over because their group had no token of its rate left (they wait)")
          .tags(tags).register(registry);
      fixed.add(groupRateLimited);
      extended = Counter.builder("ordo.extends").description("Leases extended").tags(tags).register(registry);
      attemptsPerAck = DistributionSummary.builder("ordo.attempts.per.ack")
          .description("Deliveries an item took until it was acked")
          .tags(tags)
          .serviceLevelObjectives(1, 2, 3, 5, 10, 20)
          .register(registry);
      fixed.add(extended);
      fixed.add(attemptsPerAck);
      fixed.add(enqueued);
      fixed.add(leased);
      fixed.add(firstAttemptAge);
      lastActive = clock.getAsLong();
    }

    double sum(String state) {
      long n = 0;
      for (PartitionCounts p : partitions.values()) {
        TopicCounts c = p.counts();
        n += switch (state) {
          case "ready" -> c.ready();
          case "delayed" -> c.delayed();
          case "leased" -> c.leased();
          case "parked" -> c.parked();
          default -> c.overflow();
        };
      }
      return n;
    }

    double oldestReadyAgeSeconds() {
      long oldest = Long.MAX_VALUE;
      for (PartitionCounts p : partitions.values()) {
        if (p.oldestReadyAt() != null) {
          oldest = Math.min(oldest, p.oldestReadyAt());
        }
      }
      return oldest == Long.MAX_VALUE ? 0 : Math.max(0, clock.getAsLong() - oldest) / 1000.0;
    }

    List<Meter> meters() {
      List<Meter> all = new ArrayList<>(fixed);
      all.addAll(deadLetters.values());
      all.addAll(leaseEnds.values());
      all.addAll(purged.values());
      return all;
    }
  }
}
