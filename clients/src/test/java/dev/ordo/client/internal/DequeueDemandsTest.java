package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of {@link DequeueDemands}: how long a dequeue waits, and how a plan's asks combine. */
class DequeueDemandsTest {
  @Test
  void aDequeueWaitsWhatItAskedButAtLeastTheMinimumAndThreeRecentAnswerTimes() {
    assertEquals(5_000, DequeueDemands.waitMs(5_000, 100, 50, 30_000), "asked for more than both");
    assertEquals(100, DequeueDemands.waitMs(0, 100, 0, 30_000), "the minimum wait");
    assertEquals(600, DequeueDemands.waitMs(0, 100, 200, 30_000), "three answer times of a slow server");
    assertEquals(15_000, DequeueDemands.waitMs(0, 100, 20_000, 30_000), "never more than half the request timeout");
  }

  @Test
  void whatAPlanDoesNotCoverIsWhatWasWantedLessWhatItAsks() {
    DemandPlan plan = new DemandPlan(Map.of(0, Map.of("a", 2), 1, Map.of("a", 1, "b", 4)), false, Map.of());
    assertEquals(Map.of("a", 2, "c", 1), DequeueDemands.uncovered(Map.of("a", 5, "b", 3, "c", 1), plan),
        "b asked in full (more than wanted) is left out");
  }

  @Test
  void mergedAddsTheCountsOfEachKey() {
    assertEquals(Map.of("a", 3, "b", 1, "c", 2), DequeueDemands.merged(Map.of("a", 1, "b", 1), Map.of("a", 2, "c", 2)));
  }
}
