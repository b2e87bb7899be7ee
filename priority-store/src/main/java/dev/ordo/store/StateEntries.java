package dev.ordo.store;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.StoredItem;
import java.util.Objects;

/**
 * A stored item as the state log keeps it ({@link ItemStateEntry}: every field but the item, and the
 * item's metadata, the one field of it a nack changes) and back, with the item from its record on
 * the items topic. {@code StateEntriesTest} fails when a field of {@code StoredItem} is not carried.
 */
final class StateEntries {
  private StateEntries() {}

  static ItemStateEntry entryOf(long offset, StoredItem s) {
    return ItemStateEntry.newBuilder()
        .setOffset(offset)
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
        .setMetadata(s.getItem().getMetadata())
        .build();
  }

  /**
   * The stored item of {@code e}, with {@code record} (the item as its record on the items topic has
   * it, decoded for this call: its metadata is replaced in place when the entry's differs).
   */
  static StoredItem itemOf(ItemStateEntry e, Item record) {
    if (!Objects.equals(record.getMetadata(), e.getMetadata())) {
      record.setMetadata(e.getMetadata());
    }
    return StoredItem.newBuilder()
        .setItem(record)
        .setState(e.getState())
        .setAttempts(e.getAttempts())
        .setEnqueuedAt(e.getEnqueuedAt())
        .setReadyAt(e.getReadyAt())
        .setLeaseDurationMs(e.getLeaseDurationMs())
        .setMaxAttempts(e.getMaxAttempts())
        .setSemantics(e.getSemantics())
        .setExpiresAt(e.getExpiresAt())
        .setLeaseId(e.getLeaseId())
        .setLeasedAt(e.getLeasedAt())
        .setLeaseExpiresAt(e.getLeaseExpiresAt())
        .setLeaseHolder(e.getLeaseHolder())
        .setSidelined(e.getSidelined())
        .setSlot(e.getSlot())
        .setFlat(e.getFlat())
        .setHistory(e.getHistory())
        .build();
  }
}
