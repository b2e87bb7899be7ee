package dev.ordo.server.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.server.console.MetricSeries.Point;
import dev.ordo.server.console.MetricSeries.Sample;
import dev.ordo.server.console.MetricSeries.TopicKey;
import dev.ordo.server.console.MetricSeries.TopicSample;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.TopicMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The console's charts without a server: samples read from the queue's meters, rates derived, the ring. */
class MetricSeriesTest {
  private static final TopicKey EMAILS = new TopicKey("shop", "emails");
  private static final TopicKey SMS = new TopicKey("shop", "sms");
  private static final TopicKey CHARGES = new TopicKey("billing", "charges");

  @Test
  void aSampleHoldsWhatTheTopicMetersSay() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicLong now = new AtomicLong(100_000);
    TopicMeters meters = new TopicMeters(registry, 100, Duration.ofMinutes(5), new QueueMetrics(), now::get);
    meters.counts(0, "shop", "emails", new TopicCounts("shop", "emails", 3, 1, 2, 0, 0), 96_000L);
    meters.counts(1, "shop", "emails", new TopicCounts("shop", "emails", 1, 0, 0, 0, 4), 98_000L);
    meters.enqueued("shop", "emails");
    meters.enqueued("shop", "emails");
    meters.leased("shop", "emails", true, 10);
    meters.deadLettered("shop", "emails", DeadLetterReason.MAX_ATTEMPTS);
    meters.deadLettered("shop", "emails", DeadLetterReason.REJECTED);

    Sample s = MetricSeries.read(registry, now.get());

    assertEquals(100_000, s.atMs());
    assertEquals(new TopicSample(4, 1, 2, 0, 4, 4.0, 2, 1, 2), s.topics().get(EMAILS),
        "counts summed over partitions, the oldest of them 4 s old, dead letters of every reason");
  }

  @Test
  void ratesAreTheCountersIncreaseOverTheTimeBetweenSamples() {
    MetricSeries series = new MetricSeries(10);
    series.add(sample(0, Map.of(EMAILS, topic(5, 0, 100, 40, 0))));
    series.add(sample(10_000, Map.of(EMAILS, topic(7, 2_500, 150, 60, 1))));
    series.add(sample(20_000, Map.of(EMAILS, topic(2, 0, 150, 90, 1))));

    List<Point> points = series.points("shop", "emails");

    assertEquals(3, points.size());
    assertNull(points.get(0).enqueuePerSec(), "no rate before a second sample");
    assertEquals(new Point(10_000, 7, 0, 0, 0, 0, 2_500, 5.0, 2.0, 0.1), points.get(1));
    assertEquals(new Point(20_000, 2, 0, 0, 0, 0, 0, 0.0, 3.0, 0.0), points.get(2));
  }

  @Test
  void aTopicNewSinceTheLastSampleCountsFromZeroAndACounterMadeAgainCountsWhole() {
    MetricSeries series = new MetricSeries(10);
    series.add(sample(0, Map.of(EMAILS, topic(0, 0, 500, 0, 0))));
    // sms appeared: its meters were made after the first sample, so 20 enqueues happened since.
    // emails' label set was dropped while idle and made again: its 30 are all new.
    series.add(sample(10_000, Map.of(EMAILS, topic(0, 0, 30, 0, 0), SMS, topic(0, 0, 20, 0, 0))));

    assertEquals(3.0, series.points("shop", "emails").get(1).enqueuePerSec());
    assertEquals(2.0, series.points("shop", "sms").get(1).enqueuePerSec());
    assertEquals(5.0, series.points("shop", null).get(1).enqueuePerSec(), "a namespace sums its topics");
    assertEquals(List.of(new MetricSeries.Rate(EMAILS, 3.0, 0.0, 0.0), new MetricSeries.Rate(SMS, 2.0, 0.0, 0.0)),
        series.lastRates());
  }

  @Test
  void aNamespaceOrEveryTopicSumsCountsAndTakesTheOldestAge() {
    MetricSeries series = new MetricSeries(10);
    series.add(sample(0, Map.of(EMAILS, topic(1, 1_000, 0, 0, 0), SMS, topic(2, 7_000, 0, 0, 0),
        CHARGES, topic(4, 3_000, 0, 0, 0))));

    assertEquals(3, series.points("shop", null).get(0).ready());
    assertEquals(7_000, series.points("shop", null).get(0).oldestReadyAgeMs());
    assertEquals(7, series.points(null, null).get(0).ready());
    assertEquals(4, series.points("billing", null).get(0).ready());
    assertEquals(0, series.points("nobody", null).get(0).ready(), "a point for every sample, empty or not");
  }

  @Test
  void theRingKeepsTheNewestSamplesOldestFirst() {
    MetricSeries series = new MetricSeries(3);
    for (int i = 0; i < 7; i++) {
      series.add(sample(i * 1_000L, Map.of()));
    }
    assertEquals(List.of(4_000L, 5_000L, 6_000L), series.samples().stream().map(Sample::atMs).toList());
  }

  private static Sample sample(long at, Map<TopicKey, TopicSample> topics) {
    return new Sample(at, topics);
  }

  /** A topic's sample with {@code ready} items, its oldest ready {@code ageMs} old, and its counters. */
  private static TopicSample topic(long ready, long ageMs, double enqueued, double leases, double deadLetters) {
    return new TopicSample(ready, 0, 0, 0, 0, ageMs / 1000.0, enqueued, leases, deadLetters);
  }
}
