package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A task that must rebuild its index holds the rebuild back until it has processed a record, at
 * most {@link Cadence.REBUILD_HOLD_MS}: the stream thread has to poll a few times before a
 * task it was just given reads anything, and rebuild steps in every iteration kept it from polling
 * (decisions D32).
 */
class RebuildHoldTest {
  private static final long START = 1_000_000;

  @Test
  void heldUntilTheFirstRecord() {
    assertTrue(Cadence.rebuildHeld(false, START, START));
    assertTrue(Cadence.rebuildHeld(false, START, START + Cadence.REBUILD_HOLD_MS - 1));
    assertFalse(Cadence.rebuildHeld(true, START, START + 1), "a record ends the hold at once");
  }

  @Test
  void neverHeldLongerThanTheHold() {
    // A partition nobody writes to gets no record: its rebuild starts anyway.
    assertFalse(Cadence.rebuildHeld(false, START, START + Cadence.REBUILD_HOLD_MS));
    assertFalse(Cadence.rebuildHeld(false, START, START + 10 * Cadence.REBUILD_HOLD_MS));
  }
}
