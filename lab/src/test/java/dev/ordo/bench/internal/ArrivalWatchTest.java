package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ArrivalWatchTest {

  @Test
  void anArrivalIsBracketedByTheSampleBeforeItAndTheOneThatSawIt() {
    ArrivalWatch.Bounds b = new ArrivalWatch.Bounds(100, 50);
    b.observe(100, 50, 100, 1);   // nothing yet
    b.observe(104, 50, 105, 2);   // dispatches, no arrival
    b.observe(107, 51, 109, 3);   // arrival 0: after the previous sample's first read (104), before this one's last (109)
    b.observe(110, 51, 110, 4);
    b.observe(112, 53, 113, 5);   // arrivals 1 and 2 between samples share the brackets
    assertEquals(3, b.arrivals());
    assertEquals(4, b.atLeast(0));
    assertEquals(9, b.atMost(0));
    assertEquals(10, b.atLeast(1));
    assertEquals(13, b.atMost(1));
    assertEquals(10, b.atLeast(2));
    assertEquals(13, b.atMost(2));
    assertEquals(3, b.seenAt(0));
    assertEquals(5, b.seenAt(1));
    assertEquals(5, b.seenAt(2));
    assertEquals(20, b.sinceStart(120));
    assertThrows(IndexOutOfBoundsException.class, () -> b.atLeast(3));
  }

  @Test
  void anArrivalInTheVeryFirstSampleIsBracketedFromTheStart() {
    ArrivalWatch.Bounds b = new ArrivalWatch.Bounds(7, 0);
    b.observe(9, 1, 12, 77);
    assertEquals(0, b.atLeast(0));
    assertEquals(5, b.atMost(0));
  }

  @Test
  void manyArrivalsGrowTheBrackets() {
    ArrivalWatch.Bounds b = new ArrivalWatch.Bounds(0, 0);
    for (int i = 1; i <= 1_000; i++) {
      b.observe(2L * i, i, 2L * i + 1, 10L * i);
    }
    assertEquals(1_000, b.arrivals());
    assertEquals(2 * 999, b.atLeast(999));
    assertEquals(2 * 1_000 + 1, b.atMost(999));
    assertEquals(10_000, b.seenAt(999));
  }
}
