package dev.ordo.delay;

import java.util.concurrent.atomic.AtomicLong;

/** The counts behind a forwarder's {@link ForwarderStats}: written by its loop thread, read by any. */
final class ForwarderCounters {
  private final AtomicLong toTier = new AtomicLong();
  private final AtomicLong toTarget = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong aborted = new AtomicLong();

  /** A record of a committed transaction. */
  void sent(Outgoing.Kind kind) {
    switch (kind) {
      case TIER -> toTier.incrementAndGet();
      case TARGET -> toTarget.incrementAndGet();
      case DEAD_LETTER -> deadLettered.incrementAndGet();
    }
  }

  void dropped() {
    dropped.incrementAndGet();
  }

  void committed() {
    committed.incrementAndGet();
  }

  void aborted() {
    aborted.incrementAndGet();
  }

  ForwarderStats stats() {
    return new ForwarderStats(toTier.get(), toTarget.get(), deadLettered.get(), dropped.get(), committed.get(),
        aborted.get());
  }
}
