package dev.ordo.bench.internal;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * The consumers' workers in the surge scenario: {@code workers} of them shared by every tenant's
 * lease consumer, each busy for a fixed service time per item, so a known capacity of
 * {@code workers / service} items a second. An item waits for a free worker in the order it asked
 * (a fair semaphore), whichever tenant it comes from: what one tenant has leased stands in front of
 * the other's, as in a fleet that works for several tenants. The service time is waited, not
 * computed: the bench's cores belong to the queue.
 */
final class Fleet {
  private final Semaphore workers;
  private final long serviceNanos;

  Fleet(int workers, Duration service) {
    this.workers = new Semaphore(workers, true);
    this.serviceNanos = service.toNanos();
  }

  /**
   * Waits for a free worker, runs {@code onStart} (the item is being worked on from now), and holds
   * the worker for the service time.
   *
   * @throws InterruptedException when the caller is interrupted while waiting (its lease was lost or
   *     its consumer is closing): the item is not worked on
   */
  void serve(Runnable onStart) throws InterruptedException {
    workers.acquire();
    try {
      onStart.run();
      long end = System.nanoTime() + serviceNanos;
      long left;
      while ((left = end - System.nanoTime()) > 0) {
        LockSupport.parkNanos(left);
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while working on an item");
        }
      }
    } finally {
      workers.release();
    }
  }
}
