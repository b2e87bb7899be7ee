package dev.ordo.client.internal;

import dev.ordo.client.QueueClientConfig;

/**
 * The times a {@link dev.ordo.client.QueueClient}'s dequeues keep, from its configuration.
 *
 * @param requestTimeoutMs {@link QueueClientConfig#requestTimeout}
 * @param gatherMs {@link QueueClientConfig#dequeueGather}: how long a long poll gathers after its first item
 * @param answerGraceMs how long past its deadline a dequeue waits for the answers of the partitions it
 *     asked once: their items are on their way, and given back if they come later
 * @param stickyMs {@link QueueClientConfig#DEQUEUE_STICKY_CONFIG}
 * @param minWaitMs {@link QueueClientConfig#dequeueMinWait}
 * @param refreshMs {@link QueueClientConfig#demandRefresh}: how often a standing demand is renewed
 */
public record DequeueTimes(long requestTimeoutMs, long gatherMs, long answerGraceMs, long stickyMs, long minWaitMs,
    long refreshMs) {
  /** The most {@link #answerGraceMs} is (less when the request timeout is). */
  static final long ANSWER_GRACE_MS = 2_000;

  public static DequeueTimes of(QueueClientConfig config) {
    return new DequeueTimes(config.requestTimeout().toMillis(), config.dequeueGather().toMillis(),
        Math.min(config.requestTimeout().toMillis(), ANSWER_GRACE_MS), config.dequeueSticky().toMillis(),
        config.dequeueMinWait().toMillis(), config.demandRefresh().toMillis());
  }
}
