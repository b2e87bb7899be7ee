package dev.ordo.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ordo bench report FILE... [--out FILE]} (issue 50): the benchmarks page from the JSON of
 * {@code ordo bench --json} and of the fault modes ({@code --failover}, {@code --drain}, {@code --soak},
 * {@code --nemesis} with {@code --json}). Pure: JSON in, markdown out ({@link #render}); the prose is the
 * template {@code benchmarks-page.md} beside this class, whose placeholders {@code {{headline}}},
 * {@code {{runs}}}, {@code {{figures}}} and {@code {{sources}}} take the generated parts.
 *
 * <p>Each input is recognised by its {@code kind} ({@link RunInfo#BENCH_KIND}, {@code ordo-failover},
 * {@code ordo-drain}, {@code ordo-soak}, {@code ordo-nemesis}); a bench JSON written before the kind
 * existed is recognised by its shape. Anything else is an error naming the file. Every figure of the
 * table is the JSON's median with the range over its rounds (min–max); a fault mode runs once, so its
 * range is over what it sampled (partitions, memory samples).
 */
public final class BenchReportPage {

  /** The flags of {@code ordo bench report}, for the CLI's help. */
  public static final String USAGE =
      "The benchmarks page (docs/benchmarks.md) from the JSON of runs:\n" +
      "  ordo bench report FILE... [--out FILE]\n" +
      "                     reads the JSON of ordo bench --json and of the fault modes' --json (each\n" +
      "                     file's kind recognised), writes the page (stdout without --out): the\n" +
      "                     headline, a table of every figure (median, range over rounds) with the\n" +
      "                     build, date, machine and command of its run";

  /** The template, a resource beside this class. */
  public static final String TEMPLATE = "benchmarks-page.md";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z-]+)}}");
  private static final String DASH = "–";

  /** One input: its name (the file as given) and its JSON. */
  public record Source(String name, JsonNode json) {}

  /** The kinds of input, by their {@code kind} field. */
  public enum Kind {
    BENCH(RunInfo.BENCH_KIND, "ordo bench"),
    FAILOVER("ordo-failover", "ordo bench --failover"),
    DRAIN("ordo-drain", "ordo bench --drain"),
    SOAK("ordo-soak", "ordo bench --soak"),
    NEMESIS("ordo-nemesis", "ordo bench --nemesis");

    final String field;
    final String command;

    Kind(String field, String command) {
      this.field = field;
      this.command = command;
    }
  }

  /** One row of the figures table. */
  public record Row(String scenario, String figure, String median, String range, String over, String run) {}

  private BenchReportPage() {}

  // ---- the command ----

  /**
   * Runs {@code ordo bench report} with {@code args} (after {@code report}); messages to {@code err}.
   *
   * @return 0, 1 when an input cannot be read or is of no known kind, 2 on a usage error
   */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    List<Path> files = new ArrayList<>();
    Path outFile = null;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--out") || a.equals("-o")) {
        if (i + 1 >= args.size()) {
          err.println("ordo bench report: --out needs a file (try 'ordo bench --help')");
          return 2;
        }
        outFile = Path.of(args.get(++i));
      } else if (a.startsWith("--out=")) {
        outFile = Path.of(a.substring("--out=".length()));
      } else if (a.startsWith("-")) {
        err.println("ordo bench report: unknown option " + a + " (try 'ordo bench --help')");
        return 2;
      } else {
        files.add(Path.of(a));
      }
    }
    if (files.isEmpty()) {
      err.println("ordo bench report: name the JSON files of the runs (try 'ordo bench --help')");
      return 2;
    }
    String page;
    try {
      List<Source> sources = new ArrayList<>();
      for (Path f : files) {
        sources.add(read(f));
      }
      page = render(sources, template());
    } catch (IllegalArgumentException | UncheckedIOException e) {
      err.println("ordo bench report: " + e.getMessage());
      return 1;
    }
    if (outFile == null) {
      out.print(page);
      out.flush();
      return 0;
    }
    try {
      Path parent = outFile.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(outFile, page, StandardCharsets.UTF_8);
    } catch (IOException e) {
      err.println("ordo bench report: could not write " + outFile + ": " + e.getMessage());
      return 1;
    }
    out.println("Wrote " + outFile + " (" + page.lines().count() + " lines) from " + files.size() + " file"
        + (files.size() == 1 ? "" : "s"));
    return 0;
  }

  /** Reads one input file; not JSON is an error naming it. */
  public static Source read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    return parse(file.toString(), text);
  }

  /** One input from its text; not JSON is an error naming it. */
  public static Source parse(String name, String text) {
    try {
      JsonNode json = MAPPER.readTree(text);
      if (json == null || !json.isObject()) {
        throw new IllegalArgumentException(name + ": not a JSON object");
      }
      return new Source(name, json);
    } catch (IOException e) {
      throw new IllegalArgumentException(name + ": not JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
  }

  /** The page's template, from the resource beside this class. */
  public static String template() {
    try (InputStream in = BenchReportPage.class.getResourceAsStream(TEMPLATE)) {
      if (in == null) {
        throw new IllegalStateException("the template " + TEMPLATE + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- the page ----

  /** What kind of run {@code source} is; an error naming the file when it is none Ordo writes. */
  public static Kind kind(Source source) {
    JsonNode k = source.json().get("kind");
    if (k != null && k.isTextual()) {
      for (Kind kind : Kind.values()) {
        if (kind.field.equals(k.asText())) {
          return kind;
        }
      }
      throw new IllegalArgumentException(source.name() + ": unknown kind \"" + k.asText() + "\" (expected one of "
          + String.join(", ", java.util.Arrays.stream(Kind.values()).map(x -> x.field).toList()) + ")");
    }
    JsonNode j = source.json();
    if (j.has("ordo") && j.has("ratios") && j.has("options") && j.has("environment")) {
      return Kind.BENCH; // written before the JSON had a kind
    }
    throw new IllegalArgumentException(source.name() + ": not the JSON of ordo bench or of a fault mode (no \"kind\";"
        + " write it with ordo bench --json FILE or ordo bench --failover|--drain|--soak|--nemesis --json FILE)");
  }

  /** The page: {@code template} with its placeholders filled from {@code sources}. */
  public static String render(List<Source> sources, String template) {
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("no runs given");
    }
    List<Kind> kinds = sources.stream().map(BenchReportPage::kind).toList();
    List<Row> rows = rows(sources);
    Map<String, String> parts = Map.of(
        "headline", headline(sources, kinds),
        "runs", runsTable(sources, kinds),
        "figures", figuresTable(rows),
        "sources", String.join(" ", sources.stream().map(s -> Path.of(s.name()).getFileName().toString()).toList()));
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      String part = parts.get(m.group(1));
      if (part == null) {
        throw new IllegalArgumentException("the template has an unknown placeholder {{" + m.group(1) + "}}");
      }
      m.appendReplacement(b, Matcher.quoteReplacement(part));
    }
    m.appendTail(b);
    return b.toString();
  }

  /** Every row of the figures table, the runs in the order given (run A, B, ...). */
  public static List<Row> rows(List<Source> sources) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < sources.size(); i++) {
      Source s = sources.get(i);
      String run = runName(i);
      switch (kind(s)) {
        case BENCH -> benchRows(s.json(), run, rows);
        case FAILOVER -> failoverRows(s.json(), run, rows);
        case DRAIN -> drainRows(s.json(), run, rows);
        case SOAK -> soakRows(s.json(), run, rows);
        case NEMESIS -> nemesisRows(s.json(), run, rows);
      }
    }
    return rows;
  }

  static String runName(int i) {
    return i < 26 ? String.valueOf((char) ('A' + i)) : "R" + (i + 1);
  }

  private static String headline(List<Source> sources, List<Kind> kinds) {
    for (int i = 0; i < sources.size(); i++) {
      JsonNode j = sources.get(i).json();
      if (kinds.get(i) != Kind.BENCH) {
        continue;
      }
      List<String> parts = new ArrayList<>();
      for (String[] g : new String[][] {{"exactlyOnce", "exactly-once"}, {"atLeastOnce", "at-least-once"}}) {
        JsonNode o = j.path("ordo").path(g[0]);
        if (!isNum(o.get("itemsPerSec"))) {
          continue;
        }
        String cpu = isNum(o.get("cpuUsPerItem"))
            ? " at **" + num(o.get("cpuUsPerItem").asDouble()) + " µs of CPU per item** (all threads)" : "";
        parts.add("**" + num(o.get("itemsPerSec").asDouble()) + " items/s " + g[1] + "**" + cpu);
      }
      if (parts.isEmpty()) {
        continue;
      }
      JsonNode env = j.path("environment");
      return String.format(Locale.ROOT, "On %s, Ordo end to end (one producer, two lease consumers, 200-byte items)"
              + " moves %s: medians of %d rounds, run %s (build %s, %s). The command: %s.",
          machine(env), String.join(" and ", parts), j.path("options").path("rounds").asInt(0), runName(i),
          text(env, "build"), date(env), commandText(j, Kind.BENCH));
    }
    return "*No run of the eos or alos scenario was given: the headline needs `ordo bench --full --json FILE`.*";
  }

  private static String runsTable(List<Source> sources, List<Kind> kinds) {
    StringBuilder b = new StringBuilder("| run | what | build | date | machine | command |\n| --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < sources.size(); i++) {
      JsonNode j = sources.get(i).json();
      JsonNode env = j.path("environment");
      b.append("| ").append(runName(i)).append(" | ").append(kinds.get(i).command).append(" | ")
          .append(text(env, "build")).append(" | ").append(date(env)).append(" | ").append(machine(env))
          .append(load(env)).append(" | ").append(commandText(j, kinds.get(i))).append(" |\n");
    }
    return b.toString().stripTrailing();
  }

  private static String figuresTable(List<Row> rows) {
    StringBuilder b = new StringBuilder(
        "| scenario | figure | median | range (min–max) | over | run |\n| --- | --- | --- | --- | --- | --- |\n");
    for (Row r : rows) {
      b.append("| ").append(r.scenario()).append(" | ").append(r.figure()).append(" | ").append(r.median())
          .append(" | ").append(r.range()).append(" | ").append(r.over()).append(" | ").append(r.run()).append(" |\n");
    }
    return b.toString().stripTrailing();
  }

  // ---- ordo bench ----

  private static void benchRows(JsonNode j, String run, List<Row> rows) {
    figureRow(rows, run, "raw", "Kafka producer → consumer, records/s", j.path("rawKafka"), "recordsPerSec");
    figureRow(rows, run, "share", "Kafka share group, ACCEPT each, records/s", j.path("shareGroups"), "recordsPerSec");
    String[][] guarantees = {{"eos", "exactlyOnce"}, {"alos", "atLeastOnce"}};
    for (String[] g : guarantees) {
      JsonNode o = j.path("ordo").path(g[1]);
      if (!isNum(o.get("itemsPerSec"))) {
        continue;
      }
      JsonNode rounds = o.path("rounds");
      rows.add(row(g[0], "Ordo end to end, items/s", o.get("itemsPerSec"), rounds, r -> r.get("itemsPerSec"), run));
      rows.add(row(g[0], "CPU per item, all threads, µs", o.get("cpuUsPerItem"), rounds, r -> r.get("cpuUsPerItem"), run));
      rows.add(row(g[0], "CPU per item, stream thread, µs", o.get("streamThreadUsPerItem"), rounds,
          r -> r.get("streamThreadUsPerItem"), run));
      rows.add(row(g[0], "Kafka records written per item", o.get("recordsPerItem"), rounds,
          r -> r.get("recordsPerItem"), run));
      String half = isNum(o.get("offeredPerSec")) ? " at " + num(o.get("offeredPerSec").asDouble()) + " items/s" : "";
      rows.add(row(g[0], "latency p50" + half + " (half), ms", o.path("latencyMs").get("p50"), rounds,
          r -> r.path("latencyMs").get("p50"), run));
      rows.add(row(g[0], "latency p99" + half + " (half), ms", o.path("latencyMs").get("p99"), rounds,
          r -> r.path("latencyMs").get("p99"), run));
    }
    JsonNode bl = j.path("backlog");
    if (bl.has("backlogItems")) {
      figureRow(rows, run, "backlog", "dequeue, empty queue, items/s", bl.path("empty"), "itemsPerSec");
      figureRow(rows, run, "backlog", "dequeue, " + num(bl.get("backlogItems").asDouble()) + " items standing, items/s",
          bl.path("standing"), "itemsPerSec");
      ratioRow(rows, run, "backlog", "standing / empty", j.path("ratios").get("backlogVsEmpty"));
    }
    JsonNode d = j.path("delays");
    if (d.has("latenessMs")) {
      String what = "lateness over tiers " + d.path("tiers").asText() + ", ";
      rows.add(row("delay", what + "p50, ms", d.path("latenessMs").get("p50"), d.path("rounds"), r -> r.get("p50"), run));
      rows.add(row("delay", what + "p99, ms", d.path("latenessMs").get("p99"), d.path("rounds"), r -> r.get("p99"), run));
    }
    JsonNode h = j.path("http");
    if (h.has("throughput")) {
      String workers = h.path("workers").asInt() + " workers, dequeue " + h.path("dequeueCount").asInt() + " + batch ack";
      figureRow(rows, run, "http", workers + ", " + j.path("options").path("partitions").asInt() + " partitions, items/s",
          h.path("throughput"), "itemsPerSec");
      figureRow(rows, run, "http", "the same, " + h.path("widePartitions").asInt() + " partitions, items/s",
          h.path("wideThroughput"), "itemsPerSec");
      ratioRow(rows, run, "http", "HTTP / lease consumers (exactly-once, same round)", h.get("vsLeaseConsumers"));
      JsonNode each = h.path("singleAcks");
      if (each.has("narrow")) {
        String oneByOne = h.path("workers").asInt() + " workers, dequeue " + each.path("dequeueCount").asInt()
            + ", ack one by one, ";
        int narrow = each.path("narrowPartitions").asInt();
        int wide = each.path("widePartitions").asInt();
        figureRow(rows, run, "http", oneByOne + narrow + " partitions, items/s", each.path("narrow"), "itemsPerSec");
        figureRow(rows, run, "http", oneByOne + wide + " partitions, items/s", each.path("wide"), "itemsPerSec");
        ratioRow(rows, run, "http", "ack one by one, ratio " + wide + " / " + narrow + " partitions (goal ≥ 0.8)",
            each.get("wideVsNarrow"));
      }
      latencyRow(rows, run, "http", "dequeue(" + h.path("dequeueCount").asInt() + ") of ready items, ms", h.path("dequeueMs"));
      latencyRow(rows, run, "http", "single ack at half load, ms", h.path("ackMs"));
      latencyRow(rows, run, "http", "one call, quiet server: enqueue, ms", h.path("quietEnqueueMs"));
      latencyRow(rows, run, "http", "one call, quiet server: dequeue of 1 ready item, ms", h.path("quietDequeueMs"));
      latencyRow(rows, run, "http", "one call, quiet server: ack, ms", h.path("quietAckMs"));
    }
    JsonNode q = j.path("sqs");
    if (q.has("workers")) {
      figureRow(rows, run, "sqs", "SendMessageBatch (10 a call), items/s", q.path("sendMessageBatch"), "itemsPerSec");
      figureRow(rows, run, "sqs", "ReceiveMessage(10) + DeleteMessageBatch, items/s", q.path("receiveAndDeleteBatch"),
          "itemsPerSec");
      figureRow(rows, run, "sqs", "Ordo's HTTP, dequeue(10) + batch ack, items/s", q.path("httpDequeue10"), "itemsPerSec");
      ratioRow(rows, run, "sqs", "receive loop / HTTP path (dequeue 50)", q.get("workVsHttp"));
      ratioRow(rows, run, "sqs", "receive loop / Ordo's HTTP at 10", q.get("workVsHttp10"));
    }
    JsonNode t = j.path("tenants");
    if (t.has("off")) {
      String keys = num(t.path("groupKeys").asDouble()) + " group keys";
      ordoRows(rows, run, "tenants", keys + ", no policy", t.path("off"));
      ordoRows(rows, run, "tenants", keys + ", shards 2 + group rates", t.path("on"));
      ratioRow(rows, run, "tenants", "throughput, on / off", t.get("throughputOnOverOff"));
      ratioRow(rows, run, "tenants", "CPU per item (all threads), on / off", t.get("cpuOnOverOff"));
    }
    JsonNode c = j.path("cost");
    if (c.has("withoutPolicies")) {
      ratioRow(rows, run, "cost", "throughput with policies / without", c.get("throughputWithOverWithout"));
      ratioRow(rows, run, "cost", "stream thread CPU per item, with / without", c.get("streamCpuWithOverWithout"));
    }
    JsonNode sg = j.path("surge");
    for (String[] side : new String[][] {{"withoutPolicies", "no policies"}, {"withPolicies", "policies"}}) {
      JsonNode s = sg.path(side[0]);
      if (s.has("p99DuringOverBefore")) {
        rows.add(row("surge", "A's p99 during B's surge / before, " + side[1], s.get("p99DuringOverBefore"),
            s.path("rounds"), Function.identity(), run));
      }
    }
    JsonNode f = j.path("fairness");
    if (f.has("queue")) {
      rows.add(row("fairness", "Alice's p99 behind Bob / alone", f.path("queue").get("p99BehindOverAlone"),
          f.path("queue").path("rounds"), Function.identity(), run));
      rows.add(row("fairness", "a plain Kafka record's p99, the same", f.path("queue").get("pingP99BehindOverAlone"),
          f.path("queue").path("pingRounds"), Function.identity(), run));
      rows.add(row("fairness", "heavy / light served (weights 3:1)", f.path("weights").get("ratio"),
          f.path("weights").path("rounds"), Function.identity(), run));
      ratioRow(rows, run, "fairness", "throughput with group keys / without (slices)",
          f.path("cost").path("slices").get("throughputWithOverWithout"));
    }
    JsonNode r = j.path("ratios");
    ratioRow(rows, run, "ratios", "Ordo exactly-once / raw Kafka", r.get("ordoVsRawKafka"));
    ratioRow(rows, run, "ratios", "Ordo exactly-once / share group", r.get("ordoVsShareGroups"));
    ratioRow(rows, run, "ratios", "Ordo at-least-once / raw Kafka", r.get("atLeastOnceVsRawKafka"));
    ratioRow(rows, run, "ratios", "Ordo at-least-once / share group", r.get("atLeastOnceVsShareGroups"));
  }

  /** An end-to-end run of a scenario of its own (tenants): items/s and CPU per item, all threads. */
  private static void ordoRows(List<Row> rows, String run, String scenario, String which, JsonNode o) {
    if (!isNum(o.get("itemsPerSec"))) {
      return;
    }
    JsonNode rounds = o.path("rounds");
    rows.add(row(scenario, which + ", items/s", o.get("itemsPerSec"), rounds, x -> x.get("itemsPerSec"), run));
    rows.add(row(scenario, which + ", CPU per item, all threads, µs", o.get("cpuUsPerItem"), rounds,
        x -> x.get("cpuUsPerItem"), run));
  }

  /** A {@code BenchReport.Figure} as JSON: {@code {name: median, rounds: [...]}}; nothing when not measured. */
  private static void figureRow(List<Row> rows, String run, String scenario, String figure, JsonNode node, String name) {
    if (isNum(node.get(name))) {
      rows.add(row(scenario, figure, node.get(name), node.path("rounds"), Function.identity(), run));
    }
  }

  private static void ratioRow(List<Row> rows, String run, String scenario, String figure, JsonNode v) {
    if (isNum(v)) {
      rows.add(new Row(scenario, figure, String.format(Locale.ROOT, "%.2f", v.asDouble()), DASH, "", run));
    }
  }

  /** A latency measured once over all its rounds' calls: p50 as the figure, p99 and max beside it. */
  private static void latencyRow(List<Row> rows, String run, String scenario, String figure, JsonNode l) {
    if (isNum(l.get("p50"))) {
      rows.add(new Row(scenario, figure.replace(", ms", " p50, ms"), num(l.get("p50").asDouble()), DASH,
          "p99 " + (isNum(l.get("p99")) ? num(l.get("p99").asDouble()) : DASH) + ", max "
              + (isNum(l.get("max")) ? num(l.get("max").asDouble()) : DASH), run));
    }
  }

  /** A median from the JSON and the range of {@code each} over {@code rounds}. */
  private static Row row(String scenario, String figure, JsonNode median, JsonNode rounds,
      Function<JsonNode, JsonNode> each, String run) {
    List<Double> values = new ArrayList<>();
    int n = 0;
    if (rounds != null && rounds.isArray()) {
      for (JsonNode r : rounds) {
        n++;
        JsonNode v = each.apply(r);
        if (isNum(v)) {
          values.add(v.asDouble());
        }
      }
    }
    String range = values.isEmpty() ? DASH : range(values);
    String over = n == 0 ? "" : values.size() == n ? n + (n == 1 ? " round" : " rounds")
        : values.isEmpty() ? n + " rounds, not recorded each" : values.size() + " of " + n + " rounds";
    return new Row(scenario, figure, isNum(median) ? num(median.asDouble()) : DASH, range, over, run);
  }

  private static String range(List<Double> values) {
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return num(min) + DASH + num(max);
  }

  // ---- the fault modes ----

  private static void failoverRows(JsonNode j, String run, List<Row> rows) {
    for (JsonNode r : j.path("runs")) {
      String which = "standbys " + r.path("standbys").asInt() + ", " + num(r.path("items").asDouble()) + " items";
      List<Double> each = new ArrayList<>();
      r.path("partitionSeconds").forEach(v -> {
        if (isNum(v)) {
          each.add(v.asDouble());
        }
      });
      rows.add(new Row("failover", which + ": the killed server's partitions dispatch again after, s",
          isNum(r.get("takeoverSeconds")) ? num(r.get("takeoverSeconds").asDouble()) : DASH,
          each.isEmpty() ? DASH : range(each), count(each.size(), "partition"), run));
      String missing = isNum(r.get("missing")) ? num(r.get("missing").asDouble()) : "not drained";
      rows.add(new Row("failover", which + ": handled twice / missing / lost",
          num(r.path("duplicates").asDouble()) + " / " + missing + " / " + num(r.path("lostItems").asDouble()), DASH,
          "", run));
    }
  }

  private static void drainRows(JsonNode j, String run, List<Row> rows) {
    JsonNode d = j.path("drain");
    String items = num(d.path("items").asDouble()) + " items";
    rows.add(new Row("drain", items + ": drained at, items/s", numOr(d.get("itemsPerSec")), DASH,
        "in " + numOr(d.get("drainSeconds")) + " s", run));
    rows.add(new Row("drain", "pop rate, second tenth → last tenth, items/s",
        numOr(d.get("startItemsPerSec")) + " → " + numOr(d.get("endItemsPerSec")), DASH,
        "end / start " + (isNum(d.get("endOverStart")) ? String.format(Locale.ROOT, "%.2f", d.get("endOverStart").asDouble()) : DASH),
        run));
    sampleRow(rows, run, "drain", "heap after GC, MiB, at most", d.get("maxHeapAfterGcMiB"), d.path("samples"),
        "heapAfterGcMiB");
    sampleRow(rows, run, "drain", "RSS, MiB, at most", d.get("maxRssMiB"), d.path("samples"), "rssMiB");
  }

  private static void soakRows(JsonNode j, String run, List<Row> rows) {
    JsonNode s = j.path("soak");
    JsonNode o = j.path("options");
    String what = num(o.path("minutes").asDouble()) + " min at " + num(o.path("rate").asDouble()) + " items/s, "
        + s.path("restarts").asInt() + " restarts";
    rows.add(new Row("soak", what + ": items enqueued / missing / otherwise than set / early",
        num(s.path("enqueued").asDouble()) + " / " + num(s.path("missing").asDouble()) + " / "
            + num(s.path("misplaced").asDouble()) + " / " + num(s.path("early").asDouble()), DASH, "", run));
    sampleRow(rows, run, "soak", "heap after GC trend, MiB/min", s.get("heapTrendMibPerMinute"), s.path("samples"),
        "heapAfterGcMiB");
    sampleRow(rows, run, "soak", "RSS trend, MiB/min", s.get("rssTrendMibPerMinute"), s.path("samples"), "rssMiB");
  }

  private static void nemesisRows(JsonNode j, String run, List<Row> rows) {
    JsonNode n = j.path("nemesis");
    rows.add(new Row("nemesis", "operations checked, under " + n.path("faults").size() + " faults",
        num(n.path("operations").asDouble()), DASH, "seed " + j.path("options").path("seed").asText(DASH), run));
    rows.add(new Row("nemesis", "violations", Integer.toString(n.path("violations").size()), DASH,
        n.path("summary").asText(""), run));
  }

  /** A figure with the range of a memory field over the samples (MiB): what the figure sums up. */
  private static void sampleRow(List<Row> rows, String run, String scenario, String figure, JsonNode v,
      JsonNode samples, String field) {
    List<Double> each = new ArrayList<>();
    samples.forEach(x -> {
      if (isNum(x.get(field))) {
        each.add(x.get(field).asDouble());
      }
    });
    String value = !isNum(v) ? DASH : figure.contains("trend")
        ? String.format(Locale.ROOT, "%+.2f", v.asDouble()) : num(v.asDouble());
    rows.add(new Row(scenario, figure, value, each.isEmpty() ? DASH : range(each) + " MiB",
        count(each.size(), "sample"), run));
  }

  private static String count(int n, String what) {
    return n + " " + what + (n == 1 ? "" : "s");
  }

  // ---- the environment ----

  /** The machine: cores, CPU model, memory, OS and Java, from the JSON's environment. */
  static String machine(JsonNode env) {
    StringBuilder b = new StringBuilder();
    b.append(env.path("cores").asInt()).append(" cores");
    String cpu = env.path("cpu").asText("");
    if (!cpu.isBlank()) {
      b.append(" (").append(cpu).append(')');
    }
    long mem = env.path("memoryBytes").asLong(-1);
    if (mem > 0) {
      b.append(String.format(Locale.ROOT, ", %.0f GiB", mem / (double) (1L << 30)));
    }
    b.append(", ").append(env.path("os").asText("?")).append(", Java ").append(env.path("java").asText("?"));
    return b.toString();
  }

  private static String load(JsonNode env) {
    List<Double> loads = new ArrayList<>();
    env.path("loadAverages").forEach(l -> loads.add(l.asDouble()));
    if (loads.isEmpty()) {
      return "";
    }
    double min = loads.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    double max = loads.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    return String.format(Locale.ROOT, "; load %.1f%s", min, min == max ? "" : String.format(Locale.ROOT, "–%.1f", max));
  }

  /** The day and minute the run started, UTC. */
  static String date(JsonNode env) {
    String s = env.path("startedAt").asText("");
    return s.length() >= 16 ? s.substring(0, 10) + " " + s.substring(11, 16) + " UTC" : "not recorded";
  }

  /**
   * The command of a run without its {@code --json FILE} (where it wrote is no part of what it measured); a bench
   * JSON from before the command was recorded gets one made from its options.
   */
  static String command(JsonNode j, Kind kind) {
    String c = j.path("environment").path("command").asText("");
    if (c.isBlank()) {
      if (kind != Kind.BENCH) {
        return kind.command;
      }
      JsonNode o = j.path("options");
      List<String> scenarios = new ArrayList<>();
      o.path("scenarios").forEach(s -> scenarios.add(s.asText()));
      return "ordo bench --" + o.path("size").asText("full") + " --rounds " + o.path("rounds").asInt()
          + (scenarios.isEmpty() ? "" : " --scenarios " + String.join(",", scenarios));
    }
    return c.replaceAll("\\s+--json(=|\\s+)\\S+", "").trim();
  }

  /** {@link #command} as code, said to be made from the options when the JSON did not record it. */
  private static String commandText(JsonNode j, Kind kind) {
    boolean recorded = !j.path("environment").path("command").asText("").isBlank();
    return "`" + command(j, kind) + "`" + (recorded ? "" : " (made from its options)");
  }

  private static String text(JsonNode env, String field) {
    String s = env.path(field).asText("");
    return s.isBlank() ? "not recorded" : s;
  }

  // ---- numbers ----

  private static boolean isNum(JsonNode v) {
    return v != null && v.isNumber();
  }

  private static String numOr(JsonNode v) {
    return isNum(v) ? num(v.asDouble()) : DASH;
  }

  /** 15,797; 342; 76.5; 1.15: thousands grouped, three significant digits below 1,000. */
  static String num(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return DASH;
    }
    double a = Math.abs(v);
    if (a >= 1000 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
