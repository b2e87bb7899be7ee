package dev.ordo.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void parsesAndPrintsTheUsualUnits() {
    assertEquals(List.of(Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(30)),
        Durations.parseList("30s,1m,5m,30m"));
    assertEquals(Duration.ofMillis(250), Durations.parse("250ms"));
    assertEquals("1m", Durations.format(Duration.ofSeconds(60)));
    assertEquals("1500ms", Durations.format(Duration.ofMillis(1500)));
    assertEquals("2h", Durations.format(Duration.ofHours(2)));
  }

  @Test
  void refusesBadTierLists() {
    assertThrows(IllegalArgumentException.class, () -> Durations.parseList("1m,30s"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parseList("0s"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parse("ten seconds"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parse("-5s"));
  }

  @Test
  void itemIdsAndNames() {
    assertEquals(new ItemId(3, 1042), ItemId.parse("3-1042"));
    assertEquals("3-1042", new ItemId(3, 1042).toString());
    assertThrows(IllegalArgumentException.class, () -> ItemId.parse("3"));
    assertThrows(IllegalArgumentException.class, () -> ItemId.parse("x-1"));
    assertThrows(IllegalArgumentException.class, () -> ItemId.parse("-1-1"));
    assertNull(Names.problem("topic", "émails ✉"));
    assertNotNull(Names.problem("topic", "a/b"));
    assertNotNull(Names.problem("topic", "a\u0000b"));
    assertNotNull(Names.problem("topic", ""));
    assertNotNull(Names.problem("topic", "a\uD800"), "lone high surrogate");
    assertNotNull(Names.problem("topic", "\uDC00a"), "lone low surrogate");
    assertNull(Names.problem("topic", "emoji \uD83D\uDE00"), "a surrogate pair is fine");
    assertThrows(IllegalArgumentException.class, () -> new ClusterTopics("bad name"));
  }
}
