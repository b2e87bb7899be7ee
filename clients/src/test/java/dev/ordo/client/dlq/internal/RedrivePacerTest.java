package dev.ordo.client.dlq.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RedrivePacerTest {
  @Test
  void tenASecondLetsOneGoEveryHundredMillisecondsAndWaitsInBetween() {
    RedrivePacer pacer = new RedrivePacer(10.0, 0);
    assertEquals(1, pacer.available(0, 500), "the first at once");
    pacer.take(0, 1);
    assertEquals(0, pacer.available(0, 500));
    assertEquals(100, pacer.waitMs(0));
    assertEquals(0, pacer.available(99, 500));
    assertEquals(1, pacer.available(100, 500));
    pacer.take(100, 1);
    // A long pause fills at most a fifth of a second's worth: two, not the ten seconds' hundred.
    assertEquals(2, pacer.available(10_100, 500));
  }

  @Test
  void overAMinuteTheRateHolds() {
    RedrivePacer pacer = new RedrivePacer(50.0, 0);
    long sent = 0;
    for (long now = 0; now <= 60_000; now += 7) {
      int n = pacer.available(now, 500);
      pacer.take(now, n);
      sent += n;
    }
    assertTrue(sent >= 2995 && sent <= 3011, "about 50/s for 60 s: " + sent);
  }

  @Test
  void withoutARateABatchIsOnlyBoundedByItsMaximum() {
    RedrivePacer pacer = new RedrivePacer(null, 0);
    assertEquals(500, pacer.available(0, 500));
    pacer.take(0, 500);
    assertEquals(500, pacer.available(0, 500));
    assertEquals(0, pacer.waitMs(0));
  }

  @Test
  void aSlowRateWaitsSeconds() {
    RedrivePacer pacer = new RedrivePacer(0.5, 1_000);
    pacer.take(1_000, pacer.available(1_000, 500));
    assertEquals(2_000, pacer.waitMs(1_000));
    assertEquals(1, pacer.available(3_000, 500));
  }
}
