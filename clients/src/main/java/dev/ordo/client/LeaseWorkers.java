package dev.ordo.client;

import dev.ordo.client.internal.Job;
import dev.ordo.client.internal.SpareCapacity;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseConsumer}'s worker pool ({@code <requester id>-worker-<n>}): runs the handler on each job,
 * its time counted busy ({@link SpareCapacity}), settles the item as the handler ended
 * ({@link LeaseOutcomes}) unless the consumer halted, and hands the job back to {@link LeaseJobs}.
 */
final class LeaseWorkers {
  private static final Logger log = LoggerFactory.getLogger(LeaseWorkers.class);

  private final ExecutorService pool;
  private final ItemHandler handler;
  private final LeaseJobs jobs;
  private final LeaseOutcomes outcomes;
  private final SpareCapacity spare;
  private final Time time;
  /** True once the consumer halted: nothing is settled any more, as in a killed process. */
  private final BooleanSupplier halted;

  LeaseWorkers(String requesterId, int threads, ItemHandler handler, LeaseJobs jobs, LeaseOutcomes outcomes,
      SpareCapacity spare, Time time, BooleanSupplier halted) {
    AtomicInteger n = new AtomicInteger();
    this.pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, requesterId + "-worker-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.handler = handler;
    this.jobs = jobs;
    this.outcomes = outcomes;
    this.spare = spare;
    this.time = time;
    this.halted = halted;
  }

  /** Queues {@code job} for a worker; its wait for one counts in its ack's round trip. */
  void submit(Job job) {
    long queuedAt = System.nanoTime();
    pool.execute(() -> work(job, queuedAt));
  }

  private void work(Job job, long queuedAt) {
    long waited = System.nanoTime() - queuedAt;
    boolean ok = false;
    Throwable failure = null;
    boolean bound = job.bind(Thread.currentThread());
    if (bound) {
      String topic = job.item().getTopic();
      spare.handlerStarted(topic, time.milliseconds());
      try {
        handler.handle(new LeasedItem(job));
        ok = true;
      } catch (Throwable t) {
        failure = t;
      } finally {
        spare.handlerEnded(topic, time.milliseconds());
        job.unbind();
      }
    }
    try {
      if (bound && !halted.getAsBoolean()) {
        outcomes.settle(job, ok, failure, waited);
      }
    } catch (RuntimeException e) {
      log.error("Could not settle item {}; it returns when its lease runs out", job.id(), e);
    } finally {
      jobs.finish(job);
    }
  }

  /** Interrupts the workers and takes no more jobs. */
  void shutdownNow() {
    pool.shutdownNow();
  }

  /** {@link #shutdownNow}, then waits up to 5 s for the workers to end. */
  void halt() {
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
