package dev.ordo.bench.internal;

import dev.ordo.client.ItemHandler;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeasedItem;
import dev.ordo.client.LeaseConsumerStats;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The workers of one measurement: {@code n} {@link LeaseConsumer}s in one group whose handler does
 * no work (it records and returns, so the item is acked). It counts what it handled and, while a
 * probe is armed, records each probed item's latency from its payload's stamp.
 */
public final class Workers implements AutoCloseable {
  /** What the handler does with an item's payload stamp. */
  public enum Probe { NONE, NANOS_SINCE_STAMP, MILLIS_SINCE_DUE }

  private final QueueMetrics metrics;
  private final List<LeaseConsumer> consumers = new ArrayList<>();
  private final AtomicLong handled = new AtomicLong();
  private final AtomicLong firstHandledNanos = new AtomicLong();
  private volatile Probe probe = Probe.NONE;
  private volatile long probeFromSequence = Long.MAX_VALUE;
  private volatile long[] samples = new long[0];
  private final AtomicInteger sampleCount = new AtomicInteger();

  public Workers(OrdoCluster cluster, String group, String namespace, int n, int maxInFlight, int workers) {
    this(cluster, group, namespace, n, maxInFlight, workers, null);
  }

  /**
   * Workers whose handler, after counting the item (and probing it when armed), runs {@code work}
   * on it: its ending decides the ack or nack, as {@link ItemHandler} says. Null: no work.
   */
  public Workers(OrdoCluster cluster, String group, String namespace, int n, int maxInFlight, int workers,
      ItemHandler work) {
    this.metrics = cluster.service().metrics();
    ItemHandler handler = work == null ? this::handle : item -> {
      handle(item);
      work.handle(item);
    };
    try {
      for (int i = 0; i < n; i++) {
        LeaseConsumer c = new LeaseConsumer(cluster.consumerConfig(group, namespace, maxInFlight, workers));
        consumers.add(c);
        c.start(handler);
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private void handle(LeasedItem item) {
    if (handled.getAndIncrement() == 0) {
      firstHandledNanos.compareAndSet(0, System.nanoTime());
    }
    Probe p = probe;
    if (p == Probe.NONE) {
      return;
    }
    byte[] payload = item.payload();
    if (Payloads.sequence(payload) < probeFromSequence) {
      return;
    }
    long value = p == Probe.NANOS_SINCE_STAMP
        ? System.nanoTime() - Payloads.stamp(payload)
        : System.currentTimeMillis() - Payloads.stamp(payload);
    int i = sampleCount.getAndIncrement();
    long[] s = samples;
    if (i < s.length) {
      s[i] = value;
    }
  }

  /** Waits until the group's members own every one of {@code partitions} partitions. */
  public void awaitAssignment(int partitions, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Set<Integer> owned = new HashSet<>();
      consumers.forEach(c -> owned.addAll(c.assignment()));
      if (owned.size() >= partitions) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("lease consumers own partitions " + owned + " of " + partitions + " after "
            + timeout.toSeconds() + " s");
      }
      BenchKafka.sleep(10);
    }
  }

  /**
   * Waits until the group has settled: its members own every one of {@code partitions} partitions,
   * none owned twice, and each member owns one at least (when there are enough). Until then a
   * member that joined late takes partitions over from another, and both may have demands open on
   * a partition for a moment.
   */
  public void awaitSettled(int partitions, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Set<Integer> owned = new HashSet<>();
      int sum = 0;
      boolean everyoneOwns = true;
      for (LeaseConsumer c : consumers) {
        Set<Integer> a = c.assignment();
        owned.addAll(a);
        sum += a.size();
        everyoneOwns &= !a.isEmpty() || consumers.size() > partitions;
      }
      if (owned.size() >= partitions && sum == owned.size() && everyoneOwns) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("lease consumers own " + consumers.stream().map(LeaseConsumer::assignment)
            .toList() + " of " + partitions + " partitions after " + timeout.toSeconds() + " s");
      }
      BenchKafka.sleep(10);
    }
  }

  /** Records the latencies of items with a sequence number of at least {@code fromSequence}, up to {@code capacity}. */
  public void arm(Probe kind, long fromSequence, int capacity) {
    samples = new long[capacity];
    sampleCount.set(0);
    probeFromSequence = fromSequence;
    probe = kind;
  }

  /** The samples recorded since {@link #arm}. */
  public long[] samples() {
    return samples;
  }

  public int sampleCount() {
    return Math.min(sampleCount.get(), samples.length);
  }

  public long handled() {
    return handled.get();
  }

  /** {@link System#nanoTime()} when the handler first ran, 0 before. */
  public long firstHandledNanos() {
    return firstHandledNanos.get();
  }

  /**
   * Items whose ack the queue applied (its own count: a consumer counts an ack only when the
   * outcome reaches it in time, and one answered late would never be counted).
   */
  public long acked() {
    return metrics.get(QueueMetrics.ACKED);
  }

  /** Each consumer's window now ({@link LeaseConsumer#window}). */
  public List<Integer> windows() {
    return consumers.stream().map(LeaseConsumer::window).toList();
  }

  public List<LeaseConsumerStats> stats() {
    return consumers.stream().map(LeaseConsumer::stats).toList();
  }

  /** Waits until {@code n} acks were applied; returns false at the deadline. */
  public boolean awaitAcked(long n, long deadlineNanos) {
    while (acked() < n) {
      if (System.nanoTime() > deadlineNanos) {
        return false;
      }
      BenchKafka.sleep(1);
    }
    return true;
  }

  @Override
  public void close() {
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (LeaseConsumer c : consumers) {
      closing.add(CompletableFuture.runAsync(() -> c.close(Duration.ofSeconds(2))));
    }
    closing.forEach(f -> {
      try {
        f.join();
      } catch (RuntimeException e) {
        // closing is best effort: the cluster is deleted next
      }
    });
  }
}
