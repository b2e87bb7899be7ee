package dev.ordo.client;

import dev.ordo.api.ItemId;
import java.time.Instant;

/**
 * The queue's answer to a command on an item (ack, nack, extend, release, cancel).
 *
 * @param itemId the item the command named
 * @param command what was asked
 * @param result whether it was applied, and if not why
 * @param detail why, in words, when not applied; null otherwise (or when the queue said nothing)
 * @param leaseExpiresAt for an applied extend: when the lease now ends; null otherwise
 * @param deadLetterReason set when the command sent the item to the dead letters (a nack asking for it,
 *     or a nack on the last attempt): a reason name as in {@code DeadLetterInfo#reason} (MAX_ATTEMPTS,
 *     REJECTED...); null otherwise
 * @param forbiddenNamespace with result {@link Result#INVALID}, when a scoped client's namespaces
 *     ({@link QueueClient#within}) do not cover the item's: the namespace it would need; null otherwise
 */
public record CommandOutcome(ItemId itemId, Command command, Result result, String detail, Instant leaseExpiresAt,
    String deadLetterReason, String forbiddenNamespace) {

  /** The commands whose outcome a caller gets. */
  public enum Command { ACK, NACK, EXTEND, RELEASE, CANCEL }

  /** What the queue did with a command. */
  public enum Result {
    /** Done. */
    APPLIED,
    /** The lease named is not the item's current one: it ran out, or the item was handed to another consumer. */
    STALE_LEASE,
    /** No such item: never enqueued, or already acked, cancelled, expired or dead-lettered. */
    UNKNOWN_ITEM,
    /** Refused as malformed or not allowed (see {@link #detail} and {@link #forbiddenNamespace}); nothing was done. */
    INVALID
  }

  /** True when the queue applied the command. */
  public boolean applied() {
    return result == Result.APPLIED;
  }
}
