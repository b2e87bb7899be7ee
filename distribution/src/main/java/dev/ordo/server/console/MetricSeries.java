package dev.ordo.server.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Comparator;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The console's charts: samples of this instance's per-topic meters ({@code dev.ordo.topology.TopicMeters}:
 * {@code ordo.items{state}}, {@code ordo.oldest.ready.age}, {@code ordo.enqueued}, {@code ordo.leases},
 * {@code ordo.dead.letters}) kept in a ring of fixed capacity, oldest dropped first.
 *
 * <p>A sample holds what the meters said ({@link #read}); rates are derived when asked for
 * ({@link #points}), from the counters' increase between consecutive samples divided by the time
 * between them. A counter that went down (its topic's label set was dropped while idle and made
 * again) counts its whole new value as the increase; a topic missing from the earlier sample counts
 * from zero, as its meters started at zero after that sample. Time is passed in, never read here.
 * Thread-safe: the sampler adds while HTTP threads read.
 */
public final class MetricSeries {
  /** A topic of a namespace. */
  public record TopicKey(String namespace, String topic) {}

  /** One topic's meters at one sample. Counters are cumulative since their meter was made. */
  public record TopicSample(long ready, long delayed, long leased, long parked, long overflow,
      double oldestReadyAgeSeconds, double enqueued, double leases, double deadLetters) {}

  /** All topics' meters at {@code atMs}. */
  public record Sample(long atMs, Map<TopicKey, TopicSample> topics) {
    public Sample {
      topics = Map.copyOf(topics);
    }
  }

  /**
   * A chart point: the counts summed over the selected topics, the oldest ready age among them, and
   * the rates since the previous sample (null at the first sample, which has none before it).
   */
  public record Point(long atMs, long ready, long delayed, long leased, long parked, long overflow,
      long oldestReadyAgeMs, Double enqueuePerSec, Double leasePerSec, Double deadLetterPerSec) {}

  /** A topic's rates over the last interval sampled. */
  public record Rate(TopicKey topic, double enqueuePerSec, double leasePerSec, double deadLetterPerSec) {}

  private final Sample[] ring;
  private int next;
  private int size;

  public MetricSeries(int capacity) {
    if (capacity < 2) {
      throw new IllegalArgumentException("a series needs at least 2 samples to show a rate, got " + capacity);
    }
    this.ring = new Sample[capacity];
  }

  public int capacity() {
    return ring.length;
  }

  public synchronized void add(Sample sample) {
    ring[next] = sample;
    next = (next + 1) % ring.length;
    size = Math.min(size + 1, ring.length);
  }

  /** The samples held, oldest first. */
  public synchronized List<Sample> samples() {
    List<Sample> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      out.add(ring[(next - size + i + ring.length) % ring.length]);
    }
    return out;
  }

  /**
   * The chart of the topics selected: {@code namespace} null for all namespaces, {@code topic} null
   * for all topics of the namespace(s). One point per sample, oldest first.
   */
  public List<Point> points(String namespace, String topic) {
    return points(k -> (namespace == null || namespace.equals(k.namespace()))
        && (topic == null || topic.equals(k.topic())));
  }

  /** The chart of the topics {@code selected} accepts, summed. One point per sample, oldest first. */
  public List<Point> points(Predicate<TopicKey> selected) {
    List<Sample> samples = samples();
    List<Point> out = new ArrayList<>(samples.size());
    Sample prev = null;
    for (Sample s : samples) {
      long ready = 0, delayed = 0, leased = 0, parked = 0, overflow = 0;
      double oldest = 0, enq = 0, lease = 0, dead = 0;
      for (Map.Entry<TopicKey, TopicSample> e : s.topics().entrySet()) {
        TopicKey k = e.getKey();
        if (!selected.test(k)) {
          continue;
        }
        TopicSample t = e.getValue();
        ready += t.ready();
        delayed += t.delayed();
        leased += t.leased();
        parked += t.parked();
        overflow += t.overflow();
        oldest = Math.max(oldest, t.oldestReadyAgeSeconds());
        if (prev != null) {
          TopicSample before = prev.topics().get(k);
          enq += increase(before == null ? 0 : before.enqueued(), t.enqueued());
          lease += increase(before == null ? 0 : before.leases(), t.leases());
          dead += increase(before == null ? 0 : before.deadLetters(), t.deadLetters());
        }
      }
      Double seconds = prev == null || s.atMs() <= prev.atMs() ? null : (s.atMs() - prev.atMs()) / 1000.0;
      out.add(new Point(s.atMs(), ready, delayed, leased, parked, overflow, Math.round(oldest * 1000),
          seconds == null ? null : enq / seconds, seconds == null ? null : lease / seconds,
          seconds == null ? null : dead / seconds));
      prev = s;
    }
    return out;
  }

  /** Every topic of the last sample with its rates since the one before; empty before two samples. */
  public List<Rate> lastRates() {
    List<Sample> samples = samples();
    if (samples.size() < 2) {
      return List.of();
    }
    Sample prev = samples.get(samples.size() - 2);
    Sample last = samples.get(samples.size() - 1);
    double seconds = Math.max(1, last.atMs() - prev.atMs()) / 1000.0;
    List<Rate> out = new ArrayList<>();
    List<TopicKey> keys = new ArrayList<>(last.topics().keySet());
    keys.sort(Comparator.comparing(TopicKey::namespace).thenComparing(TopicKey::topic));
    for (TopicKey k : keys) {
      TopicSample t = last.topics().get(k);
      TopicSample before = prev.topics().get(k);
      out.add(new Rate(k, increase(before == null ? 0 : before.enqueued(), t.enqueued()) / seconds,
          increase(before == null ? 0 : before.leases(), t.leases()) / seconds,
          increase(before == null ? 0 : before.deadLetters(), t.deadLetters()) / seconds));
    }
    return out;
  }

  /** A counter's increase; one that went down was made again, and counted its whole value since. */
  static double increase(double before, double after) {
    return after >= before ? after - before : after;
  }

  /** What the per-topic meters of {@code registry} say now, as a sample at {@code nowMs}. */
  public static Sample read(MeterRegistry registry, long nowMs) {
    Map<TopicKey, double[]> values = new HashMap<>();
    for (Gauge g : registry.find("ordo.items").gauges()) {
      int slot = switch (String.valueOf(g.getId().getTag("state"))) {
        case "ready" -> 0;
        case "delayed" -> 1;
        case "leased" -> 2;
        case "parked" -> 3;
        case "overflow" -> 4;
        default -> -1;
      };
      if (slot >= 0) {
        slots(values, g).ifPresent(v -> v[slot] = g.value());
      }
    }
    for (Gauge g : registry.find("ordo.oldest.ready.age").gauges()) {
      slots(values, g).ifPresent(v -> v[5] = g.value());
    }
    for (Counter c : registry.find("ordo.enqueued").counters()) {
      slots(values, c).ifPresent(v -> v[6] += c.count());
    }
    for (Counter c : registry.find("ordo.leases").counters()) {
      slots(values, c).ifPresent(v -> v[7] += c.count());
    }
    for (Counter c : registry.find("ordo.dead.letters").counters()) {
      slots(values, c).ifPresent(v -> v[8] += c.count());
    }
    Map<TopicKey, TopicSample> topics = new HashMap<>();
    values.forEach((k, v) -> topics.put(k, new TopicSample(safe(v[0]), safe(v[1]), safe(v[2]), safe(v[3]),
        safe(v[4]), Double.isFinite(v[5]) ? v[5] : 0, v[6], v[7], v[8])));
    return new Sample(nowMs, topics);
  }

  private static Optional<double[]> slots(Map<TopicKey, double[]> values, Meter m) {
    String ns = m.getId().getTag("namespace");
    String topic = m.getId().getTag("topic");
    if (ns == null || topic == null) {
      return Optional.empty();
    }
    return Optional.of(values.computeIfAbsent(new TopicKey(ns, topic), k -> new double[9]));
  }

  private static long safe(double v) {
    return Double.isFinite(v) ? Math.round(v) : 0;
  }
}
