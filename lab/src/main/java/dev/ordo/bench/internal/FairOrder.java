package dev.ordo.bench.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the fairness scenario reads from the order in which one partition dispatched its items
 * ({@link DispatchLog}): how many items went out before each of Alice's, and the share of each
 * weighted group. Pure.
 *
 * <p>Counting: the {@code k}-th entry of the order (from 0) is the {@code k}-th item the partition
 * dispatched since the part started; an item dispatched twice (released and dispatched again) is
 * two entries, as the queue's {@code dispatched} counter counts it, and only its first counts as
 * its dispatch.
 */
public final class FairOrder {
  private FairOrder() {}

  /** One item handed out, identified by its group key and its sequence number within the group's producer. */
  public record Dispatch(String groupKey, long sequence, long leaseExpiresAt) {
    /** A dispatch whose lease expiry is not known (-1). */
    public Dispatch(String groupKey, long sequence) {
      this(groupKey, sequence, -1);
    }
  }

  /**
   * One of Alice's items as the bench sent it, with dispatch counts relative to the start of the
   * order: {@code dispatchedAtEnqueue} items had been dispatched when she enqueued it; when the
   * queue took it in, at least {@code arrivalAtLeast} and at most {@code arrivalAtMost} had been
   * ({@link ArrivalWatch}).
   */
  public record Sent(long sequence, long dispatchedAtEnqueue, long arrivalAtLeast, long arrivalAtMost) {}

  /**
   * One of Alice's items in the order: {@code position} items were dispatched before it;
   * {@code sinceEnqueue} of them after she enqueued it (its transit from the producer to the
   * queue's stream thread included); between {@code afterArrivalAtLeast} and
   * {@code afterArrivalAtMost} of them after its turn began: after the queue took it in, or after
   * her previous item was dispatched if that was later (the ready item waiting its turn);
   * {@code behindBacklog}: Bob still had an item not dispatched when she enqueued it.
   */
  public record Turn(long sequence, long position, long sinceEnqueue, long afterArrivalAtLeast,
      long afterArrivalAtMost, boolean behindBacklog) {}

  /**
   * Over Alice's items enqueued behind Bob's backlog ({@code items}): the items dispatched before
   * each after the queue took it in (p50, p99 and max of its upper bound; the max of its lower
   * bound), and since she enqueued it (p99, max).
   */
  public record TurnSummary(int items, double afterArrivalP50, double afterArrivalP99, long afterArrivalMax,
      long afterArrivalAtLeastMax, double sinceEnqueueP99, long sinceEnqueueMax) {}

  /** A weighted pair's dispatches while both had items: the first dispatches of each group. */
  public record Share(long heavy, long light) {
    /** Heavy over light; NaN when light got none. */
    public double ratio() {
      return light == 0 ? Double.NaN : (double) heavy / light;
    }
  }

  /**
   * Alice's items (those of {@code sent} that appear in {@code order}) with their positions and
   * counts; an item not in the order (not dispatched) is left out.
   */
  public static List<Turn> turns(List<Dispatch> order, String aliceKey, String bobKey, List<Sent> sent) {
    Map<Long, Long> firstOfAlice = new HashMap<>();
    Set<Long> bobSeen = new HashSet<>();
    long lastBob = -1;
    for (int k = 0; k < order.size(); k++) {
      Dispatch d = order.get(k);
      if (d.groupKey() == null) {
        continue;
      }
      if (d.groupKey().equals(aliceKey)) {
        firstOfAlice.putIfAbsent(d.sequence(), (long) k);
      } else if (d.groupKey().equals(bobKey) && bobSeen.add(d.sequence())) {
        lastBob = k;
      }
    }
    List<Turn> out = new ArrayList<>();
    for (Sent s : sent) {
      Long k = firstOfAlice.get(s.sequence());
      if (k == null) {
        continue;
      }
      // Bob's last item is entry lastBob: it was not dispatched yet while at most lastBob entries were.
      boolean behind = s.dispatchedAtEnqueue() <= lastBob;
      // Its turn starts when the queue took it in or when her previous item went, whichever is later:
      // items of hers taken in together (one poll) each wait for her earlier ones and for one of Bob's
      // between them, which is the round-robin, not a place lost to him.
      Long previous = firstOfAlice.get(s.sequence() - 1);
      long turnAtLeast = previous == null ? s.arrivalAtLeast() : Math.max(s.arrivalAtLeast(), previous + 1);
      long turnAtMost = previous == null ? s.arrivalAtMost() : Math.max(s.arrivalAtMost(), previous + 1);
      out.add(new Turn(s.sequence(), k, k - s.dispatchedAtEnqueue(), Math.max(0, k - turnAtMost),
          Math.max(0, k - turnAtLeast), behind));
    }
    return out;
  }

  /** The summary of the turns behind the backlog; NaN and 0 when there are none. */
  public static TurnSummary summary(List<Turn> turns) {
    List<Turn> behind = turns.stream().filter(Turn::behindBacklog).toList();
    long[] after = behind.stream().mapToLong(Turn::afterArrivalAtMost).sorted().toArray();
    long[] atLeast = behind.stream().mapToLong(Turn::afterArrivalAtLeast).sorted().toArray();
    long[] since = behind.stream().mapToLong(Turn::sinceEnqueue).sorted().toArray();
    return new TurnSummary(behind.size(), Stats.percentile(after, 50), Stats.percentile(after, 99), max(after),
        max(atLeast),
        Stats.percentile(since, 99), max(since));
  }

  /**
   * The first dispatches of {@code heavyKey} and {@code lightKey} in {@code order} up to and with
   * the one that dispatched the last of either group's {@code perGroup} items: the stretch while
   * both had items ready.
   */
  public static Share share(List<Dispatch> order, String heavyKey, String lightKey, long perGroup) {
    Set<Long> heavy = new HashSet<>();
    Set<Long> light = new HashSet<>();
    for (Dispatch d : order) {
      if (heavyKey.equals(d.groupKey())) {
        heavy.add(d.sequence());
      } else if (lightKey.equals(d.groupKey())) {
        light.add(d.sequence());
      }
      if (heavy.size() >= perGroup || light.size() >= perGroup) {
        break;
      }
    }
    return new Share(heavy.size(), light.size());
  }

  private static long max(long[] sorted) {
    return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
  }

  /** An order from group keys, the sequence of each counted per group from 0 (for tests). */
  static List<Dispatch> of(String... groupKeys) {
    Map<String, Long> next = new HashMap<>();
    return Arrays.stream(groupKeys).map(g -> new Dispatch(g, next.merge(g, 1L, Long::sum) - 1)).toList();
  }
}
