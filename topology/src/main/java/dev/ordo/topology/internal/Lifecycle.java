package dev.ordo.topology.internal;

import dev.ordo.schema.AttemptRecord;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.AvroCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The item life cycle as pure functions of the item, the command and {@code now}: no store, no
 * Kafka, no clock. States:
 * <ul>
 *   <li>READY: in the ready index, waiting for demand;</li>
 *   <li>DELAYED: waiting in the timer index for {@code readyAt};</li>
 *   <li>PARKED: travelling the delay tiers until a re-entry brings it back near {@code readyAt};</li>
 *   <li>OVERFLOW: over its namespace's admission rate or backlog limit, waiting to be admitted;</li>
 *   <li>LEASED: handed to a consumer until {@code leaseExpiresAt}; ack deletes it, nack or lease
 *       expiry sends it back (or to the dead letters), extend pushes the expiry out.</li>
 * </ul>
 * {@code attempts} counts deliveries: a lease increments it, a release gives it back.
 */
public final class Lifecycle {
  static {
    AvroCodec.trustOrdoSchemas(); // the copies below instantiate Ordo's generated classes
  }

  /** Attempt history kept per item, newest last. */
  static final int MAX_HISTORY = 20;

  private Lifecycle() {}

  /** A new item from the items topic, with defaults resolved: READY, DELAYED or PARKED. */
  public static StoredItem admit(Item item, long enqueuedAt, long now, QueueDefaults defaults) {
    return admit(item, enqueuedAt, now, defaults, DeliverySemantics.AT_LEAST_ONCE);
  }

  /** {@link #admit(Item, long, long, QueueDefaults)} with the semantics of items that do not say. */
  public static StoredItem admit(Item item, long enqueuedAt, long now, QueueDefaults defaults,
      DeliverySemantics defaultSemantics) {
    long lease = item.getLeaseDurationMs() != null ? item.getLeaseDurationMs() : defaults.leaseMs();
    int maxAttempts = item.getMaxAttempts() != null ? item.getMaxAttempts() : defaults.maxAttempts();
    DeliverySemantics semantics =
        item.getDeliverySemantics() != null ? item.getDeliverySemantics() : defaultSemantics;
    Long ttl = item.getTtlMs() != null ? item.getTtlMs() : defaults.ttlMs();
    StoredItem stored = StoredItem.newBuilder()
        .setItem(item)
        .setState(ItemState.READY)
        .setAttempts(0)
        .setEnqueuedAt(enqueuedAt)
        .setReadyAt(now)
        .setLeaseDurationMs(lease)
        .setMaxAttempts(maxAttempts)
        .setSemantics(semantics)
        .setExpiresAt(ttl == null ? null : enqueuedAt + ttl)
        .setHistory(new ArrayList<>())
        .build();
    Long after = item.getDeliverAfter();
    return after != null && after > now ? waitUntil(stored, after, now, defaults.parkAfterMs()) : stored;
  }

  /** Ready at {@code dueAt}: DELAYED in the store, or PARKED in the tiers when it is far enough away. */
  public static StoredItem waitUntil(StoredItem s, long dueAt, long now, long parkAfterMs) {
    if (dueAt <= now) {
      return copy(s).setState(ItemState.READY).setReadyAt(dueAt).build();
    }
    ItemState state = dueAt - now >= parkAfterMs ? ItemState.PARKED : ItemState.DELAYED;
    return copy(s).setState(state).setReadyAt(dueAt).build();
  }

  /**
   * An item that arrived over its namespace's admission rate or backlog limit: kept as it is, due
   * time included, but not dispatchable until {@link #admitted}.
   */
  public static StoredItem overflow(StoredItem s) {
    return copy(s).setState(ItemState.OVERFLOW).build();
  }

  /** An OVERFLOW item admitted: READY when its due time has passed (keeping it), else DELAYED or PARKED. */
  public static StoredItem admitted(StoredItem s, long now, long parkAfterMs) {
    return waitUntil(s, s.getReadyAt(), now, parkAfterMs);
  }

  /** A DELAYED item whose time came. */
  public static StoredItem due(StoredItem s) {
    return copy(s).setState(ItemState.READY).build();
  }

  /** A PARKED item back from the tiers: ready at once if due, else DELAYED for the last stretch. */
  public static StoredItem reenter(StoredItem s, long dueAt, long now) {
    ItemState state = dueAt <= now ? ItemState.READY : ItemState.DELAYED;
    return copy(s).setState(state).setReadyAt(dueAt).build();
  }

  /** Hands a READY item out on a new lease. */
  public static StoredItem lease(StoredItem s, String leaseId, Requester holder, long now) {
    return copy(s)
        .setState(ItemState.LEASED)
        .setSidelined(false) // when it comes back it is fresh again, until it waits too long again
        .setAttempts(s.getAttempts() + 1)
        .setLeaseId(leaseId)
        .setLeasedAt(now)
        .setLeaseExpiresAt(now + s.getLeaseDurationMs())
        .setLeaseHolder(holder)
        .build();
  }

  /**
   * A READY item that has waited longer than its namespace's {@code sidelineAfterMs} moves to its
   * topic's backlog lane: still READY, same priority and ready time, served after the fresh lane's
   * items of its priority.
   */
  public static StoredItem sideline(StoredItem s) {
    if (s.getState() != ItemState.READY) {
      throw new IllegalStateException("only a READY item is sidelined, not a " + s.getState() + " one");
    }
    return copy(s).setSidelined(true).build();
  }

  /** True when {@code leaseId} is the item's current lease. */
  public static boolean holds(StoredItem s, String leaseId) {
    return s.getState() == ItemState.LEASED && leaseId != null && leaseId.equals(s.getLeaseId());
  }

  public static StoredItem extend(StoredItem s, long leaseDurationMs, long now) {
    return copy(s).setLeaseExpiresAt(now + leaseDurationMs).build();
  }

  /**
   * A release: an at-least-once item is READY again ({@link #release}); an at-most-once one is
   * dropped, since it was handed out and nobody can prove it was not acted on.
   */
  public static Decision released(StoredItem s, long now) {
    if (s.getSemantics() == DeliverySemantics.AT_MOST_ONCE) {
      return new Decision.Drop(AT_MOST_ONCE_GONE);
    }
    return new Decision.Keep(release(s, now));
  }

  /**
   * A lease given back unseen ({@code Release.returned}): a client library never handed the item to
   * its application, so the lease is undone as if never granted: READY again at its old place, the
   * attempt given back, nothing added to its history, and an at-most-once item kept, since it was
   * never delivered.
   */
  public static StoredItem returned(StoredItem s) {
    return clearLease(copy(s)).setState(ItemState.READY).setAttempts(Math.max(0, s.getAttempts() - 1)).build();
  }

  /** What the outcome of a nack or release says when it dropped an at-most-once item. */
  public static final String AT_MOST_ONCE_GONE = "at-most-once item dropped: it is never delivered again";

  /** Given back unused: READY again at its old place, the delivery not counted. */
  public static StoredItem release(StoredItem s, long now) {
    List<AttemptRecord> history = withAttempt(s, now, "RELEASED", null);
    return clearLease(copy(s)).setState(ItemState.READY).setAttempts(Math.max(0, s.getAttempts() - 1))
        .setHistory(history).build();
  }

  /**
   * A nack: dead letters when asked or when the attempts are used up, else ready again after
   * {@code delayMs} with new metadata when given. An at-most-once item is never delivered again:
   * dropped, or dead-lettered when asked.
   */
  public static Decision nack(StoredItem s, long delayMs, ByteBuffer metadata, String error, boolean deadLetter,
      long now, long parkAfterMs) {
    if (s.getSemantics() == DeliverySemantics.AT_MOST_ONCE && !deadLetter) {
      return new Decision.Drop(AT_MOST_ONCE_GONE);
    }
    List<AttemptRecord> history = withAttempt(s, now, "NACK", error);
    StoredItem.Builder b = clearLease(copy(s)).setHistory(history);
    if (metadata != null) {
      Item item = Item.newBuilder(s.getItem()).setMetadata(metadata).build();
      b.setItem(item);
    }
    StoredItem failed = b.build();
    if (deadLetter) {
      return new Decision.DeadLetter(failed, DeadLetterReason.REJECTED, error == null ? "rejected by the consumer" : error);
    }
    if (s.getAttempts() >= s.getMaxAttempts()) {
      return new Decision.DeadLetter(failed, DeadLetterReason.MAX_ATTEMPTS,
          "nacked on attempt " + s.getAttempts() + " of " + s.getMaxAttempts());
    }
    if (delayMs > 0) {
      return new Decision.Keep(waitUntil(failed, now + delayMs, now, parkAfterMs));
    }
    return new Decision.Keep(copy(failed).setState(ItemState.READY).build());
  }

  /** The lease ran out: at-most-once items are dropped, at-least-once ones redelivered or dead-lettered. */
  public static Decision leaseExpired(StoredItem s, long now, long redeliveryDelayMs, long parkAfterMs) {
    if (s.getSemantics() == DeliverySemantics.AT_MOST_ONCE) {
      return new Decision.Drop("at-most-once lease expired");
    }
    List<AttemptRecord> history = withAttempt(s, now, "LEASE_EXPIRED", "lease expired");
    StoredItem failed = clearLease(copy(s)).setHistory(history).build();
    if (s.getAttempts() >= s.getMaxAttempts()) {
      return new Decision.DeadLetter(failed, DeadLetterReason.MAX_ATTEMPTS,
          "lease expired on attempt " + s.getAttempts() + " of " + s.getMaxAttempts());
    }
    if (redeliveryDelayMs > 0) {
      return new Decision.Keep(waitUntil(failed, now + redeliveryDelayMs, now, parkAfterMs));
    }
    return new Decision.Keep(copy(failed).setState(ItemState.READY).build());
  }

  private static List<AttemptRecord> withAttempt(StoredItem s, long now, String outcome, String error) {
    List<AttemptRecord> history = new ArrayList<>(s.getHistory());
    history.add(new AttemptRecord(s.getAttempts(), s.getLeasedAt() == null ? now : s.getLeasedAt(), now, outcome, error));
    while (history.size() > MAX_HISTORY) {
      history.remove(0);
    }
    return history;
  }

  private static StoredItem.Builder clearLease(StoredItem.Builder b) {
    return b.setLeaseId(null).setLeasedAt(null).setLeaseExpiresAt(null).setLeaseHolder(null);
  }

  /**
   * A builder holding {@code s}'s fields, the item itself and the other nested values shared, not
   * copied: stored items are values here (every change makes a new one, and nothing changes an item,
   * its payload, its holder or its history in place), as the store's decoded-items cache already
   * assumes. Avro's {@code newBuilder(StoredItem)} deep-copied every field, the payload included, on
   * every transition (a lease, a nack, an extension). Every field of the schema is set, so {@code
   * build()} copies no default in; {@code LifecycleTest} fails when a field is added and not carried.
   */
  static StoredItem.Builder copy(StoredItem s) {
    return StoredItem.newBuilder()
        .setItem(s.getItem())
        .setState(s.getState())
        .setAttempts(s.getAttempts())
        .setEnqueuedAt(s.getEnqueuedAt())
        .setReadyAt(s.getReadyAt())
        .setLeaseDurationMs(s.getLeaseDurationMs())
        .setMaxAttempts(s.getMaxAttempts())
        .setSemantics(s.getSemantics())
        .setExpiresAt(s.getExpiresAt())
        .setLeaseId(s.getLeaseId())
        .setLeasedAt(s.getLeasedAt())
        .setLeaseExpiresAt(s.getLeaseExpiresAt())
        .setLeaseHolder(s.getLeaseHolder())
        .setSidelined(s.getSidelined())
        .setSlot(s.getSlot())
        .setFlat(s.getFlat())
        .setHistory(s.getHistory())
        .setOrdered(s.getOrdered());
  }
}
