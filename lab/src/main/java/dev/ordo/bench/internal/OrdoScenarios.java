package dev.ordo.bench.internal;

import dev.ordo.api.Durations;
import dev.ordo.client.NamespacePolicy;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The scenarios that run Ordo: each makes its own cluster ({@link OrdoCluster}), runs, and deletes it.
 * The handlers do no work: what is measured is the queue and its clients.
 */
public final class OrdoScenarios {
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);
  private static final int WARM_UP_ITEMS = 2_000;
  private static final Duration SETTLE = Duration.ofSeconds(3);
  /** A run whose backlog and items are fewer than this leaves the store nothing to settle (the smoke tests' sizes). */
  static final long SETTLE_FROM_ITEMS = 50_000;
  /** The namespace of the end-to-end scenario's items. */
  static final String E2E_NAMESPACE = "bench";

  private OrdoScenarios() {}

  /**
   * Throughput (items/s), the fixed load offered (items/s) and the latency at it (ms); and the CPU
   * time per item of the throughput phase (µs), of this whole process (queue, clients, bench) and of
   * the queue's stream threads alone: figures that a loaded machine disturbs less than rates.
   */
  public record EndToEnd(double itemsPerSec, double offeredPerSec, Stats.Latency latency, double cpuUsPerItem,
      double streamThreadUsPerItem, double recordsPerItem, Map<String, Double> cpuUsPerItemByPart,
      Map<String, Double> brokerRequestsPerItem, Map<String, Double> brokerHandlerUsPerItem,
      Map<String, Double> clientRequestsPerItem) {}

  /** Dequeue throughput (items/s) with an empty queue and with a standing backlog. */
  public record Backlog(double emptyPerSec, double backlogPerSec) {}

  /**
   * Scenario 2. With {@code consumers} lease consumers running: (a) throughput: enqueue {@code items}
   * items as fast as one producer thread can while the consumers ack them; items/s from the first
   * enqueue to the last applied ack. (b) latency: enqueue at half that rate for {@code latencySeconds};
   * enqueue-to-handler time of every item. Preceded by a warm-up of 2,000 items.
   */
  public static EndToEnd endToEnd(BenchKafka kafka, String cluster, String guarantee, Sizes s) {
    return endToEnd(kafka, cluster, guarantee, s, Map.of());
  }

  /**
   * {@link #endToEnd(BenchKafka, String, String, Sizes)} with {@code policies} (namespace to policy)
   * applied before anything is enqueued: the cost scenario runs it with {@link #unboundPolicies()}.
   */
  public static EndToEnd endToEnd(BenchKafka kafka, String cluster, String guarantee, Sizes s,
      Map<String, NamespacePolicy> policies) {
    return endToEnd(kafka, cluster, guarantee, s, policies, 0);
  }

  /**
   * {@link #endToEnd(BenchKafka, String, String, Sizes, Map)} with a group key on every item,
   * {@code groupKeys} distinct ones in turn (0: none): the fairness scenario's cost of group keys.
   */
  public static EndToEnd endToEnd(BenchKafka kafka, String cluster, String guarantee, Sizes s,
      Map<String, NamespacePolicy> policies, int groupKeys) {
    try (OrdoCluster c = new OrdoCluster(kafka, cluster, s.partitions(), guarantee, "", s.keepTopics())) {
      c.applyPolicies(policies);
      return endToEnd(kafka, c, s, groupKeys);
    }
  }

  /**
   * A policy on every namespace the end-to-end scenario uses whose limits never bind: admission
   * and dispatch at 10^9 items a second, a backlog of 10^12, sidelining after an hour. What it
   * measures is the cost of having a policy (the queue's rate and backlog bookkeeping, the
   * producer's backlog check), not of a limit.
   */
  public static Map<String, NamespacePolicy> unboundPolicies() {
    return Map.of(E2E_NAMESPACE, UNBOUND_POLICY);
  }

  /** The policy of {@link #unboundPolicies()}. */
  public static final NamespacePolicy UNBOUND_POLICY = new NamespacePolicy(null,
      new NamespacePolicy.Rate(1e9, 1_000_000_000L), 1_000_000_000_000L, new NamespacePolicy.Rate(1e9, 1_000_000_000L),
      Duration.ofHours(1));

  /**
   * Issue 48's tenant features on every namespace the end-to-end scenario uses: each group key on two
   * of the topic's partitions ({@code shards: 2}, the producer sending to the one with the smaller
   * backlog) and a group rate of 10^9 items a second, which never binds. What it measures is the cost
   * of the features (shard choice, a token bucket per active group on the dispatch path), not of a limit.
   */
  public static Map<String, NamespacePolicy> tenantPolicies() {
    return Map.of(E2E_NAMESPACE, TENANT_POLICY);
  }

  /** The policy of {@link #tenantPolicies()}. */
  public static final NamespacePolicy TENANT_POLICY = new NamespacePolicy(null).withShards(2)
      .withGroupRate(new NamespacePolicy.Rate(1e9, 1_000_000_000L), Map.of());

  private static EndToEnd endToEnd(BenchKafka kafka, OrdoCluster c, Sizes s, int groupKeys) {
    String cluster = c.topics().cluster();
    try (Enqueuer enqueuer = new Enqueuer(c, s.payloadBytes(), groupKeys);
         Workers workers = new Workers(c, "bench-workers", E2E_NAMESPACE, s.consumers(), s.maxInFlight(),
             s.workers())) {
      workers.awaitAssignment(s.partitions(), JOIN_TIMEOUT);
      Thread tracer = trace(c, workers);
      long target = 0;
      // No more than the run measures: a smoke test's run of a few hundred items waited for 2,000 first.
      int warmUp = Math.min(WARM_UP_ITEMS, s.items());
      for (int i = 0; i < warmUp; i++) {
        enqueuer.enqueue(E2E_NAMESPACE);
      }
      target += warmUp;
      await(workers, target, Duration.ofSeconds(120), "warm-up");

      CpuClock cpu = new CpuClock();
      ThreadKinds kinds = new ThreadKinds();
      BrokerRequests requests = new BrokerRequests();
      ClientRequests clientRequests = new ClientRequests();
      long records0 = kafka.endOffsetsSum(cluster);
      long start = System.nanoTime();
      for (int i = 0; i < s.items(); i++) {
        enqueuer.enqueue(E2E_NAMESPACE);
      }
      target += s.items();
      await(workers, target, timeoutFor(s.items()), "throughput");
      double itemsPerSec = s.items() / ((System.nanoTime() - start) / 1e9);
      double cpuUs = cpu.processNanos() / 1e3 / s.items();
      double streamUs = cpu.streamThreadNanos() / 1e3 / s.items();
      Map<String, Double> byPart = kinds.partsPerItem(s.items());
      Map<String, Double> requestsPerItem = requests.perItem(s.items());
      Map<String, Double> handlerUsPerItem = requests.handlerMicrosPerItem(s.items());
      Map<String, Double> clientRequestsPerItem = clientRequests.perItem(s.items());
      double recordsPerItem = (kafka.endOffsetsSum(cluster) - records0) / (double) s.items();
      enqueuer.check();

      double rate = itemsPerSec / 2;
      long count = Math.max(10, (long) (rate * s.latencySeconds()));
      workers.arm(Workers.Probe.NANOS_SINCE_STAMP, enqueuer.nextSequence(), (int) Math.min(count, 50_000_000));
      double offered = enqueuer.paced(E2E_NAMESPACE, count, rate);
      target += count;
      await(workers, target, timeoutFor(count), "latency");
      enqueuer.check();
      tracer.interrupt();
      return new EndToEnd(itemsPerSec, offered, Stats.latency(workers.samples(), workers.sampleCount(), 1e6), cpuUs,
          streamUs, recordsPerItem, byPart, requestsPerItem,
          handlerUsPerItem, clientRequestsPerItem);
    }
  }

  /**
   * Group keys against none in one cluster, in slices that alternate (issue 14's throughput with a
   * group key on every item over without): each slice enqueues {@code sliceItems} items as fast as one
   * producer thread can while the consumers ack them, with no group key or with {@code groupKeys}
   * distinct ones in turn, and its throughput runs from its first enqueue to its last applied ack. The
   * slices go in pairs, in the order keys, none, none, keys, keys, none... so that a machine that speeds
   * up or slows down through the run weighs on both sides alike; each pair's ratio compares two
   * adjacent slices. Separate runs (as {@link #endToEnd(BenchKafka, String, String, Sizes, Map, int)})
   * are tens of seconds apart and on other clusters, and this machine's speed moves by half between them.
   *
   * @param keyedPerSec the slices with group keys, items/s, in order
   * @param unkeyedPerSec the slices without, items/s, in order
   * @param pairRatios each pair's keyed over unkeyed throughput
   * @param keyedStreamUs the stream threads' CPU per item of each keyed slice (µs)
   * @param unkeyedStreamUs the same of each unkeyed slice
   */
  public record KeySlices(List<Double> keyedPerSec, List<Double> unkeyedPerSec, List<Double> pairRatios,
      List<Double> keyedStreamUs, List<Double> unkeyedStreamUs) {}

  /** Runs {@link KeySlices}: {@code pairs} pairs of slices of {@code sliceItems} items, at-least-once. */
  public static KeySlices keySlices(BenchKafka kafka, String cluster, Sizes s, int groupKeys, int pairs,
      int sliceItems) {
    try (OrdoCluster c = new OrdoCluster(kafka, cluster, s.partitions(), "at_least_once", "", s.keepTopics());
         Enqueuer none = new Enqueuer(c, s.payloadBytes(), 0);
         Enqueuer keyed = new Enqueuer(c, s.payloadBytes(), groupKeys);
         Workers workers = new Workers(c, "bench-workers", E2E_NAMESPACE, s.consumers(), s.maxInFlight(),
             s.workers())) {
      workers.awaitAssignment(s.partitions(), JOIN_TIMEOUT);
      long target = 0;
      for (Enqueuer e : new Enqueuer[] {keyed, none}) {
        int warmUp = Math.min(WARM_UP_ITEMS, sliceItems);
        for (int i = 0; i < warmUp; i++) {
          e.enqueue(E2E_NAMESPACE);
        }
        target += warmUp;
        await(workers, target, Duration.ofSeconds(120), "warm-up");
      }
      List<Double> keyedRates = new ArrayList<>();
      List<Double> noneRates = new ArrayList<>();
      List<Double> keyedUs = new ArrayList<>();
      List<Double> noneUs = new ArrayList<>();
      List<Double> ratios = new ArrayList<>();
      boolean trace = Boolean.getBoolean("ordo.bench.trace");
      Map<String, Long> keyedKinds = new HashMap<>();
      Map<String, Long> noneKinds = new HashMap<>();
      for (int p = 0; p < pairs; p++) {
        for (boolean withKeys : p % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
          Enqueuer e = withKeys ? keyed : none;
          CpuClock cpu = new CpuClock();
          ThreadKinds kinds = trace ? new ThreadKinds() : null;
          long start = System.nanoTime();
          for (int i = 0; i < sliceItems; i++) {
            e.enqueue(E2E_NAMESPACE);
          }
          target += sliceItems;
          await(workers, target, timeoutFor(sliceItems), withKeys ? "slice with group keys" : "slice without");
          double rate = sliceItems / ((System.nanoTime() - start) / 1e9);
          double streamUs = cpu.streamThreadNanos() / 1e3 / sliceItems;
          if (kinds != null) {
            kinds.since().forEach((k, v) -> (withKeys ? keyedKinds : noneKinds).merge(k, v, Long::sum));
          }
          (withKeys ? keyedRates : noneRates).add(rate);
          (withKeys ? keyedUs : noneUs).add(streamUs);
        }
        ratios.add(keyedRates.get(p) / noneRates.get(p));
      }
      keyed.check();
      none.check();
      if (trace) {
        printKinds(keyedKinds, noneKinds, (long) pairs * sliceItems);
      }
      return new KeySlices(List.copyOf(keyedRates), List.copyOf(noneRates), List.copyOf(ratios), List.copyOf(keyedUs),
          List.copyOf(noneUs));
    }
  }

  /** With the trace on: CPU per item by kind of thread, with keys and without, the largest differences first. */
  private static void printKinds(Map<String, Long> keyed, Map<String, Long> none, long items) {
    Set<String> kinds = new HashSet<>(keyed.keySet());
    kinds.addAll(none.keySet());
    StringBuilder sb = new StringBuilder("  CPU per item by kind of thread, keys / none (µs), the slices of this round:\n");
    kinds.stream()
        .sorted(Comparator.comparingLong((String k) -> -Math.abs(keyed.getOrDefault(k, 0L) - none.getOrDefault(k, 0L))))
        .limit(16)
        .forEach(k -> sb.append(String.format(Locale.ROOT, "  %7.1f %7.1f  %s%n", keyed.getOrDefault(k, 0L) / 1e3 / items,
            none.getOrDefault(k, 0L) / 1e3 / items, k)));
    sb.append(String.format(Locale.ROOT, "  %7.1f %7.1f  (all)%n",
        keyed.values().stream().mapToLong(Long::longValue).sum() / 1e3 / items,
        none.values().stream().mapToLong(Long::longValue).sum() / 1e3 / items));
    System.out.print(sb);
  }

  /**
   * Scenario 3. Dequeue throughput: {@code items} items are enqueued and taken in by the queue first,
   * then lease consumers start and take them; items/s from the first item handled to the last.
   * Measured twice on one cluster: in a namespace with nothing else (empty) and in one that also holds
   * a standing backlog of {@code backlogItems} items of the same topics at a worse priority, which
   * stays in the store while the measured items are taken. Each drain starts 3 s after the queue
   * took its items in (at once in a run of fewer than {@link #SETTLE_FROM_ITEMS} backlog and items).
   */
  public static Backlog backlog(BenchKafka kafka, String cluster, Sizes s) {
    try (OrdoCluster c = new OrdoCluster(kafka, cluster, s.partitions(), "exactly_once_v2", "", s.keepTopics());
         Enqueuer enqueuer = new Enqueuer(c, s.payloadBytes())) {
      // A first drain warms this cluster's paths up (JIT), so that the empty queue is not measured cold.
      drain(c, enqueuer, "warmup", s, 0, Math.min(s.items(), 5_000));
      double empty = drain(c, enqueuer, "empty", s, 0, s.items());
      double backlog = drain(c, enqueuer, "backlog", s, s.backlogItems(), s.items());
      return new Backlog(empty, backlog);
    }
  }

  private static double drain(OrdoCluster c, Enqueuer enqueuer, String namespace, Sizes s, int backlogItems,
      int items) {
    for (int i = 0; i < backlogItems; i++) {
      enqueuer.enqueue(namespace, 100);
    }
    long measuredFrom = enqueuer.nextSequence();
    for (int i = 0; i < items; i++) {
      enqueuer.enqueue(namespace);
    }
    enqueuer.flush();
    enqueuer.check();
    long expected = measuredFrom + items; // every item this cluster was sent so far
    long deadline = System.nanoTime() + timeoutFor(backlogItems + (long) items).toNanos();
    while (c.service().metrics().get(QueueMetrics.ENQUEUED) < expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the queue took in " + c.service().metrics().get(QueueMetrics.ENQUEUED)
            + " of " + expected + " items before the deadline");
      }
      BenchKafka.sleep(10);
    }
    // A standing backlog has stood: let the store's background work on what was just written
    // (memtable flushes, compactions) pass before the drain, in both phases alike.
    if ((long) s.backlogItems() + s.items() >= SETTLE_FROM_ITEMS) { // the run's sizes: every phase alike
      BenchKafka.sleep(SETTLE.toMillis());
    }
    try (Workers workers = new Workers(c, "bench-" + namespace, namespace, s.consumers(), s.maxInFlight(), s.workers())) {
      workers.arm(Workers.Probe.NANOS_SINCE_STAMP, measuredFrom, items);
      long end = System.nanoTime() + timeoutFor(items).toNanos() + JOIN_TIMEOUT.toNanos();
      while (workers.sampleCount() < items) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException("consumers handled " + workers.sampleCount() + " of " + items
              + " items of namespace " + namespace + " before the deadline");
        }
        BenchKafka.sleep(1);
      }
      long last = System.nanoTime();
      return items / ((last - workers.firstHandledNanos()) / 1e9);
    }
  }

  /**
   * Scenario 4. Lateness (handler time minus due time, ms) of {@code delayItems} items due evenly
   * over 0..{@code delayMaxMs} from now, through the store's timers and the delay tiers
   * ({@code delayTiers}, forwarders in this process). Preceded by one item over each tier (warm-up).
   */
  public static Stats.Latency delays(BenchKafka kafka, String cluster, Sizes s) {
    List<Duration> tiers = Durations.parseList(s.delayTiers());
    try (OrdoCluster c = new OrdoCluster(kafka, cluster, s.partitions(), "exactly_once_v2", s.delayTiers(),
        s.keepTopics());
         Enqueuer enqueuer = new Enqueuer(c, s.payloadBytes());
         Workers workers = new Workers(c, "bench-workers", "delay", s.consumers(), s.maxInFlight(), s.workers())) {
      workers.awaitAssignment(s.partitions(), JOIN_TIMEOUT);
      long now = System.currentTimeMillis();
      enqueuer.enqueueDue("delay", now);
      for (Duration d : tiers) {
        enqueuer.enqueueDue("delay", now + d.toMillis() + 50);
      }
      long longest = tiers.get(tiers.size() - 1).toMillis();
      await(workers, tiers.size() + 1, Duration.ofMillis(longest).plusSeconds(60), "delay warm-up");

      workers.arm(Workers.Probe.MILLIS_SINCE_DUE, enqueuer.nextSequence(), s.delayItems());
      long base = System.currentTimeMillis();
      int n = s.delayItems();
      for (int i = 0; i < n; i++) {
        long delay = n == 1 ? 0 : i * s.delayMaxMs() / (n - 1);
        enqueuer.enqueueDue("delay", base + delay);
      }
      enqueuer.flush();
      enqueuer.check();
      long deadline = System.nanoTime() + Duration.ofMillis(s.delayMaxMs()).plusSeconds(60).toNanos();
      while (workers.sampleCount() < n) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("consumers handled " + workers.sampleCount() + " of " + n
              + " delayed items by the deadline");
        }
        BenchKafka.sleep(5);
      }
      return Stats.latency(workers.samples(), workers.sampleCount(), 1.0);
    }
  }

  /**
   * With {@code -Dordo.bench.trace=true}, prints the queue's counters and the consumers' every 500 ms
   * to stderr while an end-to-end scenario runs: where items wait shows in which count lags.
   */
  static Thread trace(OrdoCluster c, Workers w) {
    Thread t = new Thread(() -> {
      if (!Boolean.getBoolean("ordo.bench.trace")) {
        return;
      }
      long t0 = System.nanoTime();
      while (!Thread.currentThread().isInterrupted()) {
        System.err.printf("%6d ms %s handled=%d consumers=%s%n", (System.nanoTime() - t0) / 1_000_000,
            c.service().metrics().snapshot(), w.handled(), w.stats());
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void await(Workers workers, long acked, Duration timeout, String phase) {
    if (!workers.awaitAcked(acked, System.nanoTime() + timeout.toNanos())) {
      throw new IllegalStateException(phase + ": " + workers.acked() + " of " + acked + " acks applied after "
          + timeout.toSeconds() + " s; consumers: " + workers.stats());
    }
  }

  /** A generous deadline for {@code n} items: at least 2 minutes, or 1,000 items/s. */
  private static Duration timeoutFor(long n) {
    return Duration.ofSeconds(Math.max(120, n / 1_000));
  }

  /** The sizes the Ordo scenarios need, from the bench options. */
  public record Sizes(int partitions, int items, int payloadBytes, int consumers, int maxInFlight, int workers,
      int latencySeconds,
      int backlogItems, int delayItems, long delayMaxMs, String delayTiers, boolean keepTopics) {}
}
