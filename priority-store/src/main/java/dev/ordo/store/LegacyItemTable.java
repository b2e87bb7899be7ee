package dev.ordo.store;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The item table as a version before the state log kept it (changelogged, decisions D54), for the
 * one-time migration of a partition whose state store was never written: its records are restored
 * into the (now local) item table, which {@link PriorityStore#open} then takes as the truth and
 * copies into the state log.
 */
@FunctionalInterface
public interface LegacyItemTable {
  /** Writes the old changelog's latest value of every key into {@code table} (a null value: none); nothing when there is none. */
  void restoreInto(KeyValueStore<Bytes, byte[]> table);

  /** No older table anywhere (tests, tools, a cluster that never ran a version before D54). */
  LegacyItemTable NONE = table -> {};
}
