package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.bench.internal.FairOrder.Dispatch;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairnessDispatchTimesTest {
  private static final long LEASE = 30_000;

  @Test
  void herFirstDispatchLessTheLeaseIsWhenTheQueueLeasedIt() {
    List<Dispatch> order = List.of(
        new Dispatch("bob", 0, 1_000 + LEASE),
        new Dispatch("alice", 0, 1_130 + LEASE),
        new Dispatch("alice", 1, 1_250 + LEASE),
        new Dispatch("alice", 0, 9_000 + LEASE), // a redelivery: the first dispatch counts
        new Dispatch("alice", 2)); // no lease expiry known: left out
    assertEquals(Map.of(0L, 1_130L, 1L, 1_250L), FairnessScenario.dispatchedAt(order, "alice", LEASE));
  }
}
