package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A dequeue's arguments, checked before anything is sent ({@link Dequeues#check}). */
class DequeuesTest {
  private static void refused(String expected, String namespace, Map<String, Integer> topics, Duration wait) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Dequeues.check(namespace, topics, wait, 100));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void topicsOrAnyTopicWithCountsWithinTheMaximumAreTaken() {
    assertDoesNotThrow(() -> Dequeues.check("ns", Map.of("a", 60, "*", 40), Duration.ZERO, 100));
  }

  @Test
  void eachBadArgumentIsNamed() {
    refused("namespace", "", Map.of("a", 1), Duration.ZERO);
    refused("topics is missing", "ns", Map.of(), Duration.ZERO);
    refused("topics is missing", "ns", null, Duration.ZERO);
    refused("topic", "ns", Map.of("", 1), Duration.ZERO);
    refused("count for topic a must be at least 1, got 0", "ns", Map.of("a", 0), Duration.ZERO);
    Map<String, Integer> nullCount = new HashMap<>();
    nullCount.put("a", null);
    refused("count for topic a must be at least 1, got null", "ns", nullCount, Duration.ZERO);
    refused("at most 100 items, got 101", "ns", Map.of("a", 60, "b", 41), Duration.ZERO);
    refused("wait must not be negative", "ns", Map.of("a", 1), Duration.ofMillis(-1));
    refused("wait must not be negative", "ns", Map.of("a", 1), null);
  }
}
