package dev.ordo.client;

/**
 * The package-private seam through which tests of this package make a {@link LeaseConsumer} fail as a
 * sick process would: it asks the seam, each time a heartbeat is due, whether to hold it back (so the
 * item's lease runs out while its handler still runs). Production consumers use {@link #NONE}.
 */
@FunctionalInterface
interface ConsumerFaults {
  /** No fault: every heartbeat goes. */
  ConsumerFaults NONE = () -> false;

  /** True while heartbeats are held back. */
  boolean heartbeatsHeld();
}
