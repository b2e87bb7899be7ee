package dev.ordo.client;

import java.util.concurrent.atomic.AtomicLong;

/** What a {@link LeaseConsumer} did so far, counted from its threads; {@link LeaseConsumer#stats} reads it. */
final class LeaseCounters {
  final AtomicLong delivered = new AtomicLong();
  final AtomicLong adopted = new AtomicLong();
  final AtomicLong acked = new AtomicLong();
  final AtomicLong ackRefused = new AtomicLong();
  final AtomicLong nacked = new AtomicLong();
  final AtomicLong deadLettered = new AtomicLong();
  final AtomicLong released = new AtomicLong();
  final AtomicLong leaseLost = new AtomicLong();
  final AtomicLong heartbeats = new AtomicLong();

  LeaseConsumerStats snapshot(int running, int window, long emptyDequeues, double busyRatio) {
    return new LeaseConsumerStats(delivered.get(), adopted.get(), acked.get(), ackRefused.get(), nacked.get(),
        deadLettered.get(), released.get(), leaseLost.get(), heartbeats.get(), running, window, emptyDequeues,
        busyRatio);
  }
}
