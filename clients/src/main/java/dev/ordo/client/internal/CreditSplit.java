package dev.ordo.client.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a consumer's capacity (its max in flight) over the partitions it owns: each gets
 * {@code capacity / n}, and the remainder goes one each to the partitions starting at
 * {@code rotation}, so that with fewer slots than partitions every partition is served in turn.
 */
public final class CreditSplit {
  private CreditSplit() {}

  /** Partition → share, in the order given. */
  public static Map<Integer, Integer> shares(int capacity, List<Integer> partitions, int rotation) {
    Map<Integer, Integer> shares = new LinkedHashMap<>();
    int n = partitions.size();
    if (n == 0) {
      return shares;
    }
    int base = capacity / n;
    int extra = capacity % n;
    int start = Math.floorMod(rotation, n);
    for (int i = 0; i < n; i++) {
      int offset = Math.floorMod(i - start, n);
      shares.put(partitions.get(i), base + (offset < extra ? 1 : 0));
    }
    return shares;
  }

  /**
   * How many items to ask each owned partition for: its share minus what it has in flight, but in
   * total no more than the free slots. Items still running from partitions handed over to another
   * member take slots too ({@code inFlightTotal} counts them), so right after a rebalance the credits
   * are trimmed, the largest first.
   *
   * @param inFlight items running per partition (owned or not)
   * @param inFlightTotal all items running
   */
  public static Map<Integer, Integer> credits(int capacity, List<Integer> owned, Map<Integer, Integer> inFlight,
      int inFlightTotal, int rotation) {
    Map<Integer, Integer> credits = new LinkedHashMap<>();
    int sum = 0;
    for (Map.Entry<Integer, Integer> e : shares(capacity, owned, rotation).entrySet()) {
      int credit = Math.max(0, e.getValue() - inFlight.getOrDefault(e.getKey(), 0));
      credits.put(e.getKey(), credit);
      sum += credit;
    }
    int free = Math.max(0, capacity - inFlightTotal);
    while (sum > free) {
      Map.Entry<Integer, Integer> largest = null;
      for (Map.Entry<Integer, Integer> e : credits.entrySet()) {
        if (largest == null || e.getValue() > largest.getValue()) {
          largest = e;
        }
      }
      largest.setValue(largest.getValue() - 1);
      sum--;
    }
    return credits;
  }
}
