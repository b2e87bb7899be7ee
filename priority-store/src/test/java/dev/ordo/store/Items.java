package dev.ordo.store;

import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.nio.ByteBuffer;
import java.util.ArrayList;

/** Builds stored items in a given state, as the topology's life cycle would leave them. */
public final class Items {
  private Items() {}

  public static StoredItem ready(String ns, String topic, int priority, long readyAt) {
    return stored(ns, topic, priority, ItemState.READY, readyAt, null, null, new byte[16]);
  }

  /**
   * @param readyAt ready time; for DELAYED the DUE timer
   * @param leaseExpiresAt the LEASE timer; only read when LEASED
   * @param expiresAt the TTL timer, or null
   */
  public static StoredItem stored(String ns, String topic, int priority, ItemState state, long readyAt,
      Long leaseExpiresAt, Long expiresAt, byte[] payload) {
    Item item = Item.newBuilder()
        .setNamespace(ns)
        .setTopic(topic)
        .setPriority(priority)
        .setPayload(ByteBuffer.wrap(payload))
        .build();
    StoredItem.Builder b = StoredItem.newBuilder()
        .setItem(item)
        .setState(state)
        .setAttempts(state == ItemState.LEASED ? 1 : 0)
        .setEnqueuedAt(readyAt)
        .setReadyAt(readyAt)
        .setLeaseDurationMs(30_000)
        .setMaxAttempts(5)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE)
        .setExpiresAt(expiresAt)
        .setHistory(new ArrayList<>());
    if (state == ItemState.LEASED) {
      b.setLeaseId("lease").setLeasedAt(readyAt).setLeaseExpiresAt(leaseExpiresAt);
    }
    return b.build();
  }

  /** {@code s} LEASED until {@code leaseExpiresAt}, as {@code Lifecycle.lease} makes it. */
  public static StoredItem leased(StoredItem s, long leaseExpiresAt) {
    return StoredItem.newBuilder(s)
        .setState(ItemState.LEASED)
        .setAttempts(s.getAttempts() + 1)
        .setLeaseId("lease-" + (s.getAttempts() + 1))
        .setLeasedAt(leaseExpiresAt - s.getLeaseDurationMs())
        .setLeaseExpiresAt(leaseExpiresAt)
        .build();
  }
}
