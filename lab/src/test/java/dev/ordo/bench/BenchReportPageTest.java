package dev.ordo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordo.bench.BenchReportPage.Kind;
import dev.ordo.bench.BenchReportPage.Row;
import dev.ordo.bench.BenchReportPage.Source;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ordo bench report}: the page from fixture JSON under {@code dev/ordo/bench/page/}.
 * {@code bench-full.json} is a {@code --full} run's shape: its exactly-once and at-least-once rounds are
 * a real run's (2026-11-29, eos,alos), the other scenarios' figures made up; the fault modes' files
 * are in {@code FaultReport}'s shape (distribution's {@code FaultReportTest} renders what it writes);
 * {@code legacy-eos-alos.json} is a real run's JSON from before the JSON had a kind.
 */
class BenchReportPageTest {

  private static final String DIR = "/dev/ordo/bench/page/";

  private static Path fixture(String name) {
    try {
      return Path.of(BenchReportPageTest.class.getResource(DIR + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Source source(String name) {
    return BenchReportPage.read(fixture(name));
  }

  private static List<Source> leadsRuns() {
    return List.of(source("bench-full.json"), source("failover.json"), source("drain.json"), source("soak.json"));
  }

  private static Row row(List<Row> rows, String scenario, String figure) {
    List<Row> found = rows.stream().filter(r -> r.scenario().equals(scenario) && r.figure().equals(figure)).toList();
    assertEquals(1, found.size(), "rows " + scenario + " / " + figure + " in " + rows);
    return found.get(0);
  }

  private static void has(String text, String... parts) {
    for (String part : parts) {
      assertTrue(text.contains(part), () -> "missing: " + part + "\nin:\n" + text);
    }
  }

  private static IllegalArgumentException fails(org.junit.jupiter.api.function.Executable e) {
    return assertThrows(IllegalArgumentException.class, e);
  }

  @Test
  void recognisesEachKindAndTheBenchJsonFromBeforeTheKind() {
    assertEquals(Kind.BENCH, BenchReportPage.kind(source("bench-full.json")));
    assertEquals(Kind.FAILOVER, BenchReportPage.kind(source("failover.json")));
    assertEquals(Kind.DRAIN, BenchReportPage.kind(source("drain.json")));
    assertEquals(Kind.SOAK, BenchReportPage.kind(source("soak.json")));
    assertEquals(Kind.NEMESIS, BenchReportPage.kind(source("nemesis.json")));
    assertEquals(Kind.BENCH, BenchReportPage.kind(source("legacy-eos-alos.json")));
  }

  @Test
  void aFileOfAnUnknownKindIsAnErrorNamingIt() {
    IllegalArgumentException e = fails(() -> BenchReportPage.render(
        List.of(source("bench-full.json"), source("unknown-kind.json")), BenchReportPage.template()));
    has(e.getMessage(), "unknown-kind.json", "unknown kind \"ordo-something-else\"", "ordo-failover");
    e = fails(() -> BenchReportPage.kind(source("not-ordo.json")));
    has(e.getMessage(), "not-ordo.json", "not the JSON of ordo bench or of a fault mode");
    e = fails(() -> BenchReportPage.parse("notes.txt", "median 12 ms"));
    assertTrue(e.getMessage().startsWith("notes.txt: not JSON"), e.getMessage());
  }

  @Test
  void everyFigureOfTheFullRunIsARowWithItsMedianAndRangeOverRounds() {
    List<Row> rows = BenchReportPage.rows(List.of(source("bench-full.json")));
    // Exactly these rows, in this order: one missing or one more fails here.
    assertEquals(List.of(
        "raw | Kafka producer → consumer, records/s",
        "share | Kafka share group, ACCEPT each, records/s",
        "eos | Ordo end to end, items/s",
        "eos | CPU per item, all threads, µs",
        "eos | CPU per item, stream thread, µs",
        "eos | Kafka records written per item",
        "eos | latency p50 at 7,898 items/s (half), ms",
        "eos | latency p99 at 7,898 items/s (half), ms",
        "alos | Ordo end to end, items/s",
        "alos | CPU per item, all threads, µs",
        "alos | CPU per item, stream thread, µs",
        "alos | Kafka records written per item",
        "alos | latency p50 at 8,665 items/s (half), ms",
        "alos | latency p99 at 8,665 items/s (half), ms",
        "backlog | dequeue, empty queue, items/s",
        "backlog | dequeue, 1,000,000 items standing, items/s",
        "backlog | standing / empty",
        "delay | lateness over tiers 200ms,500ms,2s,5s, p50, ms",
        "delay | lateness over tiers 200ms,500ms,2s,5s, p99, ms",
        "http | 8 workers, dequeue 50 + batch ack, 4 partitions, items/s",
        "http | the same, 32 partitions, items/s",
        "http | HTTP / lease consumers (exactly-once, same round)",
        "http | 8 workers, dequeue 20, ack one by one, 4 partitions, items/s",
        "http | 8 workers, dequeue 20, ack one by one, 16 partitions, items/s",
        "http | ack one by one, ratio 16 / 4 partitions (goal ≥ 0.8)",
        "http | dequeue(50) of ready items p50, ms",
        "http | single ack at half load p50, ms",
        "http | one call, quiet server: enqueue p50, ms",
        "http | one call, quiet server: dequeue of 1 ready item p50, ms",
        "http | one call, quiet server: ack p50, ms",
        "ratios | Ordo exactly-once / raw Kafka",
        "ratios | Ordo exactly-once / share group",
        "ratios | Ordo at-least-once / raw Kafka",
        "ratios | Ordo at-least-once / share group"),
        rows.stream().map(r -> r.scenario() + " | " + r.figure()).toList());
    rows.forEach(r -> assertEquals("A", r.run(), r.toString()));

    assertEquals(new Row("eos", "Ordo end to end, items/s", "15,797", "3,198–22,285", "4 rounds", "A"),
        row(rows, "eos", "Ordo end to end, items/s"));
    assertEquals(new Row("eos", "CPU per item, all threads, µs", "76.5", "70–92", "4 rounds", "A"),
        row(rows, "eos", "CPU per item, all threads, µs"));
    assertEquals("30–35.1", row(rows, "eos", "CPU per item, stream thread, µs").range());
    assertEquals("1.15", row(rows, "eos", "Kafka records written per item").median());
    assertEquals(new Row("eos", "latency p99 at 7,898 items/s (half), ms", "89.8", "72.3–3,976", "4 rounds", "A"),
        row(rows, "eos", "latency p99 at 7,898 items/s (half), ms"));
    assertEquals("6,491–19,250", row(rows, "alos", "Ordo end to end, items/s").range());
    assertEquals("76.5", row(rows, "alos", "CPU per item, all threads, µs").median()); // 76.45
    assertEquals(new Row("raw", "Kafka producer → consumer, records/s", "151,235", "98,765–187,654", "4 rounds", "A"),
        row(rows, "raw", "Kafka producer → consumer, records/s"));
    assertEquals("0.79", row(rows, "backlog", "standing / empty").median());
    assertEquals("70–120", row(rows, "delay", "lateness over tiers 200ms,500ms,2s,5s, p99, ms").range());
    assertEquals("4,726–6,553", row(rows, "http", "the same, 32 partitions, items/s").range());
    assertEquals(new Row("http", "one call, quiet server: ack p50, ms", "2.12", "–", "p99 13.7, max 21.7", "A"),
        row(rows, "http", "one call, quiet server: ack p50, ms"));
    assertEquals(new Row("http", "8 workers, dequeue 20, ack one by one, 4 partitions, items/s", "3,075", "2,950–3,300",
        "4 rounds", "A"), row(rows, "http", "8 workers, dequeue 20, ack one by one, 4 partitions, items/s"));
    assertEquals(new Row("http", "8 workers, dequeue 20, ack one by one, 16 partitions, items/s", "2,075",
        "1,891–2,400", "4 rounds", "A"), row(rows, "http", "8 workers, dequeue 20, ack one by one, 16 partitions, items/s"));
    assertEquals("0.67", row(rows, "http", "ack one by one, ratio 16 / 4 partitions (goal ≥ 0.8)").median());
    assertEquals("0.10", row(rows, "ratios", "Ordo exactly-once / raw Kafka").median());
  }

  @Test
  void anHttpRunFromBeforeTheSingleAckPhaseHasItsOtherRowsAndNoneOfThatPhase() {
    ObjectNode json = source("bench-full.json").json().deepCopy();
    ((ObjectNode) json.get("http")).remove("singleAcks");
    List<Row> rows = BenchReportPage.rows(List.of(BenchReportPage.parse("before.json", json.toString())));
    assertEquals("4,726–6,553", row(rows, "http", "the same, 32 partitions, items/s").range());
    assertTrue(rows.stream().noneMatch(r -> r.figure().contains("one by one")), () -> rows.toString());
  }

  @Test
  void theFaultModesRowsCarryTheirFiguresAndWhatTheyRangeOver() {
    List<Row> rows = BenchReportPage.rows(leadsRuns());
    String takeover = "standbys 1, 1,000,000 items: the killed server's partitions dispatch again after, s";
    assertEquals(new Row("failover", takeover, "7.88", "7.10–7.88", "2 partitions", "B"), row(rows, "failover", takeover));
    assertEquals("3,812 / not drained / 0",
        row(rows, "failover", "standbys 0, 1,000,000 items: handled twice / missing / lost").median());
    assertEquals("4,001 / 0 / 0", row(rows, "failover", "standbys 1, 1,000,000 items: handled twice / missing / lost").median());
    assertEquals(new Row("drain", "10,000,000 items: drained at, items/s", "16,000", "–", "in 625 s", "C"),
        row(rows, "drain", "10,000,000 items: drained at, items/s"));
    assertEquals(new Row("drain", "pop rate, second tenth → last tenth, items/s", "18,643 → 16,797", "–",
        "end / start 0.90", "C"), row(rows, "drain", "pop rate, second tenth → last tenth, items/s"));
    assertEquals(new Row("drain", "heap after GC, MiB, at most", "230", "145–230 MiB", "3 samples", "C"),
        row(rows, "drain", "heap after GC, MiB, at most"));
    assertEquals("1,100–1,836 MiB", row(rows, "drain", "RSS, MiB, at most").range());
    assertEquals("120,001 / 0 / 0 / 0", row(rows, "soak",
        "10 min at 200 items/s, 2 restarts: items enqueued / missing / otherwise than set / early").median());
    assertEquals(new Row("soak", "heap after GC trend, MiB/min", "-0.07", "31–48 MiB", "4 samples", "D"),
        row(rows, "soak", "heap after GC trend, MiB/min"));
    assertEquals("+1.13", row(rows, "soak", "RSS trend, MiB/min").median());

    List<Row> nemesis = BenchReportPage.rows(List.of(source("nemesis.json")));
    assertEquals(List.of("operations checked, under 2 faults = 52,000", "violations = 0"),
        nemesis.stream().map(r -> r.figure() + " = " + r.median()).toList());
  }

  @Test
  void thePageHasTheHeadlineTheRunsAndEveryRowUnder250Lines() {
    String page = BenchReportPage.render(leadsRuns(), BenchReportPage.template());
    assertTrue(page.lines().count() <= 250, "lines: " + page.lines().count());
    assertFalse(page.contains("{{"), page);
    has(page, "On 2 cores (AMD EPYC 7B13), 24 GiB, Linux amd64, Java 17.0.15, Ordo end to end",
        "**15,797 items/s exactly-once** at **76.5 µs of CPU per item** (all threads)",
        "**17,331 items/s at-least-once** at **76.5 µs of CPU per item** (all threads)",
        "medians of 4 rounds, run A (build 0.1.0-SNAPSHOT 328b420, 2026-11-29 07:51 UTC)",
        "The command: `ordo bench --full`.");
    // The runs table: build, date, machine, command (without --json FILE) of each.
    has(page, "| A | ordo bench | 0.1.0-SNAPSHOT 328b420 | 2026-11-29 07:51 UTC | 2 cores (AMD EPYC 7B13),"
            + " 24 GiB, Linux amd64, Java 17.0.15; load 9.5–32.1 | `ordo bench --full` |",
        "| B | ordo bench --failover | 0.1.0-SNAPSHOT 328b420 | 2026-11-29 11:02 UTC |",
        "`ordo bench --failover` |", "`ordo bench --soak --soak-minutes 10` |");
    assertFalse(page.contains("/tmp/A.json"), page);
    has(page, "| eos | Ordo end to end, items/s | 15,797 | 3,198–22,285 | 4 rounds | A |",
        "| drain | heap after GC, MiB, at most | 230 | 145–230 MiB | 3 samples | C |");
    for (Row r : BenchReportPage.rows(leadsRuns())) {
      has(page, "| " + r.scenario() + " | " + r.figure() + " | " + r.median() + " | ");
    }
    has(page, "<!-- Generated by `ordo bench report bench-full.json failover.json drain.json soak.json"
        + " --out docs/benchmarks.md`");
  }

  @Test
  void aBenchJsonFromBeforeTheKindHasNoRangeWhereItsRoundsWereNotWrittenAndACommandFromItsOptions() {
    List<Row> rows = BenchReportPage.rows(List.of(source("legacy-eos-alos.json")));
    assertEquals("3,198–22,285", row(rows, "eos", "Ordo end to end, items/s").range());
    assertEquals(new Row("eos", "CPU per item, all threads, µs", "76.5", "–", "4 rounds, not recorded each", "A"),
        row(rows, "eos", "CPU per item, all threads, µs"));
    String page = BenchReportPage.render(List.of(source("legacy-eos-alos.json")), BenchReportPage.template());
    has(page, "`ordo bench --full --rounds 4 --scenarios eos,alos` (made from its options)",
        "| A | ordo bench | not recorded | 2026-11-29 07:51 UTC | 2 cores, Linux amd64, Java 17.0.15");
  }

  @Test
  void withoutAnEndToEndRunTheHeadlineSaysWhatItNeeds() {
    String page = BenchReportPage.render(List.of(source("failover.json")), "{{headline}}\n{{figures}}\n");
    assertTrue(page.startsWith("*No run of the eos or alos scenario was given"), page);
    IllegalArgumentException e = fails(() -> BenchReportPage.render(List.of(source("failover.json")),
        "{{headline}} {{figure}}"));
    has(e.getMessage(), "{{figure}}");
  }

  @Test
  void theCommandWritesThePageAndFailsClearly(@TempDir Path dir) throws IOException {
    Path out = dir.resolve("docs/benchmarks.md");
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(stdout, true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(stderr, true, StandardCharsets.UTF_8);
    int code = BenchReportPage.run(List.of(fixture("bench-full.json").toString(), fixture("failover.json").toString(),
        fixture("drain.json").toString(), fixture("soak.json").toString(), "--out", out.toString()), o, err);
    assertEquals(0, code, stderr.toString(StandardCharsets.UTF_8));
    assertEquals("", stderr.toString(StandardCharsets.UTF_8));
    has(Files.readString(out), "# Benchmarks", "| failover |");
    assertTrue(stdout.toString(StandardCharsets.UTF_8).startsWith("Wrote " + out), stdout.toString());

    stderr.reset();
    code = BenchReportPage.run(List.of(fixture("bench-full.json").toString(), fixture("unknown-kind.json").toString()),
        o, err);
    assertEquals(1, code);
    String message = stderr.toString(StandardCharsets.UTF_8);
    assertTrue(message.startsWith("ordo bench report: "), message);
    has(message, "unknown-kind.json: unknown kind");

    stderr.reset();
    assertEquals(2, BenchReportPage.run(List.of(), o, err));
    has(stderr.toString(StandardCharsets.UTF_8), "name the JSON files");

    stderr.reset();
    assertEquals(1, BenchReportPage.run(List.of(dir.resolve("missing.json").toString()), o, err));
    has(stderr.toString(StandardCharsets.UTF_8), "cannot read", "missing.json");

    stderr.reset();
    assertEquals(2, BenchReportPage.run(List.of("--bogus"), o, err));
    has(stderr.toString(StandardCharsets.UTF_8), "unknown option --bogus");
  }

  @Test
  void numbersAndCommands() {
    assertEquals("15,797", BenchReportPage.num(15796.568));
    assertEquals("342", BenchReportPage.num(342.4));
    assertEquals("76.5", BenchReportPage.num(76.45));
    assertEquals("1.15", BenchReportPage.num(1.15));
    assertEquals("1,000,000", BenchReportPage.num(1000000));
    Source s = BenchReportPage.parse("x.json",
        "{\"kind\":\"ordo-bench\",\"environment\":{\"command\":\"ordo bench --json=a.json --full --json b/c.json --rounds 3\"}}");
    assertEquals("ordo bench --full --rounds 3", BenchReportPage.command(s.json(), Kind.BENCH));
  }
}
