package dev.ordo.client.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A dequeue's exact rounds of once demands (decisions D50): what each partition of the current round was
 * asked, has sent and said it granted, how many rounds were asked, when the current one was sent and when,
 * unsettled, it gives way to a long poll. Pure: time is an argument. Guarded by its
 * {@link PendingDequeue}'s lock.
 */
final class OnceRound {
  /** What one partition of an exact round was asked, has sent, and said it granted (-1: not said). */
  private static final class OnceAsk {
    final Map<String, Integer> counts;
    final int asked;
    int received;
    int granted = -1;

    OnceAsk(Map<String, Integer> counts) {
      this.counts = counts;
      this.asked = counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Everything the partition will send has come: all it was asked, or all it said it granted. */
    boolean settled() {
      return granted >= 0 ? received >= granted : received >= asked;
    }
  }

  /** The current exact round, by partition. */
  private final Map<Integer, OnceAsk> asks = new HashMap<>();
  private int rounds;
  /** When the current exact round, unsettled, gives way to a long poll. */
  private long endsAt;
  /** When the current round's demands were sent. */
  private long plannedAt;

  /** Exact rounds asked so far. */
  int rounds() {
    return rounds;
  }

  /** A new round of once demands, {@code asks} by partition, was sent at {@code now}. */
  void asked(Map<Integer, Map<String, Integer>> asks, long now, long roundTimeoutMs) {
    rounds++;
    this.asks.clear();
    asks.forEach((p, counts) -> this.asks.put(p, new OnceAsk(counts)));
    plannedAt = now;
    endsAt = now + roundTimeoutMs;
  }

  /** A once demand for {@code counts} was sent to {@code partition} within the current round. */
  void askedMore(int partition, Map<String, Integer> counts) {
    asks.put(partition, new OnceAsk(counts));
  }

  /** A long poll started at {@code now}: a round past its time is not {@link #overdue} again. */
  void longPolled(long now) {
    if (now >= endsAt) {
      endsAt = Long.MAX_VALUE;
    }
  }

  /** Stops waiting for what {@code partitions} were asked. */
  void abandon(Set<Integer> partitions) {
    asks.keySet().removeAll(partitions);
  }

  /** Partitions whose once demand has items on their way. */
  Set<Integer> awaiting() {
    Set<Integer> out = new TreeSet<>();
    asks.forEach((p, ask) -> {
      if (!ask.settled()) {
        out.add(p);
      }
    });
    return out;
  }

  /** True while a partition asked once has not sent all it will send. */
  boolean outstanding() {
    for (OnceAsk ask : asks.values()) {
      if (!ask.settled()) {
        return true;
      }
    }
    return false;
  }

  /** True when the current round is unsettled past its time. */
  boolean overdue(long now) {
    return rounds > 0 && now >= endsAt && outstanding();
  }

  /** {@code still}, less what the asked partitions still owe (by the keys they were asked for): changed in place. */
  void subtractOwed(Map<String, Integer> still) {
    for (OnceAsk ask : asks.values()) {
      int owed = (ask.granted >= 0 ? ask.granted : ask.asked) - ask.received;
      for (Map.Entry<String, Integer> e : ask.counts.entrySet()) {
        if (owed <= 0) {
          break;
        }
        int left = still.getOrDefault(e.getKey(), 0);
        int take = Math.min(owed, Math.min(left, e.getValue()));
        if (take > 0) {
          owed -= take;
          if (left - take > 0) {
            still.put(e.getKey(), left - take);
          } else {
            still.remove(e.getKey());
          }
        }
      }
    }
  }

  /**
   * {@code partition} answered that it granted {@code granted} items (-1: it did not say, then what it
   * sent so far counts).
   *
   * @return the keys it was asked for when it granted fewer than asked, else an empty set
   */
  Set<String> answered(int partition, int granted) {
    OnceAsk ask = asks.get(partition);
    if (ask == null) {
      return Set.of();
    }
    ask.granted = granted >= 0 ? granted : ask.received;
    return ask.granted < ask.asked ? ask.counts.keySet() : Set.of();
  }

  /** An item came from {@code partition}: true if it is one its unsettled once demand was waiting for. */
  boolean received(int partition) {
    OnceAsk ask = asks.get(partition);
    if (ask != null && !ask.settled()) {
      ask.received++;
      return true;
    }
    return false;
  }

  /** How long ago at {@code now} the last round was sent; -1 when none was. */
  long answerTime(long now) {
    return rounds > 0 ? Math.max(0, now - plannedAt) : -1;
  }
}
