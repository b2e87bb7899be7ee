package dev.ordo.store;

/**
 * One entry of the ready index, in dequeue order: priority, then lane (fresh before sidelined), then
 * fair-queueing slot, then ready time, then offset.
 */
public record ReadyEntry(int priority, boolean sidelined, long slot, long readyAt, long offset)
    implements Comparable<ReadyEntry> {
  /** An entry of the fresh lane at slot 0. */
  public ReadyEntry(int priority, long readyAt, long offset) {
    this(priority, false, 0, readyAt, offset);
  }

  /** An entry at slot 0. */
  public ReadyEntry(int priority, boolean sidelined, long readyAt, long offset) {
    this(priority, sidelined, 0, readyAt, offset);
  }

  @Override
  public int compareTo(ReadyEntry o) {
    int c = Integer.compare(priority, o.priority);
    if (c != 0) return c;
    c = Boolean.compare(sidelined, o.sidelined);
    if (c != 0) return c;
    c = Long.compare(slot, o.slot);
    if (c != 0) return c;
    c = Long.compare(readyAt, o.readyAt);
    return c != 0 ? c : Long.compare(offset, o.offset);
  }
}
