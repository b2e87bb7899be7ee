package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class GroupRecorderTest {

  @Test
  void itemsCountOnceByGroupAndOnlyTimedGroupsKeepWaits() {
    GroupRecorder r = new GroupRecorder(Set.of("alice"));
    r.delivered("alice", 0, 1_000, 5_000);
    r.delivered("alice", 0, 1_000, 9_000);   // again: the first delivery counts
    r.delivered("alice", 1_000, 2_000, 2_500); // far sequence: the waits grow
    r.delivered("bob", 0, 0, 1_000_000_000L);
    r.delivered("bob", 1, 0, 3_000_000_000L);
    r.delivered(null, 0, 0, 1);
    assertEquals(2, r.delivered("alice"));
    assertEquals(4_000, r.waitNanos("alice", 0));
    assertEquals(500, r.waitNanos("alice", 1_000));
    assertEquals(-1, r.waitNanos("alice", 2));
    assertEquals(-1, r.waitNanos("bob", 0), "bob is not timed");
    assertEquals(2, r.delivered("bob"));
    assertEquals(2.0, r.spanSeconds("bob"), 1e-9);
    assertTrue(Double.isNaN(r.spanSeconds("nobody")));
    assertEquals(1, r.delivered("null"), "an item without a key is filed under \"null\"");
  }
}
