package dev.ordo.client;

/**
 * Works on one leased item, on a worker thread of a {@link LeaseConsumer}. What happens next
 * depends on how it ends:
 * <ul>
 *   <li>returns normally: the item is acked (deleted);</li>
 *   <li>throws {@link RetryLater}: nacked, ready again after the delay it names;</li>
 *   <li>throws {@link DeadLetterNow}: nacked to the dead-letter topic at once (reason REJECTED);</li>
 *   <li>throws anything else: nacked with exponential backoff by attempt; at the item's max
 *       attempts the queue dead-letters it (reason MAX_ATTEMPTS).</li>
 * </ul>
 * While it runs, its lease is extended by heartbeats. If the lease is lost anyway (the item was
 * cancelled, or heartbeats failed until the lease ran out) the thread is interrupted, and
 * {@link LeasedItem#leaseLost()} turns true: stop, the item may already be with another consumer.
 * Handlers must be safe to run more than once for an item (at-least-once delivery).
 */
@FunctionalInterface
public interface ItemHandler {
  void handle(LeasedItem item) throws Exception;
}
