package dev.ordo.topology;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.store.TopicCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
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
 * One (namespace, topic)'s meters of a {@link TopicMeters}: registered once when the topic is first
 * seen, removed together ({@link #meters}) when it has been idle long enough. The state gauges sum the
 * counts each partition here last published. Called from stream threads: its maps are concurrent.
 */
final class TopicMeterSet {
  private record PartitionCounts(TopicCounts counts, Long oldestReadyAt) {}

  private final MeterRegistry registry;
  private final LongSupplier clock;
  private final Tags tags;
  private final Map<Integer, PartitionCounts> partitions = new ConcurrentHashMap<>();
  private final Map<DeadLetterReason, Counter> deadLetters = new ConcurrentHashMap<>();
  private final Map<String, Counter> leaseEnds = new ConcurrentHashMap<>();
  private final Map<String, Counter> purged = new ConcurrentHashMap<>();
  private final List<Meter> fixed = new ArrayList<>();
  final Counter enqueued;
  final Counter leases;
  final Timer firstAttemptAge;
  final Timer attemptAge;
  final Counter ttlExpired;
  final Counter staleLeases;
  final Counter redriven;
  final Counter duplicates;
  final Counter groupRateLimited;
  final Counter extended;
  final DistributionSummary attemptsPerAck;
  private volatile long lastActive;

  TopicMeterSet(MeterRegistry registry, LongSupplier clock, String namespace, String topic) {
    this.registry = registry;
    this.clock = clock;
    tags = Tags.of("namespace", namespace, "topic", topic);
    for (String state : new String[] {"ready", "delayed", "leased", "parked", "overflow"}) {
      fixed.add(Gauge.builder("ordo.items", this, t -> t.sum(state))
          .description("Items of the topic by state, on the partitions this instance owns")
          .tags(tags).tag("state", state)
          .register(registry));
    }
    fixed.add(Gauge.builder("ordo.oldest.ready.age", this, TopicMeterSet::oldestReadyAgeSeconds)
        .description("Age of the oldest ready item of the topic on the partitions this instance owns (0 when none)")
        .baseUnit("seconds")
        .tags(tags)
        .register(registry));
    enqueued = Counter.builder("ordo.enqueued").description("Items taken in").tags(tags).register(registry);
    leases = Counter.builder("ordo.leases").description("Leases (deliveries) of items").tags(tags).register(registry);
    firstAttemptAge = ageTimer("ordo.first.attempt.age",
        "Age of items at their first lease: enqueue to first attempt (AgeOfFirstAttempt)");
    attemptAge = ageTimer("ordo.attempt.age", "Age of items at every lease, retries included: enqueue to this attempt");
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
    fixed.add(leases);
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

  /** An age histogram of the topic, 1 ms to 1 h. */
  private Timer ageTimer(String name, String description) {
    return Timer.builder(name)
        .description(description)
        .tags(tags)
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofHours(1))
        .register(registry);
  }

  /** Something happened to the topic at {@code now} (wall ms): it stays while it is active. */
  void touch(long now) {
    lastActive = now;
  }

  /** Whether the partitions here hold nothing of the topic and nothing happened to it for {@code idleMs}. */
  boolean idleSince(long now, long idleMs) {
    return partitions.isEmpty() && now - lastActive >= idleMs;
  }

  void leased(boolean firstAttempt, long sinceEnqueueMs) {
    leases.increment();
    long age = Math.max(0, sinceEnqueueMs);
    attemptAge.record(age, TimeUnit.MILLISECONDS);
    if (firstAttempt) {
      firstAttemptAge.record(age, TimeUnit.MILLISECONDS);
    }
  }

  /** A lease ended without an ack: {@code how} is NACK, LEASE_EXPIRED, RELEASED or OTHER. */
  void leaseEnded(String how) {
    leaseEnds.computeIfAbsent(how, o -> Counter.builder("ordo.lease.ends")
        .description("Leases that ended without an ack, by how: NACK, LEASE_EXPIRED, RELEASED")
        .tags(tags).tag("outcome", o)
        .register(registry)).increment();
  }

  void purged(String state) {
    purged.computeIfAbsent(state, s -> Counter.builder("ordo.items.purged")
        .description("Items deleted by a purge job, by the state they were in")
        .tags(tags).tag("state", s)
        .register(registry)).increment();
  }

  void deadLettered(DeadLetterReason reason) {
    deadLetters.computeIfAbsent(reason, r -> Counter.builder("ordo.dead.letters")
        .description("Items dead-lettered, by reason")
        .tags(tags).tag("reason", r.name())
        .register(registry)).increment();
  }

  /** A partition's counts of the topic; a partition that holds none of it leaves the sums. */
  void counts(int partition, TopicCounts counts, Long oldestReadyAt) {
    if (counts.total() == 0) {
      partitions.remove(partition);
    } else {
      partitions.put(partition, new PartitionCounts(counts, oldestReadyAt));
    }
  }

  /** The partition is no longer here. */
  void forget(int partition) {
    partitions.remove(partition);
  }
}
