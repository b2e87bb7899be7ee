package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CommandTimestampsTest {
  @Test
  void aCommandCountsAsItsTimestampPlusTheLead() {
    assertEquals(1_500L, CommandTimestamps.orderTime(500L, 0L, 1_000L));
    assertEquals(500L, CommandTimestamps.orderTime(500L, 0L, 0L));
  }

  @Test
  void theLeadSaturatesInsteadOfOverflowing() {
    assertEquals(Long.MAX_VALUE, CommandTimestamps.orderTime(Long.MAX_VALUE - 10, 0L, 1_000L));
  }

  @Test
  void aRecordWithoutATimestampKeepsItsPartitionsTime() {
    assertEquals(7_000L, CommandTimestamps.orderTime(-1L, 7_000L, 1_000L));
    assertEquals(0L, CommandTimestamps.orderTime(-1L, -1L, 1_000L), "never a negative time, which would fail the task");
  }

  @Test
  void aNegativeLeadIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new CommandTimestamps(-1));
  }
}
