package dev.ordo.bench.internal;

import static dev.ordo.bench.internal.SurgePlan.TENANT_A;
import static dev.ordo.bench.internal.SurgePlan.TENANT_B;

import dev.ordo.bench.internal.PhaseClock.Phase;
import dev.ordo.client.ItemHandler;
import dev.ordo.topology.QueueMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The surge scenario (issue 13): a noisy neighbour, with and without namespace policies. One
 * cluster per run; two tenants, {@link SurgePlan#TENANT_A} and {@link SurgePlan#TENANT_B}, each
 * with its own producer and lease consumer, the consumers sharing one {@link Fleet} of workers.
 *
 * <p>Timeline ({@link PhaseClock}): A offers its steady rate from the start to the end of the
 * phase after the surge; the first {@link SurgePlan#WARM_UP} is not counted; then a calm phase
 * (before), B's surge (during: B offers 10 times the fleet's capacity), a calm phase again (after).
 * B's producer offers without waiting for room: an enqueue refused because B's backlog is at its
 * policy's limit ({@code BacklogFullException}) is counted, B backs off {@link #BACKOFF} and offers
 * again, paced from then on (no burst to catch up), as a producer under backpressure would. Then
 * the bench waits until every item A enqueued has reached a worker.
 *
 * <p>What is measured: A's latency from enqueue to a worker starting on the item, by the phase the
 * item was enqueued in; how many of B's items workers started on in each phase; both producers'
 * enqueued and refused counts; and the queue's counts of items that went to OVERFLOW, were
 * admitted from it, or were sidelined (they show whether the policies took effect).
 */
public final class SurgeScenario {
  /** How long B's producer waits after a refused enqueue before it offers again. */
  static final Duration BACKOFF = Duration.ofMillis(20);
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);

  private SurgeScenario() {}

  /**
   * One phase: A's enqueue-to-worker latency (ms; its count is A's items enqueued in the phase), the
   * queue's part of it (enqueue to A's handler receiving the item), B's items started on.
   */
  public record PhaseResult(Stats.Latency tenantA, Stats.Latency tenantAQueued, long tenantBDelivered) {}

  /**
   * One run: the three measured phases, what each producer had enqueued and refused, the distinct
   * items of each that reached a worker, and the queue's OVERFLOW, admission and sideline counts.
   */
  public record Result(boolean policies, PhaseResult before, PhaseResult during, PhaseResult after, long tenantAEnqueued,
      long tenantARefused, long tenantADelivered, long tenantBEnqueued, long tenantBRefused, long tenantBDelivered,
      long overflowed, long admitted, long sidelined) {
    /** A's p99 during the surge over its p99 before it. */
    public double p99DuringOverBefore() {
      return during.tenantA().p99() / before.tenantA().p99();
    }
  }

  /** What a producer did: items enqueued, and offers refused for a full backlog. */
  record Offers(long enqueued, long refused) {}

  /**
   * Runs the scenario once on a new cluster {@code cluster}, with both tenants' policies set first
   * when {@code policies} ({@link SurgePlan#tenantAPolicy}, {@link SurgePlan#tenantBPolicy}).
   *
   * @throws IllegalStateException when a step does not finish in time or an enqueue failed
   */
  public static Result run(BenchKafka kafka, String cluster, SurgePlan plan, boolean policies, int partitions,
      int payloadBytes, boolean keepTopics) {
    Fleet fleet = new Fleet(plan.workers(), SurgePlan.SERVICE);
    AtomicReference<SurgeRecorder> recorder = new AtomicReference<>();
    ItemHandler workA = item -> {
      long received = System.nanoTime();
      fleet.serve(() -> recorder.get().tenantA(Payloads.sequence(item.payload()), Payloads.stamp(item.payload()),
          received, System.nanoTime()));
    };
    ItemHandler workB = item -> fleet.serve(() -> recorder.get().tenantB(Payloads.sequence(item.payload()),
        System.nanoTime()));
    try (OrdoCluster c = new OrdoCluster(kafka, cluster, partitions, "exactly_once_v2", "", keepTopics)) {
      if (policies) {
        c.applyPolicies(Map.of(TENANT_A, plan.tenantAPolicy(), TENANT_B, plan.tenantBPolicy()));
      }
      // Every leased item gets a consumer thread of its own, so that it queues at the fleet, not in its consumer.
      try (Enqueuer a = new Enqueuer(c, payloadBytes);
           Enqueuer b = new Enqueuer(c, payloadBytes);
           Workers consumersA = new Workers(c, "surge-a", TENANT_A, 1, plan.inFlight(), plan.inFlight(), workA);
           Workers consumersB = new Workers(c, "surge-b", TENANT_B, 1, plan.inFlight(), plan.inFlight(), workB)) {
        consumersA.awaitAssignment(partitions, JOIN_TIMEOUT);
        consumersB.awaitAssignment(partitions, JOIN_TIMEOUT);
        PhaseClock clock = new PhaseClock(System.nanoTime(), plan.warmUp(), plan.calm(), plan.surge());
        SurgeRecorder rec = new SurgeRecorder(clock);
        recorder.set(rec);
        CompletableFuture<Offers> offersA = inThread("surge-tenant-a", () -> offer(a, TENANT_A, plan.tenantARate(),
            clock.start(Phase.WARM_UP), clock.end(Phase.AFTER)));
        CompletableFuture<Offers> offersB = inThread("surge-tenant-b", () -> offer(b, TENANT_B, plan.tenantBRate(),
            clock.start(Phase.DURING), clock.end(Phase.DURING)));
        long planned = clock.end(Phase.AFTER) - System.nanoTime();
        Offers byA = join(offersA, planned + JOIN_TIMEOUT.toNanos(), "tenant A's producer");
        Offers byB = join(offersB, planned + JOIN_TIMEOUT.toNanos(), "tenant B's producer");
        a.check();
        b.check();
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        while (rec.tenantADelivered() < byA.enqueued()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("workers started on " + rec.tenantADelivered() + " of tenant A's "
                + byA.enqueued() + " items within " + DRAIN_TIMEOUT.toSeconds() + " s of the end; consumers: "
                + consumersA.stats());
          }
          BenchKafka.sleep(10);
        }
        QueueMetrics m = c.service().metrics();
        return new Result(policies, phase(rec, Phase.BEFORE), phase(rec, Phase.DURING), phase(rec, Phase.AFTER),
            byA.enqueued(), byA.refused(), rec.tenantADelivered(), byB.enqueued(), byB.refused(),
            rec.tenantBDelivered(), m.get(QueueMetrics.OVERFLOWED), m.get(QueueMetrics.ADMITTED),
            m.get(QueueMetrics.SIDELINED));
      }
    }
  }

  private static PhaseResult phase(SurgeRecorder rec, Phase phase) {
    return new PhaseResult(rec.tenantA(phase), rec.tenantAQueued(phase), rec.tenantB(phase));
  }

  /**
   * Offers items of {@code namespace} at {@code perSecond} from {@code fromNanos} until
   * {@code endNanos}; a refused offer is counted and followed by {@link #BACKOFF}, and the pace
   * starts again from then. Flushes before returning.
   */
  static Offers offer(Enqueuer enqueuer, String namespace, double perSecond, long fromNanos, long endNanos) {
    long now;
    while ((now = System.nanoTime()) - fromNanos < 0) {
      LockSupport.parkNanos(fromNanos - now);
    }
    Pacer pacer = new Pacer(perSecond);
    long enqueued = 0;
    long refused = 0;
    while (pacer.awaitNext(endNanos)) {
      if (enqueuer.offer(namespace)) {
        enqueued++;
      } else {
        refused++;
        LockSupport.parkNanos(BACKOFF.toNanos());
        pacer.restart();
      }
    }
    enqueuer.flush();
    return new Offers(enqueued, refused);
  }

  private static <T> CompletableFuture<T> inThread(String name, java.util.function.Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      t.start();
    });
  }

  private static <T> T join(CompletableFuture<T> f, long timeoutNanos, String what) {
    try {
      return f.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + what, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(what + " did not finish in time", e);
    }
  }
}
