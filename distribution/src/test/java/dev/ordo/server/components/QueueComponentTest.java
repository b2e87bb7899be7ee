package dev.ordo.server.components;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The items topic's retention against the time an item may stay warm (decisions D54). */
class QueueComponentTest {
  private static final long DAY = 24L * 3600 * 1000;

  @Test
  void aRetentionUnderTwiceTheColdTimeIsRefusedInOneLine() {
    String problem = QueueComponent.retentionProblem("ordo.items", DAY, DAY);
    assertTrue(problem != null && problem.contains("ordo.store.cold.after.ms") && problem.contains("retention.ms")
        && !problem.contains("\n"), String.valueOf(problem));
    assertTrue(QueueComponent.retentionProblem("ordo.items", 2 * DAY - 1, DAY) != null);
  }

  @Test
  void twiceTheColdTimeOrNoRetentionIsFine() {
    assertNull(QueueComponent.retentionProblem("ordo.items", 7 * DAY, DAY), "Kafka's default 7 days");
    assertNull(QueueComponent.retentionProblem("ordo.items", 2 * DAY, DAY));
    assertNull(QueueComponent.retentionProblem("ordo.items", -1, DAY), "kept forever");
  }
}
