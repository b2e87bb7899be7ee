package dev.ordo.client.dlq.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class DlqCursorTest {
  @Property(seed = "42")
  void aCursorReadsBackAsTheSamePosition(@ForAll @IntRange(min = 0, max = 100_000) int partition,
      @ForAll @LongRange(min = 0) long offset) {
    DlqCursor c = new DlqCursor(partition, offset);
    assertEquals(c, DlqCursor.decode(c.encode()));
  }

  @Test
  void aCursorNotGivenOutIsRefusedNamingTheCursor() {
    for (String bad : new String[] {"", "x", "0-5", "djE6MDo1OjY", "djI6MDo1", "djE6LTE6NQ", "djE6YTpi", "%%%"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DlqCursor.decode(bad), bad);
      assertTrue(e.getMessage().startsWith("cursor "), e.getMessage());
    }
  }
}
