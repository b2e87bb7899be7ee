package dev.ordo.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.store.TopicCounts;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TopicMetersTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final QueueMetrics counters = new QueueMetrics();
  private final TopicMeters meters = new TopicMeters(registry, 3, Duration.ofSeconds(60), counters, clock::get);

  private double gauge(String name, String ns, String topic, String... more) {
    var search = registry.find(name).tags("namespace", ns, "topic", topic);
    if (more.length > 0) {
      search = search.tags(more);
    }
    Gauge g = search.gauge();
    assertNotNull(g, name + " of " + ns + "/" + topic);
    return g.value();
  }

  private static TopicCounts counts(long ready, long delayed, long leased) {
    return new TopicCounts("ns", "t", ready, delayed, leased, 0, 0);
  }

  @Test
  void itemsByStateAreSummedOverTheOwnedPartitionsAndTheOldestAgeGrowsWithTime() {
    meters.counts(0, "ns", "t", counts(2, 1, 0), clock.get() - 5_000);
    meters.counts(3, "ns", "t", counts(1, 0, 4), clock.get() - 2_000);
    assertEquals(3, gauge("ordo.items", "ns", "t", "state", "ready"));
    assertEquals(1, gauge("ordo.items", "ns", "t", "state", "delayed"));
    assertEquals(4, gauge("ordo.items", "ns", "t", "state", "leased"));
    assertEquals(5.0, gauge("ordo.oldest.ready.age", "ns", "t"));
    clock.addAndGet(10_000);
    assertEquals(15.0, gauge("ordo.oldest.ready.age", "ns", "t"), "read at scrape time: nothing changed, it aged");
    meters.forgetPartition(0);
    assertEquals(1, gauge("ordo.items", "ns", "t", "state", "ready"), "a partition that left takes its counts");
    assertEquals(12.0, gauge("ordo.oldest.ready.age", "ns", "t"));
    meters.counts(3, "ns", "t", counts(0, 0, 0), null);
    assertEquals(0, gauge("ordo.items", "ns", "t", "state", "ready"));
    assertEquals(0.0, gauge("ordo.oldest.ready.age", "ns", "t"), "nothing ready: 0");
  }

  @Test
  void theFirstAttemptsAgeIsRecordedOnlyOnTheFirstLeaseTheAgeOnEvery() {
    meters.enqueued("ns", "t");
    meters.leased("ns", "t", true, 250);
    meters.leased("ns", "t", false, 9_000);
    assertEquals(1, registry.find("ordo.enqueued").tags("namespace", "ns", "topic", "t").counter().count());
    assertEquals(2, registry.find("ordo.leases").tags("namespace", "ns", "topic", "t").counter().count());
    var first = registry.find("ordo.first.attempt.age").tags("namespace", "ns", "topic", "t").timer();
    assertEquals(1, first.count());
    assertEquals(250, first.totalTime(TimeUnit.MILLISECONDS), 0.001);
    var age = registry.find("ordo.attempt.age").tags("namespace", "ns", "topic", "t").timer();
    assertEquals(2, age.count());
    assertEquals(9_250, age.totalTime(TimeUnit.MILLISECONDS), 0.001);
  }

  @Test
  void ttlExpiriesStaleLeasesRedrivesAndRebuildsAreCounted() {
    meters.ttlExpired("ns", "t");
    meters.staleLease("ns", "t");
    meters.staleLease("ns", "t");
    meters.redriven("ns", "t");
    assertEquals(1, registry.find("ordo.ttl.expired").tags("topic", "t").counter().count());
    assertEquals(2, registry.find("ordo.stale.leases").tags("topic", "t").counter().count());
    assertEquals(1, registry.find("ordo.redriven").tags("topic", "t").counter().count());
    meters.rebuilding(0, true);
    meters.rebuilding(1, true);
    meters.rebuilding(0, false);
    assertEquals(1, registry.find("ordo.index.rebuilding.partitions").gauge().value());
  }

  @Test
  void leaseEndsExtendsAndAttemptsPerAckAreCountedPerTopic() {
    meters.leaseEnded("ns", "t", "NACK");
    meters.leaseEnded("ns", "t", "NACK");
    meters.leaseEnded("ns", "t", "LEASE_EXPIRED");
    meters.leaseEnded("ns", "t", "whatever");
    meters.extended("ns", "t");
    meters.acked("ns", "t", 1);
    meters.acked("ns", "t", 3);
    assertEquals(2, registry.find("ordo.lease.ends").tags("topic", "t", "outcome", "NACK").counter().count());
    assertEquals(1, registry.find("ordo.lease.ends").tags("outcome", "LEASE_EXPIRED").counter().count());
    assertEquals(1, registry.find("ordo.lease.ends").tags("outcome", "OTHER").counter().count(), "unknown text is OTHER");
    assertEquals(1, registry.find("ordo.extends").tags("topic", "t").counter().count());
    var perAck = registry.find("ordo.attempts.per.ack").tags("topic", "t").summary();
    assertEquals(2, perAck.count());
    assertEquals(4, perAck.totalAmount(), 0.001);
  }

  @Test
  void deadLettersAreCountedByReason() {
    meters.deadLettered("ns", "t", DeadLetterReason.MAX_ATTEMPTS);
    meters.deadLettered("ns", "t", DeadLetterReason.MAX_ATTEMPTS);
    meters.deadLettered("ns", "t", DeadLetterReason.REJECTED);
    assertEquals(2, registry.find("ordo.dead.letters").tags("namespace", "ns", "topic", "t", "reason", "MAX_ATTEMPTS")
        .counter().count());
    assertEquals(1, registry.find("ordo.dead.letters").tags("reason", "REJECTED").counter().count());
  }

  @Test
  void topicsPastTheCapAreFoldedIntoOtherAndCounted() {
    for (int i = 0; i < 5; i++) {
      meters.enqueued("ns", "t" + i);
    }
    assertEquals(4, meters.topicCount(), "three topics (the cap) and _other");
    assertNotNull(registry.find("ordo.enqueued").tags("topic", "t2").counter());
    assertNull(registry.find("ordo.enqueued").tags("topic", "t3").counter(), "no label set of its own");
    assertEquals(2, registry.find("ordo.enqueued").tags("namespace", TopicMeters.OTHER, "topic", TopicMeters.OTHER)
        .counter().count(), "t3 and t4 under _other");
    assertEquals(2, registry.find("ordo.metrics.topics.folded").counter().count());
  }

  @Test
  void anIdleTopicWithNothingHereLosesItsLabelSet() {
    meters.counts(1, "ns", "t", counts(1, 0, 0), clock.get());
    meters.enqueued("ns", "gone");
    clock.addAndGet(61_000);
    meters.sweep();
    assertNull(registry.find("ordo.enqueued").tags("topic", "gone").counter(), "idle past 60 s, nothing here");
    assertNotNull(registry.find("ordo.items").tags("topic", "t").gauge(), "still holds an item: kept");
    assertEquals(1, meters.topicCount());
  }

  @Test
  void theQueueCountersAreExportedByEvent() {
    counters.add(QueueMetrics.ACKED, 7);
    assertEquals(7, registry.find("ordo.queue.events").tags("event", "acked").functionCounter().count());
  }

  @Test
  void noneRecordsNothing() {
    TopicMeters.NONE.enqueued("ns", "t");
    TopicMeters.NONE.leased("ns", "t", true, 1);
    TopicMeters.NONE.counts(0, "ns", "t", counts(1, 0, 0), 0L);
    assertEquals(false, TopicMeters.NONE.enabled());
  }
}
