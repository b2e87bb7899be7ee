package dev.ordo.client.stream;

/**
 * Works on one record of a stream, on a worker thread of a {@link StreamConsumer}; records of a
 * partition run in parallel (up to {@code ordo.stream.partition.max.in.flight}) and finish in any
 * order. What happens next depends on how it ends:
 * <ul>
 *   <li>returns normally: the record is done;</li>
 *   <li>throws {@link dev.ordo.client.RetryLater}: the record comes back on the retry topic after the
 *       delay it names (the attempt counts toward {@code ordo.stream.max.attempts});</li>
 *   <li>throws {@link dev.ordo.client.DeadLetterNow}: the record goes to the dead-letter topic at once
 *       (reason REJECTED), whatever attempts it has left;</li>
 *   <li>throws anything else: the record comes back on the retry topic after an exponential backoff,
 *       through the delay tiers; after its last attempt it goes to the dead-letter topic (reason
 *       MAX_ATTEMPTS) with the error and its raw bytes.</li>
 * </ul>
 * Delivery is at least once: a record may run again after a crash or a rebalance, so handlers must be
 * safe to repeat. Handlers of one partition may run at the same time, so records with the same key
 * are not ordered.
 */
@FunctionalInterface
public interface StreamHandler {
  void handle(StreamRecord record) throws Exception;
}
