package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CreditSplitTest {
  @Test
  void splitsCapacityEvenlyAndRotatesTheRemainder() {
    assertEquals(Map.of(0, 3, 1, 3, 2, 2, 3, 2), CreditSplit.shares(10, List.of(0, 1, 2, 3), 0));
    assertEquals(Map.of(0, 2, 1, 3, 2, 3, 3, 2), CreditSplit.shares(10, List.of(0, 1, 2, 3), 1));
    assertEquals(Map.of(0, 0, 1, 0, 2, 1, 3, 0), CreditSplit.shares(1, List.of(0, 1, 2, 3), 2));
    assertEquals(Map.of(), CreditSplit.shares(5, List.of(), 0));
  }

  @Test
  void everyPartitionIsServedInTurnWhenSlotsAreFewerThanPartitions() {
    int[] served = new int[6];
    for (int r = 0; r < 6; r++) {
      CreditSplit.shares(2, List.of(0, 1, 2, 3, 4, 5), r).forEach((p, s) -> served[p] += s);
    }
    for (int s : served) {
      assertEquals(2, s);
    }
  }

  @Test
  void creditsNeverExceedTheFreeSlotsNorAPartitionsShare() {
    Random random = new Random(11);
    for (int round = 0; round < 5_000; round++) {
      int capacity = 1 + random.nextInt(20);
      List<Integer> owned = new ArrayList<>();
      for (int p = 0; p < 8; p++) {
        if (random.nextBoolean()) {
          owned.add(p);
        }
      }
      Map<Integer, Integer> inFlight = new HashMap<>();
      int total = 0;
      for (int p = 0; p < 8 && total < capacity; p++) {
        int n = random.nextInt(capacity - total + 1);
        inFlight.put(p, n);
        total += n;
      }
      int rotation = random.nextInt(100);
      Map<Integer, Integer> credits = CreditSplit.credits(capacity, owned, inFlight, total, rotation);
      Map<Integer, Integer> shares = CreditSplit.shares(capacity, owned, rotation);
      assertEquals(shares.keySet(), credits.keySet());
      int sum = 0;
      for (Map.Entry<Integer, Integer> e : credits.entrySet()) {
        assertTrue(e.getValue() >= 0);
        assertTrue(e.getValue() + inFlight.getOrDefault(e.getKey(), 0) <= Math.max(shares.get(e.getKey()),
            inFlight.getOrDefault(e.getKey(), 0)));
        sum += e.getValue();
      }
      assertTrue(sum + total <= capacity, "credits " + credits + " over the free slots");
    }
  }
}
