package dev.ordo.store;

/**
 * One entry of the ready index, in dequeue order: priority, then lane (fresh before sidelined), then
 * ready time, then offset.
 */
public record ReadyEntry(int priority, boolean sidelined, long readyAt, long offset) implements Comparable<ReadyEntry> {
  /** An entry of the fresh lane. */
  public ReadyEntry(int priority, long readyAt, long offset) {
    this(priority, false, readyAt, offset);
  }

  @Override
  public int compareTo(ReadyEntry o) {
    int c = Integer.compare(priority, o.priority);
    if (c != 0) return c;
    c = Boolean.compare(sidelined, o.sidelined);
    if (c != 0) return c;
    c = Long.compare(readyAt, o.readyAt);
    return c != 0 ? c : Long.compare(offset, o.offset);
  }
}
