package dev.ordo.topology.internal;

/**
 * How long one stream thread's task opens in a row may go on indexing the item tables they rebuild
 * (decisions D67); past it, the rest of each index is rebuilt in steps. Kafka Streams opens a thread's
 * restored tasks in one go, and the thread may hold a transaction open across them that the broker
 * aborts after the queue's 5 s transaction timeout (decisions D30), taking every task of the thread with
 * it: the indexing may stall the thread for {@link #INDEX_ALONG_MS} at most, the item tables' own rebuild
 * aside. Pure: a function of the times it is told; one per stream thread.
 */
final class OpeningBudget {
  /** Half the queue's transaction timeout. */
  static final long INDEX_ALONG_MS = 2_500;
  /** Opens less than this apart (the end of one, the start of the next) count as one go. */
  static final long SAME_GO_MS = 1_000;

  private static final long NONE = Long.MIN_VALUE;
  private long goStartedAt = NONE;
  private long lastEndedAt = NONE;

  /** An open starts at {@code now} (ms): until when it may index along. */
  long indexAlongUntil(long now) {
    if (lastEndedAt == NONE || now - lastEndedAt >= SAME_GO_MS) {
      goStartedAt = now;
    }
    return goStartedAt + INDEX_ALONG_MS;
  }

  /** The open ended at {@code now} (ms). */
  void ended(long now) {
    lastEndedAt = now;
  }
}
