package dev.ordo.store;

/** One entry of the ready index, in dequeue order: priority, then ready time, then offset. */
public record ReadyEntry(int priority, long readyAt, long offset) implements Comparable<ReadyEntry> {
  @Override
  public int compareTo(ReadyEntry o) {
    int c = Integer.compare(priority, o.priority);
    if (c != 0) return c;
    c = Long.compare(readyAt, o.readyAt);
    return c != 0 ? c : Long.compare(offset, o.offset);
  }
}
