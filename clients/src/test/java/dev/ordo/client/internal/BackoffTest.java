package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void doublesWithEachAttemptUpToTheMaximum() {
    Backoff b = new Backoff(1_000, 10_000, 0);
    assertEquals(1_000, b.delayMs(1, 0.5));
    assertEquals(2_000, b.delayMs(2, 0.5));
    assertEquals(4_000, b.delayMs(3, 0.5));
    assertEquals(8_000, b.delayMs(4, 0.5));
    assertEquals(10_000, b.delayMs(5, 0.5));
    assertEquals(10_000, b.delayMs(1_000, 0.5), "no overflow on huge attempt numbers");
    assertEquals(1_000, b.delayMs(0, 0.5), "attempt 0 is treated as the first");
  }

  @Test
  void jitterOnlyShortensTheDelayAndStaysWithinItsFraction() {
    Random random = new Random(7);
    for (int i = 0; i < 10_000; i++) {
      long initial = random.nextInt(5_000);
      long max = initial + random.nextInt(100_000);
      double jitter = random.nextDouble();
      Backoff b = new Backoff(initial, max, jitter);
      int attempt = 1 + random.nextInt(40);
      long full = new Backoff(initial, max, 0).delayMs(attempt, 0);
      long d = b.delayMs(attempt, random.nextDouble());
      assertTrue(d <= full && d >= full - (long) Math.ceil(full * jitter), d + " vs " + full);
      assertTrue(full <= max);
      assertTrue(new Backoff(initial, max, 0).delayMs(attempt + 1, 0) >= full, "never shrinks with attempts");
    }
  }

  @Test
  void refusesBoundsOutOfOrder() {
    assertThrows(IllegalArgumentException.class, () -> new Backoff(10, 5, 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(1, 5, 1.5));
  }
}
