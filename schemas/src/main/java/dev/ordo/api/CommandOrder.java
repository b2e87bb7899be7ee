package dev.ordo.api;

/**
 * How a command's record asks to be ordered against new items (decisions D25, D46).
 *
 * <p>A partition's task takes the older of the heads of its {@code items} and {@code commands}
 * partitions, a command counting as {@code ordo.intake.lead.ms} younger than its timestamp, so that a
 * cancel or a look-up sent right after an enqueue finds the item. But a command waits that way
 * behind every item enqueued before it that the queue has not yet taken in: behind a burst of
 * enqueues faster than the intake, for as long as the backlog lasts. A command that can only name an
 * item taken in long ago (an ack, a nack, an extension or a release: the item was leased) has nothing
 * to wait for, nor has a lease consumer's standing demand (it names no item, and no caller waits for
 * a short answer; it must come along, as a partition's records are taken in their order and a
 * demand held back would hold the acks behind it): its record carries the header {@link #HEADER}
 * with the value {@link #first()}, and while the queue's intake lags by more than the lead the queue
 * takes it right after the items it has read instead of after the whole backlog. A record without
 * the header (an older client, a cancel, a dequeue) is ordered as before.
 */
public final class CommandOrder {
  /** The header a command's record carries when it need not wait for a lagging intake. */
  public static final String HEADER = "ordo.order";
  /** The header's value: not held behind a lagging intake. */
  private static final byte FIRST_BYTE = 'f';

  private CommandOrder() {}

  /** The header's value for a command not held behind a lagging intake (a fresh array: callers may keep it). */
  public static byte[] first() {
    return new byte[] {FIRST_BYTE};
  }

  /** True when {@code value} (the header's last value, or null) asks not to be held behind a lagging intake. */
  public static boolean isFirst(byte[] value) {
    return value != null && value.length == 1 && value[0] == FIRST_BYTE;
  }
}
