package dev.ordo.bench.internal;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the lease consumers' handler saw in the fairness scenario, by group key: the distinct items
 * of each group it got (an item counts once, by its sequence number, however often it is
 * delivered), when it got the first and the last of them, and for the groups asked for, each
 * item's wait from its enqueue (the payload's stamp) to its first delivery to the handler.
 * Thread-safe.
 */
final class GroupRecorder {
  private final Set<String> timed;
  private final Map<String, Group> groups = new HashMap<>();

  /** Records the waits of the items of {@code timed} groups; only counts the others'. */
  GroupRecorder(Set<String> timed) {
    this.timed = Set.copyOf(timed);
  }

  /** The handler got item {@code sequence} of {@code groupKey}, stamped {@code stampNanos}, at {@code nowNanos}. */
  synchronized void delivered(String groupKey, long sequence, long stampNanos, long nowNanos) {
    Group g = groups.computeIfAbsent(String.valueOf(groupKey), k -> new Group(timed.contains(k)));
    int i = Math.toIntExact(sequence);
    if (g.seen.get(i)) {
      return;
    }
    g.seen.set(i);
    if (g.first == 0) {
      g.first = nowNanos;
    }
    g.last = nowNanos;
    if (g.waits != null) {
      if (i >= g.waits.length) {
        g.waits = Arrays.copyOf(g.waits, Math.max(i + 1, g.waits.length * 2));
      }
      g.waits[i] = nowNanos - stampNanos;
    }
  }

  /** The distinct items of {@code groupKey} delivered. */
  synchronized long delivered(String groupKey) {
    Group g = groups.get(groupKey);
    return g == null ? 0 : g.seen.cardinality();
  }

  /** The wait (ns) of item {@code sequence} of a timed group; -1 when it was not delivered. */
  synchronized long waitNanos(String groupKey, long sequence) {
    Group g = groups.get(groupKey);
    if (g == null || g.waits == null || sequence >= g.waits.length || !g.seen.get(Math.toIntExact(sequence))) {
      return -1;
    }
    return g.waits[(int) sequence];
  }

  /** Seconds from the first to the last first delivery of {@code groupKey}'s items; NaN for fewer than two. */
  synchronized double spanSeconds(String groupKey) {
    Group g = groups.get(groupKey);
    return g == null || g.seen.cardinality() < 2 ? Double.NaN : (g.last - g.first) / 1e9;
  }

  private static final class Group {
    final BitSet seen = new BitSet();
    long[] waits;
    long first;
    long last;

    Group(boolean timed) {
      waits = timed ? new long[256] : null;
    }
  }
}
