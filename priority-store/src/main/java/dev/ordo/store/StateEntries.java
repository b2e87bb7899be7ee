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

  // The all-args constructors, not the builders: a builder checks every field as it is set and
  // again when built, and this runs for every change of every item (a block entry, a read joined).

  static ItemStateEntry entryOf(long offset, StoredItem s) {
    return new ItemStateEntry(offset, s.getState(), s.getAttempts(), s.getEnqueuedAt(), s.getReadyAt(),
        s.getLeaseDurationMs(), s.getMaxAttempts(), s.getSemantics(), s.getExpiresAt(), s.getLeaseId(),
        s.getLeasedAt(), s.getLeaseExpiresAt(), s.getLeaseHolder(), s.getSidelined(), s.getSlot(), s.getFlat(),
        s.getHistory(), s.getItem().getMetadata(), s.getOrdered());
  }

  /**
   * The stored item of {@code e}, with {@code record} (the item as its record on the items topic has
   * it, decoded for this call: its metadata is replaced in place when the entry's differs).
   */
  static StoredItem itemOf(ItemStateEntry e, Item record) {
    if (!Objects.equals(record.getMetadata(), e.getMetadata())) {
      record.setMetadata(e.getMetadata());
    }
    return new StoredItem(record, e.getState(), e.getAttempts(), e.getEnqueuedAt(), e.getReadyAt(),
        e.getLeaseDurationMs(), e.getMaxAttempts(), e.getSemantics(), e.getExpiresAt(), e.getLeaseId(),
        e.getLeasedAt(), e.getLeaseExpiresAt(), e.getLeaseHolder(), e.getSidelined(), e.getSlot(), e.getFlat(),
        e.getHistory(), e.getOrdered());
  }
}
