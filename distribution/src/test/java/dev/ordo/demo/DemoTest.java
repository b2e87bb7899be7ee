package dev.ordo.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.demo.DemoPlan.Behaviour;
import dev.ordo.demo.DemoReport.Outcome;
import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ordo demo}'s workload, small, against a running server on a real Kafka cluster. */
@KafkaCluster
class DemoTest {
  @TempDir
  Path tmp;

  @Test
  void theDemoFinishesEveryItemAndDeadLettersThePoison(RealKafka kafka) throws Exception {
    DemoPlan plan = DemoPlan.create(DemoSettings.tiny());
    try (TestServer server = TestServer.start(kafka, "demo", tmp.resolve("server"))) {
      Demo demo = new Demo(plan, kafka.bootstrapServers(), "demo", server.server().layout().partitions());
      DemoReport report = demo.run(Demo.Progress.NONE);
      String table = String.join("\n", report.table());

      assertTrue(report.complete(), table);
      assertEquals(plan.items().size(), report.results().size());
      assertEquals(1, report.count(Outcome.DEAD_LETTERED), table);
      long done = report.count(Outcome.FIRST_ATTEMPT) + report.count(Outcome.AFTER_RETRIES);
      assertEquals(plan.items().size() - 1, done, table);
      assertTrue(report.count(Outcome.AFTER_RETRIES)
          >= plan.count(Behaviour.FAILS_ONCE) + plan.count(Behaviour.RETRY_LATER_TWICE), table);
      for (var r : report.results()) {
        DemoPlan.Planned p = plan.items().get(r.index());
        assertTrue(r.attempts() >= p.plannedAttempts(), () -> r + " planned " + p);
      }
      assertEquals(1, report.deadLetters().size(), table);
      DemoReport.DeadLetterInfo dead = report.deadLetters().get(0);
      assertEquals("MAX_ATTEMPTS", dead.reason());
      assertEquals(DemoPlan.POISON_MAX_ATTEMPTS, dead.attempts());
      assertTrue(dead.lastError().contains("poison item"), dead::toString);
      assertTrue(report.latencyPercentile(50) >= 0 && report.throughput() > 0, table);
      List<String> lines = report.table();
      assertTrue(lines.get(0).startsWith("Ordo demo: " + plan.items().size() + " items"), table);
    }
  }
}
