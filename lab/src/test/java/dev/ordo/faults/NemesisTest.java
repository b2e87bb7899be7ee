package dev.ordo.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The nemesis run of {@code ordo bench --nemesis} (issue 44), short, with a fixed seed: three
 * servers on three brokers, every kind of fault in turn (an instance killed, one paused past its session
 * timeout, a broker stopped, the network of one instance slowed, stalled or reset, one instance's clock
 * skewed), a workload of every kind of requester, and the whole history judged: no violation. The run goes
 * on past its 40 s until each kind has run once (80-130 s), a fault every 5 s; the bench mode runs longer and more turns.
 */
class NemesisTest {
  @Test
  void aSeededRunOfEveryKindOfFaultLeavesAHistoryWithNoViolation() throws Exception {
    Path dir = Files.createTempDirectory("ordo-nemesis-test");
    NemesisRun.Result r = NemesisRun.run(new NemesisRun.Options(Duration.ofSeconds(40), 44, 4, 20,
        Duration.ofSeconds(5), Duration.ofSeconds(2), TestJvm.SERVER, Duration.ofSeconds(30)), dir, System.out);
    System.out.println("nemesis: " + r.line());
    r.faults().forEach(f -> System.out.println("  fault " + f.line()));
    for (var rule : dev.ordo.faults.history.Violation.Rule.values()) {
      r.check().violations(rule).stream().limit(5).forEach(v -> System.out.println("  violation: " + v));
    }
    r.check().notes().stream().limit(5).forEach(n -> System.out.println("  note: " + n));
    Set<String> kinds = new TreeSet<>();
    r.faults().forEach(f -> kinds.add(f.what().split(" ")[0]));
    assertEquals(Set.of("broker", "clock", "kill", "network", "pause"), kinds, "every kind of fault: " + r.faults());
    assertTrue(r.enqueued() > 1_000, "the workload ran: " + r.line());
    assertEquals(List.of(), r.check().violations(), r.line() + "; the servers' logs and Kafka's data are in " + dir);
    // Kept only when the run failed (~180 MiB): its logs and segments are how a violation gets explained.
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
