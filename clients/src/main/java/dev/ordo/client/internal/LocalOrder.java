package dev.ordo.client.internal;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The order in which a lease consumer's leased items wait for a worker thread: lower priority
 * numbers first, then start-time fair queueing over group keys (the queue's own rule, docs/queue.md),
 * then arrival. Within a priority, an item's slot is {@code max(its group's last slot + 1, the virtual
 * time)}, and the virtual time is the largest slot a worker has started at that priority; an item
 * without a group key is a group of its own (slot = the virtual time). So an item of a group that has nothing waiting here is next in
 * line among its priority, however many items of another group were leased before it: Alice's one
 * item does not wait behind the thousands of Bob's this consumer holds (decisions D36).
 *
 * <p>Per-group state lives only while the group has items waiting; a virtual time per priority seen. Thread-safe: {@link #admit} runs on
 * the poll thread, {@link #started} on the workers.
 */
public final class LocalOrder {
  /** An item's place: compare with {@link #COMPARATOR}. */
  public record Ticket(int priority, long slot, long sequence, String group) {}

  public static final Comparator<Ticket> COMPARATOR = Comparator.comparingInt(Ticket::priority)
      .thenComparingLong(Ticket::slot)
      .thenComparingLong(Ticket::sequence);

  /** {last slot, items waiting} per (priority, group key) with items waiting. */
  private final Map<GroupKey, long[]> groups = new HashMap<>();
  /** Per priority, the largest slot a worker has started. */
  private final Map<Integer, Long> virtualTimes = new HashMap<>();
  private long sequence;

  private record GroupKey(int priority, String group) {}

  /** The place of an item that starts waiting. */
  public synchronized Ticket admit(int priority, String group) {
    long slot = virtualTimes.getOrDefault(priority, 0L);
    if (group != null) {
      long[] g = groups.get(new GroupKey(priority, group));
      if (g == null) {
        g = new long[2];
        groups.put(new GroupKey(priority, group), g);
      } else {
        slot = Math.max(g[0] + 1, slot);
      }
      g[0] = slot;
      g[1]++;
    }
    return new Ticket(priority, slot, sequence++, group);
  }

  /** A worker took the item: its priority's virtual time moves up to its slot, its group forgets it. */
  public synchronized void started(Ticket t) {
    virtualTimes.merge(t.priority(), t.slot(), Math::max);
    forget(t);
  }

  /** The item will never start (the consumer closed): its group forgets it. */
  public synchronized void dropped(Ticket t) {
    forget(t);
  }

  private void forget(Ticket t) {
    if (t.group() == null) {
      return;
    }
    GroupKey key = new GroupKey(t.priority(), t.group());
    long[] g = groups.get(key);
    if (g != null && --g[1] <= 0) {
      groups.remove(key);
    }
  }

  /** Groups with items waiting (tests). */
  public synchronized int groupsWaiting() {
    return groups.size();
  }
}
