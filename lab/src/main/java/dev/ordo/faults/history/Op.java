package dev.ordo.faults.history;

import java.util.Map;

/**
 * One logged event of a workload run against the queue: an operation and the answer it got, stamped
 * with the logging client's wall clock ({@link #at}, ms) and its name ({@link #client}). The workload
 * writes these as it goes; the final look-ups (dead letters, items still queued, server counters) are
 * logged the same way at the end. {@link HistoryChecker} reads them back and judges the run.
 *
 * <p>Items are named by the workload's own unique key ({@code itemKey}, carried in the payload), since
 * an enqueue whose answer was lost has no item id to go by.
 */
public sealed interface Op {
  /** When the client logged the event, by its own clock (ms). */
  long at();

  /** The client (process or thread) that logged it. */
  String client();

  /** The delivery semantics an item was enqueued with. */
  enum Semantics { AT_LEAST_ONCE, AT_MOST_ONCE }

  /**
   * The answer to an ack, nack, extension or release. {@code TIMEOUT} means no answer came: the command
   * may or may not have been applied.
   */
  enum Outcome { APPLIED, STALE_LEASE, UNKNOWN_ITEM, TIMEOUT }

  /** An event about one item. */
  sealed interface ItemOp extends Op {
    String itemKey();
  }

  /** An enqueue as requested, answered or not: what the checker needs of the item's settings. */
  sealed interface Submission extends ItemOp {
    Semantics semantics();

    int priority();

    /** When the item is due (client clock, ms); 0 for an item without a delay. */
    long dueAt();

    /** Time to live from the enqueue (ms); 0 for none. */
    long ttlMs();

    /** Its group key, or null. */
    String groupKey();

    /** Its most deliveries before it is dead-lettered; 0 when the workload did not say. */
    int maxAttempts();
  }

  /** An enqueue the queue acknowledged: the item exists, as {@code itemId} ("partition-offset"). */
  record Enqueued(long at, String client, String itemKey, String itemId, Semantics semantics, int priority,
      long dueAt, long ttlMs, String groupKey, int maxAttempts, int partition) implements Submission {}

  /** An enqueue without an answer (a timeout, a crash): the item may or may not exist. */
  record EnqueueUnknown(long at, String client, String itemKey, Semantics semantics, int priority, long dueAt,
      long ttlMs, String groupKey, int maxAttempts) implements Submission {}

  /** The application got the item on a lease ({@code at}: when it got it, not when it was leased). */
  record Delivered(long at, String client, String itemKey, String itemId, String leaseId, int attempt,
      long leaseExpiresAt, int partition, int priority) implements ItemOp {}

  /** An ack of a lease and its answer. */
  record Acked(long at, String client, String itemKey, String itemId, String leaseId, Outcome result)
      implements ItemOp {}

  /** A nack of a lease: back after {@code delayMs}, or to the dead letters when {@code deadLetter}. */
  record Nacked(long at, String client, String itemKey, String leaseId, long delayMs, boolean deadLetter,
      Outcome result) implements ItemOp {}

  /** An extension of a lease to {@code newExpiresAt} and its answer. */
  record Extended(long at, String client, String itemKey, String leaseId, long newExpiresAt, Outcome result)
      implements ItemOp {}

  /** A release of a lease (the item goes back, its attempt given back) and its answer. */
  record Released(long at, String client, String itemKey, String leaseId, Outcome result) implements ItemOp {}

  /**
   * A dead letter of the item, read from the dead-letter topic at the end. Its {@code at} is best the
   * dead letter's record time (when it was written); the read time will do, but tells less.
   */
  record DeadLettered(long at, String client, String itemKey, String itemId, String reason, int attempts)
      implements ItemOp {
    public static final String MAX_ATTEMPTS = "MAX_ATTEMPTS";
    public static final String REJECTED = "REJECTED";
    public static final String TTL_EXPIRED = "TTL_EXPIRED";
  }

  /** The item is still in the queue at the end (ready, delayed or leased), from a final look-up. */
  record Remaining(long at, String client, String itemKey) implements ItemOp {}

  /** Counters a server reported at the end (e.g. "acked", "dead_lettered"); the checker sums them. */
  record ServerCounts(long at, String client, Map<String, Long> counts) implements Op {
    public ServerCounts {
      counts = Map.copyOf(counts);
    }
  }
}
