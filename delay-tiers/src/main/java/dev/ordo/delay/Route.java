package dev.ordo.delay;

import java.time.Duration;

/**
 * Where a delayed record goes next, as decided by {@link TierRouter}: into a delay tier, or to its
 * target topic no earlier than a given time.
 */
public sealed interface Route {

  /** Append the envelope to the tier topic of {@code delay}; it leaves that tier {@code delay} later. */
  record Tier(Duration delay) implements Route {}

  /**
   * Produce the record to its target, not before {@code notBefore} (epoch ms, the record's due time).
   * When {@code notBefore} is still ahead, the record waits where it is: the client holds it, a
   * forwarder keeps it at the head of its partition with the partition paused.
   */
  record Target(long notBefore) implements Route {
    public boolean isDue(long now) {
      return now >= notBefore;
    }
  }
}
