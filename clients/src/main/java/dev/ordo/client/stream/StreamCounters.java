package dev.ordo.client.stream;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** What a {@link StreamConsumer} did so far, counted on its poll thread; {@link StreamConsumer#stats} reads it. */
final class StreamCounters {
  final AtomicLong handled = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  final AtomicLong retried = new AtomicLong();
  final AtomicLong deadLettered = new AtomicLong();
  final AtomicLong clogs = new AtomicLong();
  final AtomicLong probes = new AtomicLong();
  final AtomicLong reopened = new AtomicLong();
  final AtomicInteger running = new AtomicInteger();

  StreamConsumerStats snapshot(ClogState state) {
    return new StreamConsumerStats(handled.get(), failed.get(), retried.get(), deadLettered.get(), clogs.get(),
        probes.get(), reopened.get(), running.get(), state);
  }
}
