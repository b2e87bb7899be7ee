package dev.ordo.bench.internal;

import static dev.ordo.bench.internal.FairPlan.NS_BACKLOG;
import static dev.ordo.bench.internal.FairPlan.NS_EMPTY;
import static dev.ordo.bench.internal.FairPlan.NS_WEIGHTS;
import static dev.ordo.bench.internal.FairPlan.PRIORITY;
import static dev.ordo.bench.internal.FairPlan.TOPIC;

import dev.ordo.bench.internal.FairOrder.Dispatch;
import dev.ordo.bench.internal.FairOrder.Sent;
import dev.ordo.bench.internal.FairOrder.Turn;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The fairness scenario's first two parts (issue 14), on one cluster (exactly-once, the server's
 * default) whose lease consumers work at full speed (a handler that does nothing):
 *
 * <ol>
 *   <li><b>Alice alone</b> ({@link FairPlan#NS_EMPTY}): she enqueues {@code baselineItems} items,
 *       one every {@link FairPlan#ALICE_INTERVAL}, on an empty queue; her wait from enqueue to the
 *       handler, and the part of it before the queue took the item in (its intake, seen by
 *       {@link ArrivalWatch}).</li>
 *   <li><b>Alice behind Bob</b> ({@link FairPlan#NS_BACKLOG}, same topic, priority and partition as
 *       hers): Bob enqueues {@code backlog} items as fast as one producer can, with no consumer,
 *       and the bench waits until the queue has taken them all in (so Alice's items do not queue
 *       behind Bob's in the Kafka log, which no dispatch order can help). Then the consumers start
 *       and Alice enqueues one item every {@link FairPlan#ALICE_INTERVAL} until the handler has
 *       had all of Bob's. Her wait and intake as above, for her items enqueued while Bob still had items not
 *       dispatched; and for each, the items her partition dispatched before it: since she enqueued
 *       it, and since the queue took it in (bracketed by {@link ArrivalWatch}), counted in the
 *       partition's dispatch order ({@link DispatchLog}, {@link FairOrder#turns}).</li>
 *   <li><b>Weights</b> ({@link FairPlan#NS_WEIGHTS}, policy {@link FairPlan#weightsPolicy}): both
 *       groups' {@code weightedItems} items enqueued and taken in before the consumers start; the
 *       first dispatches of each while both had items ({@link FairOrder#share}).</li>
 * </ol>
 * Beside each of Alice's two parts a plain Kafka record goes through one hop of the same broker every
 * {@link FairPlan#ALICE_INTERVAL} ({@link KafkaPing}): what the machine adds to a bare hop under Bob's drain.
 * Each part has its own namespace and consumer group, so a part's consumers never see another's
 * items; the dispatch order is read back after each part, not while it runs. Each part starts
 * once its consumer group has settled ({@link Workers#awaitSettled}): while a partition is handed
 * from one consumer to another both may hold demands on it, and what one processing step leases is
 * written one requester after the other, which would blur the order read back.
 */
public final class FairnessScenario {
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);
  /** How long the pings sent may take to be read once the part is over. */
  private static final Duration PING_GRACE = Duration.ofSeconds(30);

  private FairnessScenario() {}

  /** The lease consumers of each part: {@code count} of them, each holding {@code maxInFlight} items, {@code workers} threads. */
  public record Consumers(int count, int maxInFlight, int workers) {}

  /**
   * Alice alone and behind Bob's backlog. Waits in ms; {@code aliceBehind} covers her items
   * enqueued while Bob had items not dispatched ({@code turns.items()} of them). The intakes are the
   * part of the wait before the queue took the item in (enqueue to {@link ArrivalWatch} seeing it), and
   * the {@code acked} figures the part of that before the broker acknowledged her write (the
   * producer's callback): what her record spent reaching Kafka, apart from what it then waited for
   * the queue's stream thread.
   * {@code dispatchesRead} are the entries of her partition's dispatch order read back,
   * {@code dispatchesCounted} the queue's count over the same time: equal when the counts the
   * turns are made of line up. {@code smallestWindow} is the smallest window ({@link
   * dev.ordo.client.LeaseConsumer#window}) of a lease consumer while Bob's backlog drained;
   * {@code loop} where the queue's stream threads spent their loop meanwhile ({@link LoopShares}).
   */
  public record Backlog(Stats.Latency aliceAlone, Stats.Latency aliceAloneIntake, Stats.Latency aliceAloneAcked,
      long aliceAloneEnqueued, long aliceAloneDelivered, Stats.Latency aliceBehind, Stats.Latency aliceBehindIntake,
      Stats.Latency aliceBehindAcked, long aliceEnqueued,
      long aliceDelivered, long bobEnqueued, long bobDelivered, double bobPerSec, FairOrder.TurnSummary turns,
      long dispatchesRead, long dispatchesCounted, int smallestWindow, LoopShares.Mean loop, Stats.Latency pingAlone,
      Stats.Latency pingBehind) {
    /** Alice's p99 behind Bob over her p99 alone. */
    public double p99BehindOverAlone() {
      return aliceBehind.p99() / aliceAlone.p99();
    }

    /** The same ratio for a plain Kafka record sent beside her ({@link KafkaPing}). */
    public double pingP99BehindOverAlone() {
      return pingBehind.p99() / pingAlone.p99();
    }
  }

  /** The weighted pair: what each enqueued and had delivered, and the share while both had items. */
  public record Weights(long heavyEnqueued, long heavyDelivered, long lightEnqueued, long lightDelivered,
      FairOrder.Share share) {}

  public record Result(Backlog backlog, Weights weights) {}

  /**
   * Runs both parts on a new cluster {@code cluster}.
   *
   * @throws IllegalStateException when a step does not finish in time or an enqueue failed
   */
  public static Result run(BenchKafka kafka, String cluster, FairPlan plan, Consumers consumers, int payloadBytes,
      boolean keepTopics) {
    try (OrdoCluster c = new OrdoCluster(kafka, cluster, plan.partitions(), "exactly_once_v2", "", keepTopics)) {
      c.applyPolicies(Map.of(NS_WEIGHTS, plan.weightsPolicy()));
      Backlog backlog = backlog(kafka, c, plan, consumers, payloadBytes);
      Weights weights = weights(kafka, c, plan, consumers, payloadBytes);
      return new Result(backlog, weights);
    }
  }

  /** Alice alone: her waits, intakes and writes acknowledged (ms), her items enqueued and delivered. */
  private record Alone(Stats.Latency waits, Stats.Latency intake, Stats.Latency acked, long enqueued, long delivered,
      Stats.Latency ping) {}

  /** One of Alice's items behind Bob: its sequence, the dispatches counted when she enqueued it, and when that was. */
  private record Offer(long sequence, long dispatched, long atNanos) {}

  private static Backlog backlog(BenchKafka kafka, OrdoCluster c, FairPlan plan, Consumers k, int payloadBytes) {
    Alone alone = aliceAlone(kafka, c, plan, k, payloadBytes);
    return behindBob(kafka, c, plan, k, payloadBytes, alone);
  }

  private static Alone aliceAlone(BenchKafka kafka, OrdoCluster c, FairPlan plan, Consumers k, int payloadBytes) {
    String alice = plan.aliceKey();
    GroupRecorder rec = new GroupRecorder(Set.of(alice));
    int n = plan.baselineItems();
    long[] sentAt = new long[n];
    AtomicLongArray ackedAt = new AtomicLongArray(n);
    ArrivalWatch.Bounds arrivals;
    long[] pings;
    try (Enqueuer a = new Enqueuer(c, payloadBytes);
         Workers w = workers(c, "fair-empty", NS_EMPTY, k, rec);
         ArrivalWatch watch = new ArrivalWatch(c.service().metrics());
         KafkaPing ping = new KafkaPing(kafka, c.topics().cluster() + ".ping-alone", FairPlan.ALICE_INTERVAL)) {
      arrivals = watch.bounds();
      w.awaitSettled(plan.partitions(), JOIN_TIMEOUT);
      ping.start();
      Pacer pacer = new Pacer(aliceRate());
      long end = System.nanoTime() + Duration.ofHours(1).toNanos();
      for (int i = 0; i < n; i++) {
        pacer.awaitNext(end);
        sentAt[i] = System.nanoTime();
        int item = i;
        a.enqueue(NS_EMPTY, TOPIC, PRIORITY, alice, at -> ackedAt.set(item, at));
      }
      a.flush();
      a.check();
      await(() -> rec.delivered(alice) >= n, timeoutFor(n),
          () -> "Alice alone: the handler had " + rec.delivered(alice) + " of her " + n + " items");
      pings = ping.stop(PING_GRACE);
    }
    long[] waits = new long[n];
    long[] intake = new long[Math.min(n, arrivals.arrivals())];
    for (int i = 0; i < n; i++) {
      waits[i] = rec.waitNanos(alice, i);
    }
    for (int i = 0; i < intake.length; i++) {
      intake[i] = arrivals.seenAt(i) - sentAt[i];
    }
    long[] acked = new long[n];
    for (int i = 0; i < n; i++) {
      acked[i] = ackedAt.get(i) - sentAt[i];
    }
    return new Alone(Stats.latency(waits, n, 1e6), Stats.latency(intake, intake.length, 1e6),
        Stats.latency(acked, n, 1e6), n, rec.delivered(alice), Stats.latency(pings, pings.length, 1e6));
  }

  private static Backlog behindBob(BenchKafka kafka, OrdoCluster c, FairPlan plan, Consumers k, int payloadBytes,
      Alone alone) {
    String alice = plan.aliceKey();
    String bob = plan.bobKey();
    int backlog = plan.backlog();
    QueueMetrics m = c.service().metrics();
    GroupRecorder rec = new GroupRecorder(Set.of(alice));
    try (Enqueuer b = new Enqueuer(c, payloadBytes);
         Enqueuer a = new Enqueuer(c, payloadBytes)) {
      // Bob's backlog, taken in before anyone works on it.
      long enqueued0 = m.get(QueueMetrics.ENQUEUED);
      for (int i = 0; i < backlog; i++) {
        b.enqueue(NS_BACKLOG, TOPIC, PRIORITY, bob);
      }
      b.flush();
      b.check();
      await(() -> m.get(QueueMetrics.ENQUEUED) >= enqueued0 + backlog, timeoutFor(backlog),
          () -> "the queue took in " + (m.get(QueueMetrics.ENQUEUED) - enqueued0) + " of Bob's " + backlog + " items");

      // Alice behind it, while the consumers drain it.
      String deliveries = c.topics().deliveries();
      long from = DispatchLog.end(kafka, deliveries, plan.partition());
      List<Offer> sent = new ArrayList<>();
      Map<Long, Long> ackedAt = new ConcurrentHashMap<>(); // her sequence -> when the broker acknowledged it
      int smallestWindow = Integer.MAX_VALUE; // of the consumers, sampled at each of Alice's items
      LoopShares loop = new LoopShares(); // the stream threads', sampled at each of Alice's items
      ArrivalWatch.Bounds arrivals;
      long[] pings;
      try (ArrivalWatch watch = new ArrivalWatch(m);
           Workers w = workers(c, "fair-backlog", NS_BACKLOG, k, rec);
           KafkaPing ping = new KafkaPing(kafka, c.topics().cluster() + ".ping-behind", FairPlan.ALICE_INTERVAL)) {
        arrivals = watch.bounds();
        w.awaitSettled(plan.partitions(), JOIN_TIMEOUT);
        ping.start();
        Pacer pacer = new Pacer(aliceRate());
        long deadline = System.nanoTime() + timeoutFor(backlog).toNanos();
        do {
          if (!pacer.awaitNext(deadline)) {
            throw new IllegalStateException("Bob's backlog: the handler had " + rec.delivered(bob) + " of "
                + backlog + " items after " + timeoutFor(backlog).toSeconds() + " s; consumers: " + w.stats());
          }
          smallestWindow = Math.min(smallestWindow, w.windows().stream().mapToInt(Integer::intValue).min().orElse(0));
          loop.sample(c.service().streams().metrics());
          long dispatched = arrivals.sinceStart(m.get(QueueMetrics.DISPATCHED));
          long at = System.nanoTime();
          long seq = a.nextSequence();
          sent.add(new Offer(a.enqueue(NS_BACKLOG, TOPIC, PRIORITY, alice, acked -> ackedAt.put(seq, acked)), dispatched,
              at));
        } while (rec.delivered(bob) < backlog);
        pings = ping.stop(PING_GRACE);
        a.flush();
        a.check();
        await(() -> rec.delivered(alice) >= sent.size(), timeoutFor(sent.size()),
            () -> "Alice behind Bob: the handler had " + rec.delivered(alice) + " of her " + sent.size() + " items");
      }
      long counted = arrivals.sinceStart(m.get(QueueMetrics.DISPATCHED));
      List<Dispatch> order = DispatchLog.read(kafka, deliveries, plan.partition(), from,
          DispatchLog.end(kafka, deliveries, plan.partition()));

      // Alice's sequence numbers count from 0 in this part and she alone enqueued: her item i is arrival i.
      List<Sent> items = new ArrayList<>();
      for (int i = 0; i < sent.size() && i < arrivals.arrivals(); i++) {
        items.add(new Sent(sent.get(i).sequence(), sent.get(i).dispatched(), arrivals.atLeast(i), arrivals.atMost(i)));
      }
      List<Turn> turns = FairOrder.turns(order, alice, bob, items);
      List<Turn> behind = turns.stream().filter(Turn::behindBacklog).toList();
      long[] waits = behind.stream().mapToLong(t -> rec.waitNanos(alice, t.sequence())).filter(v -> v >= 0).toArray();
      long[] intake = behind.stream().mapToInt(t -> Math.toIntExact(t.sequence()))
          .mapToLong(i -> arrivals.seenAt(i) - sent.get(i).atNanos()).toArray();
      long[] acked = behind.stream()
          .mapToLong(t -> ackedAt.get(t.sequence()) - sent.get(Math.toIntExact(t.sequence())).atNanos()).toArray();
      if (Boolean.getBoolean("ordo.bench.trace")) {
        printTimeline(behind, sent, arrivals, rec, alice, dispatchedAt(order, alice, c.leaseMs()));
      }
      return new Backlog(alone.waits(), alone.intake(), alone.acked(), alone.enqueued(), alone.delivered(),
          Stats.latency(waits, waits.length, 1e6), Stats.latency(intake, intake.length, 1e6),
          Stats.latency(acked, acked.length, 1e6), sent.size(),
          rec.delivered(alice), backlog, rec.delivered(bob), backlog / rec.spanSeconds(bob), FairOrder.summary(turns),
          order.size(), counted, smallestWindow, loop.mean(), alone.ping(), Stats.latency(pings, pings.length, 1e6));
    }
  }

  /**
   * Her items' dispatch instants (wall clock, ms) by sequence number: each delivery's lease expiry less
   * the lease, i.e. the queue's {@code now} when it leased the item (Kafka Streams' system time of that
   * loop, so a little early at most).
   */
  static Map<Long, Long> dispatchedAt(List<Dispatch> order, String alice, long leaseMs) {
    Map<Long, Long> out = new HashMap<>();
    for (Dispatch d : order) {
      if (alice.equals(d.groupKey()) && d.leaseExpiresAt() >= 0) {
        out.putIfAbsent(d.sequence(), d.leaseExpiresAt() - leaseMs);
      }
    }
    return out;
  }

  /**
   * With {@code -Dordo.bench.trace=true}: each of Alice's items behind Bob, when it was sent (ms after her
   * first), its intake, when it was dispatched and its wait (ms from sending), and the dispatches counted
   * when she sent it; shows where in Bob's drain her slowest items fall, and which part of her wait
   * came before the queue leased her item (intake, then the wait for a consumer's free slot) and which
   * after (the transaction's commit, the consumer's fetch, its workers). A summary line gives the
   * p50 and max of each part.
   */
  private static void printTimeline(List<Turn> behind, List<Offer> sent, ArrivalWatch.Bounds arrivals,
      GroupRecorder rec, String alice, Map<Long, Long> dispatchedAtMs) {
    long first = sent.get(0).atNanos();
    // Wall clock less nanoTime, in ns: the dispatch instants are the queue's wall clock.
    long wallMinusNano = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    java.time.Instant firstAt = java.time.Instant.ofEpochMilli((first + wallMinusNano) / 1_000_000);
    StringBuilder sb = new StringBuilder("  Alice behind Bob, each item: sent (ms after her first, " + firstAt
        + "), intake, dispatched, wait (ms after sent), dispatches counted when sent\n");
    List<Double> intakes = new ArrayList<>();
    List<Double> toDispatch = new ArrayList<>();
    List<Double> afterDispatch = new ArrayList<>();
    for (Turn t : behind) {
      int i = Math.toIntExact(t.sequence());
      Offer o = sent.get(i);
      double intake = (arrivals.seenAt(i) - o.atNanos()) / 1e6;
      double wait = rec.waitNanos(alice, i) / 1e6;
      Long at = dispatchedAtMs.get(t.sequence());
      double dispatched = at == null ? Double.NaN : at - (o.atNanos() + wallMinusNano) / 1e6;
      intakes.add(intake);
      if (at != null) {
        toDispatch.add(dispatched);
        afterDispatch.add(wait - dispatched);
      }
      sb.append(String.format(Locale.ROOT, "  %7d %7.1f %7.1f %7.1f %,9d%n", (o.atNanos() - first) / 1_000_000,
          intake, dispatched, wait, o.dispatched()));
    }
    sb.append(String.format(Locale.ROOT, "  Alice behind Bob, p50 / max (ms): intake %s, sent to dispatched %s,"
        + " dispatched to her handler %s (%d of %d items' dispatches read)%n", p50Max(intakes), p50Max(toDispatch),
        p50Max(afterDispatch), toDispatch.size(), behind.size()));
    System.out.print(sb);
  }

  private static String p50Max(List<Double> v) {
    if (v.isEmpty()) {
      return "-";
    }
    List<Double> sorted = v.stream().sorted().toList();
    return String.format(Locale.ROOT, "%.1f / %.1f", sorted.get((sorted.size() - 1) / 2),
        sorted.get(sorted.size() - 1));
  }

  private static Weights weights(BenchKafka kafka, OrdoCluster c, FairPlan plan, Consumers k, int payloadBytes) {
    String heavy = plan.heavyKey();
    String light = plan.lightKey();
    int n = plan.weightedItems();
    QueueMetrics m = c.service().metrics();
    GroupRecorder rec = new GroupRecorder(Set.of());
    try (Enqueuer e = new Enqueuer(c, payloadBytes)) {
      long enqueued0 = m.get(QueueMetrics.ENQUEUED);
      for (int i = 0; i < n; i++) {
        e.enqueue(NS_WEIGHTS, TOPIC, PRIORITY, heavy);
        e.enqueue(NS_WEIGHTS, TOPIC, PRIORITY, light);
      }
      e.flush();
      e.check();
      await(() -> m.get(QueueMetrics.ENQUEUED) >= enqueued0 + 2L * n, timeoutFor(2L * n),
          () -> "the queue took in " + (m.get(QueueMetrics.ENQUEUED) - enqueued0) + " of the weighted " + 2 * n
              + " items");
    }
    String deliveries = c.topics().deliveries();
    long from = DispatchLog.end(kafka, deliveries, plan.weightsPartition());
    try (Workers w = workers(c, "fair-weights", NS_WEIGHTS, k, rec)) {
      await(() -> rec.delivered(heavy) >= n && rec.delivered(light) >= n, timeoutFor(2L * n).plus(JOIN_TIMEOUT),
          () -> "weights: the handler had " + rec.delivered(heavy) + " heavy and " + rec.delivered(light)
              + " light items of " + n + " each; consumers: " + w.stats());
    }
    List<Dispatch> order = DispatchLog.read(kafka, deliveries, plan.weightsPartition(), from,
        DispatchLog.end(kafka, deliveries, plan.weightsPartition()));
    return new Weights(n, rec.delivered(heavy), n, rec.delivered(light), FairOrder.share(order, heavy, light, n));
  }

  /** Lease consumers of {@code namespace} whose handler records each item in {@code rec}. */
  private static Workers workers(OrdoCluster c, String group, String namespace, Consumers k, GroupRecorder rec) {
    return new Workers(c, group, namespace, k.count(), k.maxInFlight(), k.workers(), item -> {
      long now = System.nanoTime();
      byte[] payload = item.payload();
      rec.delivered(item.groupKey(), Payloads.sequence(payload), Payloads.stamp(payload), now);
    });
  }

  private static double aliceRate() {
    return 1e9 / FairPlan.ALICE_INTERVAL.toNanos();
  }

  private static void await(BooleanSupplier done, Duration timeout, Supplier<String> what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what.get() + " after " + timeout.toSeconds() + " s");
      }
      BenchKafka.sleep(5);
    }
  }

  /** A generous deadline for {@code n} items: at least 2 minutes, or 1,000 items/s. */
  private static Duration timeoutFor(long n) {
    return Duration.ofSeconds(Math.max(120, n / 1_000));
  }
}
