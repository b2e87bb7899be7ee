package dev.ordo.client;

/**
 * Why a client gives back, unseen, a lease it never handed to its application: the queue undoes such
 * a lease as if it had never been granted (the attempt is not counted, an at-most-once item is ready
 * again rather than dropped), and the client counts it by reason ({@link QueueClient#givenBack()}).
 */
public enum GiveBackReason {
  /** A dequeue was granted more than it asked. */
  SURPLUS,
  /** Granted after its dequeue ended. */
  LATE,
  /** Granted to a lease consumer beyond its max in flight. */
  OVER_CAPACITY,
  /** Held by a lease consumer (or a prefetch) closing before anyone saw it. */
  CLOSING,
  /** The caller gave up the dequeue. */
  CANCELLED
}
