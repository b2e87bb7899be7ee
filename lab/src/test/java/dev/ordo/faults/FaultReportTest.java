package dev.ordo.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.bench.BenchReportPage;
import dev.ordo.bench.BenchReportPage.Kind;
import dev.ordo.bench.BenchReportPage.Row;
import dev.ordo.faults.history.HistoryChecker;
import dev.ordo.faults.history.Violation;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fault modes' {@code --json}: what {@link FaultReport} writes is what {@code ordo bench report} reads. */
class FaultReportTest {

  private static Map<String, Object> options() {
    Map<String, Object> o = new java.util.LinkedHashMap<>();
    o.put("items", 1_000_000L);
    o.put("standbys", List.of(0, 1));
    o.put("partitions", 4L);
    o.put("serverHeap", "1g");
    o.put("serverSettings", new TreeMap<>(Map.of("ordo.x", "1")));
    return o;
  }

  @Test
  void failoverJsonHasTheEnvironmentAndEachRunAndThePageReadsIt(@TempDir Path dir) throws Exception {
    FailoverRun.Result r = new FailoverRun.Result(1, 1_000_000, Set.of(2, 0), 50_000, Duration.ofMillis(7_880),
        Map.of(0, Duration.ofMillis(7_100), 2, Duration.ofMillis(7_880)), 1_000_000, 4_001, 0, 0, Duration.ofSeconds(97),
        0, 0, 0);
    Path file = dir.resolve("out/failover.json");
    new FaultReport(FaultReport.FAILOVER, Instant.parse("2026-11-29T11:02:10Z"), options()).failover(List.of(r))
        .write(file);
    BenchReportPage.Source s = BenchReportPage.read(file);
    JsonNode j = s.json();
    assertEquals(Kind.FAILOVER, BenchReportPage.kind(s));
    assertEquals("2026-11-29T11:02:10Z", j.path("environment").path("startedAt").asText());
    assertTrue(j.path("environment").path("cores").asInt() >= 1);
    assertTrue(j.path("environment").has("build"), j.toString());
    assertTrue(j.path("environment").has("command"), j.toString());
    assertTrue(j.path("environment").has("memoryBytes"), j.toString());
    assertEquals("1", j.path("options").path("serverSettings").path("ordo.x").asText());
    assertEquals("[0,2]", j.path("runs").get(0).path("victimPartitions").toString());
    assertEquals(7.88, j.path("runs").get(0).path("takeoverSeconds").asDouble());
    List<Row> rows = BenchReportPage.rows(List.of(s));
    assertEquals(new Row("failover", "standbys 1, 1,000,000 items: the killed server's partitions dispatch again after, s",
        "7.88", "7.10–7.88", "2 partitions", "A"), rows.get(0));
    assertEquals("4,001 / 0 / 0", rows.get(1).median());
  }

  @Test
  void aFailoverNotDrainedHasNoMissingCount() {
    FailoverRun.Result r = new FailoverRun.Result(0, 1000, Set.of(1), 10, Duration.ofSeconds(18), Map.of(), 500, 0, -1, 0,
        Duration.ofSeconds(2), 1, 500, 0);
    String json = new FaultReport(FaultReport.FAILOVER, Instant.now(), Map.of()).failover(List.of(r)).toJson();
    List<Row> rows = BenchReportPage.rows(List.of(BenchReportPage.parse("f.json", json)));
    assertEquals("0 / not drained / 0", rows.get(1).median());
    assertEquals("–", rows.get(0).range());
  }

  @Test
  void drainSoakAndNemesisJsonAreReadByThePage() {
    DrainRun.Result d = new DrainRun.Result(10_000_000, Duration.ofSeconds(46), Duration.ofSeconds(181),
        Duration.ofSeconds(625), 18_643, 16_797, List.of(
            new DrainRun.Sample(Duration.ZERO, "enqueue", 0, 145L << 20, 1_100L << 20),
            new DrainRun.Sample(Duration.ofSeconds(300), "drain", 4_000_000, 230L << 20, 1_836L << 20)));
    String dj = new FaultReport(FaultReport.DRAIN, Instant.now(), Map.of("items", 10_000_000L)).drain(d).toJson();
    List<Row> drain = BenchReportPage.rows(List.of(BenchReportPage.parse("d.json", dj)));
    assertEquals(List.of("10,000,000 items: drained at, items/s = 16,000",
        "pop rate, second tenth → last tenth, items/s = 18,643 → 16,797",
        "heap after GC, MiB, at most = 230", "RSS, MiB, at most = 1,836"),
        drain.stream().map(x -> x.figure() + " = " + x.median()).toList());
    assertEquals("end / start 0.90", drain.get(1).over());
    assertEquals("145–230 MiB", drain.get(2).range());

    SoakRun.Result so = new SoakRun.Result(120_001, 108_001, 12_000, 0, 0, 0, 2, List.of(
        new SoakRun.Sample(Duration.ofMinutes(1), "a", 31L << 20, 1_219L << 20),
        new SoakRun.Sample(Duration.ofMinutes(2), "a", 31L << 20, 1_221L << 20),
        new SoakRun.Sample(Duration.ofMinutes(3), "a", 31L << 20, 1_223L << 20)));
    Map<String, Object> soakOptions = Map.of("minutes", 10L, "rate", 200L);
    String sj = new FaultReport(FaultReport.SOAK, Instant.now(), soakOptions).soak(so).toJson();
    List<Row> soak = BenchReportPage.rows(List.of(BenchReportPage.parse("s.json", sj)));
    assertEquals("10 min at 200 items/s, 2 restarts: items enqueued / missing / otherwise than set / early",
        soak.get(0).figure());
    assertEquals("120,001 / 0 / 0 / 0", soak.get(0).median());
    assertEquals("+0.00", soak.get(1).median()); // the heap flat
    assertEquals("+2.00", soak.get(2).median()); // RSS 2 MiB a minute
    assertEquals("1,219–1,223 MiB", soak.get(2).range());

    HistoryChecker.Result check = new HistoryChecker.Result(52_000, 18_000, Map.of(),
        List.of(new Violation(Violation.Rule.LOST, "ns/t/1", "acked, ended nowhere")), List.of());
    NemesisRun.Result n = new NemesisRun.Result(check,
        List.of(new NemesisRun.Fault(Duration.ofSeconds(30), "kill s1", 0, 1)), 18_000, 52_000);
    String nj = new FaultReport(FaultReport.NEMESIS, Instant.now(), Map.of("seed", 7L)).nemesis(n).toJson();
    List<Row> nemesis = BenchReportPage.rows(List.of(BenchReportPage.parse("n.json", nj)));
    assertEquals(List.of("operations checked, under 1 faults = 52,000", "violations = 1"),
        nemesis.stream().map(x -> x.figure() + " = " + x.median()).toList());
    assertEquals("seed 7", nemesis.get(0).over());
  }

  @Test
  void theFailoverPrintsTheSurvivorsPartitionLinesWhicheverPartOfTheProcessorLogsThem() {
    // The server's pattern: %d{HH:mm:ss.SSS} %-5level %c{1} - %msg%n
    assertTrue(FailoverRun.isPartitionLine("13:11:40.101 INFO  StoreOpening - Partition 1: the item table was rebuilt"
        + " from the state log and the items topic in 2310 ms: 241000 live"));
    assertTrue(FailoverRun.isPartitionLine("13:11:41.002 INFO  IndexRebuild - Partition 3: the index is rebuilt (880 ms);"
        + " 4 demands open"));
    assertTrue(FailoverRun.isPartitionLine("13:11:41.002 WARN  QueueProcessor - anything of the processor itself"));
    assertTrue(FailoverRun.isPartitionLine("13:11:41.002 WARN  StreamThread - stream-thread [x] Detected that the"
        + " thread is being fenced"));
    assertFalse(FailoverRun.isPartitionLine("13:11:41.002 INFO  HttpServer - GET /v1/stats"));
  }
}
