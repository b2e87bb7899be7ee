package dev.ordo.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.demo.DemoPlan.Behaviour;
import dev.ordo.demo.DemoReport.DeadLetterInfo;
import dev.ordo.demo.DemoReport.ItemResult;
import dev.ordo.demo.DemoReport.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo's pure parts: the workload it plans and the table it prints. */
class DemoPlanAndReportTest {
  @Test
  void theStandardPlanHasEveryKindOfItemAndIsTheSameEveryTime() {
    DemoPlan plan = DemoPlan.create(DemoSettings.standard());
    assertEquals(plan, DemoPlan.create(DemoSettings.standard()), "seeded: the same plan every run");
    assertEquals(500, plan.items().size());
    assertEquals(1, plan.count(Behaviour.POISON));
    assertTrue(plan.count(Behaviour.FAILS_ONCE) > 20, "some fail once");
    assertTrue(plan.count(Behaviour.RETRY_LATER_TWICE) > 5, "some retry later");
    assertTrue(plan.delayed() > 25, "some are delayed");
    assertEquals(3, plan.items().stream().map(DemoPlan.Planned::topic).distinct().count());
    assertEquals(10, plan.items().stream().map(DemoPlan.Planned::priority).distinct().count());
    for (DemoPlan.Planned p : plan.items()) {
      assertTrue(p.delayMs() == 0 || (p.delayMs() >= 200 && p.delayMs() <= 3000), p::toString);
      assertEquals(p, plan.byPayload(p.payload()));
      assertEquals(p.behaviour() == Behaviour.POISON ? DemoPlan.POISON_MAX_ATTEMPTS : DemoPlan.MAX_ATTEMPTS,
          p.maxAttempts());
    }
    assertNull(plan.byPayload("demo-500"));
    assertNull(plan.byPayload("other"));
  }

  @Test
  void theTinyPlanStillHasAPoisonItemAndRetries() {
    DemoPlan plan = DemoPlan.create(DemoSettings.tiny());
    assertEquals(1, plan.count(Behaviour.POISON));
    assertTrue(plan.count(Behaviour.FAILS_ONCE) + plan.count(Behaviour.RETRY_LATER_TWICE) > 0);
    assertTrue(plan.delayed() > 0);
  }

  private static ItemResult done(int i, int priority, int attempts, long latencyMs) {
    return new ItemResult(i, "0-" + i, "t", priority, false, attempts == 1 ? Outcome.FIRST_ATTEMPT
        : Outcome.AFTER_RETRIES, attempts, latencyMs);
  }

  @Test
  void theReportCountsOutcomesAndAttemptsAndTakesNearestRankPercentiles() {
    List<ItemResult> results = new ArrayList<>();
    for (int i = 1; i <= 98; i++) {
      results.add(done(i, i % 2, 1, i * 10L)); // 10 ms ... 980 ms
    }
    results.add(done(99, 0, 3, 5_000));
    results.add(new ItemResult(100, "1-7", "t", 1, true, Outcome.DEAD_LETTERED, 3, -1));
    DemoSettings s = DemoSettings.tiny();
    DemoReport report = new DemoReport(s, 4, results, Duration.ofMillis(2_000),
        List.of(new DeadLetterInfo("1-7", "t", "MAX_ATTEMPTS", 3, "boom")));

    assertEquals(98, report.count(Outcome.FIRST_ATTEMPT));
    assertEquals(1, report.count(Outcome.AFTER_RETRIES));
    assertEquals(1, report.count(Outcome.DEAD_LETTERED));
    assertEquals(98 + 3 + 3, report.totalAttempts());
    // 99 latencies (the dead-lettered item has none): nearest rank = the ceil(p% x 99)-th smallest.
    assertEquals(500, report.latencyPercentile(50));
    assertEquals(900, report.latencyPercentile(90));
    assertEquals(5_000, report.latencyPercentile(99));
    assertEquals(5_000, report.latencyPercentile(100));
    assertEquals(50.0, report.throughput(), 0.01, "100 items in 2 s");
    assertTrue(report.complete());

    List<String> table = report.table();
    String text = String.join("\n", table);
    assertTrue(text.contains("done on the first attempt"), text);
    assertTrue(text.matches("(?s).*done after retries\\s+1\\s+3.*"), text);
    assertTrue(text.matches("(?s).*dead-lettered \\(poison\\)\\s+1\\s+3.*"), text);
    assertTrue(text.matches("(?s).*total\\s+100\\s+104.*"), text);
    assertTrue(text.contains("p50 500 ms   p90 900 ms   p99 5.0 s   max 5.0 s"), text);
    assertTrue(text.contains("50 items/s (100 items in 2.0 s)"), text);
    assertTrue(text.contains("item 1-7 (t), MAX_ATTEMPTS after 3 attempts: boom"), text);
    assertFalse(text.contains("unfinished"), text);
  }

  @Test
  void anUnfinishedItemMakesTheReportIncomplete() {
    DemoReport report = new DemoReport(DemoSettings.tiny(), 4,
        List.of(done(0, 0, 1, 5), new ItemResult(1, "0-1", "t", 0, false, Outcome.UNFINISHED, 1, -1)),
        Duration.ofSeconds(1), List.of());
    assertFalse(report.complete());
    assertTrue(String.join("\n", report.table()).contains("unfinished"));
  }

  @Test
  void durationsPrintInMillisecondsOrSeconds() {
    assertEquals("-", DemoReport.millis(-1));
    assertEquals("0 ms", DemoReport.millis(0));
    assertEquals("999 ms", DemoReport.millis(999));
    assertEquals("1.0 s", DemoReport.millis(1000));
    assertEquals("12.3 s", DemoReport.millis(12_345));
  }
}
