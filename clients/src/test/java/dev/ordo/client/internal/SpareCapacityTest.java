package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SpareCapacityTest {
  @Test
  void handlersOfEachTopicShareTheSlotsAndTheTotalIsTheirSum() {
    SpareCapacity s = new SpareCapacity(List.of("a", "b"), 4, 10_000, 0);
    s.handlerStarted("a", 0);
    s.handlerStarted("a", 0);
    s.handlerStarted("b", 0);
    assertEquals(0.5, s.busyRatio("a", 10_000), 1e-9);
    assertEquals(0.25, s.busyRatio("b", 10_000), 1e-9);
    assertEquals(0.75, s.busyRatio(10_000), 1e-9);
    s.handlerEnded("a", 10_000);
    s.handlerEnded("a", 10_000);
    s.handlerEnded("b", 10_000);
    assertTrue(s.busyRatio(21_000) < 0.01, "idle for a whole window");
  }

  @Test
  void anItemOfATopicNotNamedCountsUnderAny() {
    SpareCapacity s = new SpareCapacity(List.of("*"), 1, 1_000, 0);
    s.handlerStarted("whatever", 0);
    assertEquals(1.0, s.busyRatio("*", 500), 1e-9);
    assertEquals(0.0, s.busyRatio("whatever", 500), 1e-9);
  }

  @Test
  void onlyAPollThatBroughtNothingToAnIdleConsumerIsAnEmptyDequeue() {
    SpareCapacity s = new SpareCapacity(List.of("a"), 2, 1_000, 0);
    s.polled(0, true);
    s.polled(3, true);
    s.polled(0, false); // something running: a short poll between handlers, not a wait for work
    assertEquals(1, s.emptyDequeues());
  }
}
