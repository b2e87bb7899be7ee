package dev.ordo.client.internal;

import dev.ordo.api.ItemId;
import dev.ordo.client.GiveBackReason;
import dev.ordo.client.QueueItem;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Release;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases nobody waits on, fire and forget: leases given back unseen ({@code Release.returned}: the
 * queue undoes the lease as if never granted, so an at-most-once item is ready again rather than
 * dropped), counted by {@link GiveBackReason}; and the plain release of an item its handler saw.
 * Owns the counts. Thread-safe.
 */
public final class GiveBacks {
  private static final Logger log = LoggerFactory.getLogger(GiveBacks.class);

  private final RequestChannel channel;
  private final Time time;
  private final Map<GiveBackReason, LongAdder> givenBack = new EnumMap<>(
      Map.of(GiveBackReason.SURPLUS, new LongAdder(),
          GiveBackReason.LATE, new LongAdder(),
          GiveBackReason.OVER_CAPACITY, new LongAdder(),
          GiveBackReason.CLOSING, new LongAdder(),
          GiveBackReason.CANCELLED, new LongAdder()));

  public GiveBacks(RequestChannel channel, Time time) {
    this.channel = channel;
    this.time = time;
  }

  /** Leases given back unseen, by reason, since start. */
  public Map<GiveBackReason, Long> counts() {
    Map<GiveBackReason, Long> out = new EnumMap<>(GiveBackReason.class);
    givenBack.forEach((r, n) -> out.put(r, n.sum()));
    return out;
  }

  /**
   * Gives back the lease of an item nobody was handed, counted by {@code reason}. Only for items the
   * library never gave its caller or handler.
   */
  public void giveBack(DeliveredItem item, GiveBackReason reason) {
    givenBack.get(reason).increment();
    ItemId id = ItemId.parse(item.getItemId());
    // Near zero when nothing fails (decisions D50): each one is worth a line.
    log.info("Giving back item {} (lease {}, attempt {}) unseen: {}", id, item.getLeaseId(), item.getAttempt(), reason);
    send(id, new Release(id.toString(), item.getLeaseId(), PublicTypes.reason(reason)),
        "Could not give back item {}; it returns when its lease runs out");
  }

  /**
   * Gives back the leases of items a caller took for its own callers and never handed on, counted by
   * {@code reason}, with one log line for all. Only for items nobody was handed.
   */
  public void giveBackUnseen(List<QueueItem> items, GiveBackReason reason) {
    if (items.isEmpty()) {
      return;
    }
    givenBack.get(reason).add(items.size());
    log.debug("Giving back {} items unseen: {}", items.size(), reason);
    for (QueueItem item : items) {
      ItemId id = item.id();
      send(id, new Release(id.toString(), item.leaseId(), PublicTypes.reason(reason)),
          "Could not give back item {}; it returns when its lease runs out");
    }
  }

  /** Releases an item its application saw (a plain release: an at-most-once item is dropped), telling nobody. */
  public void releaseQuietly(DeliveredItem item) {
    ItemId id = ItemId.parse(item.getItemId());
    send(id, new Release(id.toString(), item.getLeaseId(), null),
        "Could not release item {}; it returns when its lease runs out");
  }

  /** Sends {@code release} without a requester (no answer comes); a failure is logged as {@code failed}. */
  private void send(ItemId id, Release release, String failed) {
    channel.send(Commands.forItem(channel.topics(), id.partition(), id.toString(), null, time.milliseconds(),
        release, false))
        .whenComplete((m, e) -> {
          if (e != null) {
            log.warn(failed, id, e);
          }
        });
  }
}
