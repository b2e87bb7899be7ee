package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** A clock set off for fault runs ({@code ordo.clock.offset.ms}): its wall clock is the machine's plus the offset. */
class OffsetTimeTest {
  @Test
  void theWallClockRunsAheadOrBehindByTheOffsetAndTheMonotonicClockDoesNot() {
    for (long offset : new long[] {2_000, -2_000}) {
      OffsetTime time = new OffsetTime(offset);
      long before = Time.SYSTEM.milliseconds();
      long skewed = time.milliseconds();
      long after = Time.SYSTEM.milliseconds();
      assertTrue(skewed >= before + offset && skewed <= after + offset, offset + ": " + skewed + " vs " + before);
      long n0 = Time.SYSTEM.nanoseconds();
      long n = time.nanoseconds();
      assertTrue(n >= n0 && n - n0 < 1_000_000_000L, "monotonic time is the machine's");
    }
  }
}
