package dev.ordo.topology;

import dev.ordo.schema.ReturnReason;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one Ordo instance's queue processors (all its tasks). Counters are cumulative
 * since the instance started; durable figures (depth, age) come from the store and the
 * {@code <cluster>.topics} stats instead, as in-memory counts reset on restart.
 */
public final class QueueMetrics {
  public static final String ENQUEUED = "enqueued";
  /** An items record read again (its offset was taken in already): not an item, a replay. */
  public static final String DUPLICATE_ENQUEUE = "enqueue.duplicate";
  /** Items refused as duplicates of an earlier one with their deduplication ID, within its window (decisions D57). */
  public static final String DEDUP_DUPLICATE = "dedup.duplicate";
  /** Deduplication IDs forgotten because their window ended. */
  public static final String DEDUP_EXPIRED = "dedup.expired";
  /** Deduplication IDs forgotten before their window ended: the partition's window was at ordo.dedup.max.entries. */
  public static final String DEDUP_EVICTED = "dedup.evicted";
  public static final String DISPATCHED = "dispatched";
  public static final String ACKED = "acked";
  public static final String NACKED = "nacked";
  public static final String EXTENDED = "extended";
  public static final String RELEASED = "released";
  /**
   * Leases given back unseen by a client library, one counter per {@link ReturnReason}
   * ({@code returned.surplus}, {@code returned.late}, ...): granted, but no requester took them. With
   * no fault these stay near zero (decisions D50).
   */
  public static final String RETURNED_PREFIX = "returned.";
  /** Leases that ran out without ever being extended: a requester gone, or a worker that never heartbeats. */
  public static final String LEASE_EXPIRED_UNEXTENDED = "lease.expired.unextended";
  public static final String CANCELLED = "cancelled";
  /** Items deleted by a purge job (decisions D56). */
  public static final String PURGED = "purged";
  public static final String STALE_LEASE = "refused.stale_lease";
  public static final String UNKNOWN_ITEM = "refused.unknown_item";
  public static final String INVALID_COMMAND = "refused.invalid_command";
  /** Commands on an item of a namespace their sender may not act on (Command.namespaces). */
  public static final String FORBIDDEN = "refused.forbidden_namespace";
  public static final String LEASE_EXPIRED = "lease.expired";
  /** At-most-once items dropped: their lease ran out, or they were nacked or released. */
  public static final String AT_MOST_ONCE_DROPPED = "at_most_once.dropped";
  public static final String TTL_EXPIRED = "ttl.expired";
  /** Items that arrived over their namespace's admission rate or backlog limit and wait in OVERFLOW. */
  public static final String OVERFLOWED = "overflow.entered";
  /** Items admitted from OVERFLOW. */
  public static final String ADMITTED = "overflow.admitted";
  /** Ready items moved to their topic's backlog lane (their namespace's sidelineAfterMs). */
  public static final String SIDELINED = "sidelined";
  /** Ready items passed over by dispatch because their group had its concurrency limit leased. */
  public static final String GROUP_LIMITED = "group.limited";
  /**
   * Ready items passed over by dispatch because their group had no token of its rate left ({@code groupRate},
   * docs/queue.md "Group rates"): rate-limited waits, one per pass; the items wait, none is refused.
   */
  public static final String GROUP_RATE_LIMITED = "group.rate_limited";
  /** Items of an ordered group that arrived behind an older item of their group and wait their turn (D60). */
  public static final String ORDER_WAITED = "order.waited";
  public static final String DEAD_LETTERED = "dead_lettered";
  public static final String MALFORMED = "malformed";
  /**
   * Of the malformed records, those framed the Confluent way whose writer schema could not be had or
   * resolved to Ordo's (unknown schema id, incompatible schema, no registry configured).
   */
  public static final String SCHEMA_UNRESOLVED = "malformed.schema_unresolved";
  public static final String PARKED = "parked";
  public static final String REENTERED = "reentered";
  public static final String REENTRY_DROPPED = "reentry.dropped";
  public static final String DEMANDS = "demands";
  /**
   * Items indexed by index rebuilds in steps (a crash or a moved task: those not indexed in the item table's
   * own rebuild, decisions D67), and the steps.
   */
  public static final String INDEX_REBUILT_ITEMS = "index.rebuilt.items";
  public static final String INDEX_REBUILD_STEPS = "index.rebuild.steps";
  /** Tasks whose item table was rebuilt from the state log and the items topic (decisions D54). */
  public static final String ITEM_TABLE_REBUILDS = "item.table.rebuilds";
  /** Items put back into item tables by those rebuilds. */
  public static final String ITEM_TABLE_REBUILT_ITEMS = "item.table.rebuilt.items";
  /** Live items a rebuild found no record of on the items topic (deleted by its retention): lost. */
  public static final String ITEMS_LOST = "items.lost";
  /** Items moved to the cold part of the state log (old, or far behind their partition's newest). */
  public static final String COLD_ITEMS = "items.cold";
  public static final String UNROUTABLE_REPLY = "refused.unroutable_reply";
  /** Dead letters written without the raw record they came of, which would have made them too large for Kafka. */
  public static final String DEAD_LETTER_TRIMMED = "dead_letter.trimmed";
  /** Answers sent before the commit, outside the transaction (decisions D39). */
  public static final String EARLY_ANSWERS = "answers.early";
  /** Answers sent with the stream thread's transaction: visible to their requester once committed. */
  public static final String COMMITTED_ANSWERS = "answers.committed";
  /** Answers that could have gone early but the producer could not take at once: sent with the commit. */
  public static final String EARLY_ANSWER_REFUSED = "answers.early.refused";
  /** Early answers the broker did not take (the requester's wait runs out). */
  public static final String EARLY_ANSWER_FAILED = "answers.early.failed";
  /** Records Kafka refused as too large for it (skipped under at-least-once; decisions D21). */
  public static final String PRODUCE_TOO_LARGE = "produce.too_large";
  /**
   * Timer runs (ticks) of the queue's tasks. Kafka Streams commits a task after each, so a quiet task
   * takes one a second and the fine ones only while a timer is near or time-driven work waits (decisions D38).
   */
  public static final String TICKS = "ticks";

  /** Every counter above, for exporters. */
  public static final List<String> EVENTS = List.of(ENQUEUED, DUPLICATE_ENQUEUE, DEDUP_DUPLICATE, DEDUP_EXPIRED, DEDUP_EVICTED, DISPATCHED, ACKED, NACKED, EXTENDED,
      RELEASED, CANCELLED, PURGED, STALE_LEASE, UNKNOWN_ITEM, INVALID_COMMAND, FORBIDDEN, LEASE_EXPIRED, AT_MOST_ONCE_DROPPED, TTL_EXPIRED,
      OVERFLOWED, ADMITTED, SIDELINED, GROUP_LIMITED, GROUP_RATE_LIMITED, ORDER_WAITED, DEAD_LETTERED, MALFORMED, SCHEMA_UNRESOLVED, PARKED, REENTERED, REENTRY_DROPPED,
      DEMANDS, INDEX_REBUILT_ITEMS, INDEX_REBUILD_STEPS, ITEM_TABLE_REBUILDS, ITEM_TABLE_REBUILT_ITEMS, ITEMS_LOST, COLD_ITEMS, UNROUTABLE_REPLY, DEAD_LETTER_TRIMMED, PRODUCE_TOO_LARGE,
      TICKS, EARLY_ANSWERS, COMMITTED_ANSWERS, EARLY_ANSWER_REFUSED, EARLY_ANSWER_FAILED, LEASE_EXPIRED_UNEXTENDED,
      returned(ReturnReason.SURPLUS), returned(ReturnReason.LATE), returned(ReturnReason.OVER_CAPACITY),
      returned(ReturnReason.CLOSING), returned(ReturnReason.CANCELLED));

  /** The counter of leases returned unseen for {@code reason}. */
  public static String returned(ReturnReason reason) {
    return RETURNED_PREFIX + reason.name().toLowerCase(java.util.Locale.ROOT);
  }

  private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

  public void increment(String name) {
    add(name, 1);
  }

  public void add(String name, long n) {
    counters.computeIfAbsent(name, k -> new LongAdder()).add(n);
  }

  public long get(String name) {
    LongAdder a = counters.get(name);
    return a == null ? 0 : a.sum();
  }

  public Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    counters.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
