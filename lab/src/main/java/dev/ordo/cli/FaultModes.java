package dev.ordo.cli;

import dev.ordo.faults.DrainRun;
import dev.ordo.faults.FailoverRun;
import dev.ordo.faults.FaultReport;
import dev.ordo.faults.NemesisRun;
import dev.ordo.faults.SoakRun;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fault modes of {@code ordo bench} (issue 17), each a run of its own against {@code ordo server}
 * processes instead of the scenarios' rounds: {@code --failover} (a server killed with a standing
 * backlog, with and without standbys), {@code --drain} (a large backlog on one server with a small
 * heap), {@code --soak} (mixed load and restarts for half an hour, memory sampled) and {@code --nemesis}
 * (faults of every kind in turn under a mixed workload, the whole history checked; issue 44).
 */
final class FaultModes {
  static final String USAGE =
      "Fault modes of ordo bench (one at a time, instead of the scenarios; each runs ordo server processes):\n" +
      "  --failover         two servers, a standing backlog, one killed with SIGKILL: time until its\n" +
      "                     partitions dispatch again on the survivor, with and without standbys\n" +
      "    --failover-items N     the backlog (default 1M)\n" +
      "    --failover-standbys L  standby settings to run, e.g. 0,1 (default 0,1)\n" +
      "  --drain            one server with -Xmx1g: enqueue a backlog, drain it; heap after GC, RSS and\n" +
      "                     the pop rate at the start and the end\n" +
      "    --drain-items N        the backlog (default 10M)\n" +
      "  --soak             mixed load over two servers, one restarted every few minutes; heap after GC\n" +
      "                     and RSS each minute; every item accounted for at the end\n" +
      "    --soak-minutes N       how long (default 30)\n" +
      "    --soak-restart-minutes N  a restart every N minutes (default 5)\n" +
      "    --soak-rate N          items/s offered (default 200)\n" +
      "  --nemesis [DURATION]  three servers on three brokers of their own, faults of every kind in turn\n" +
      "                     (kill, pause, broker, network, clock) for DURATION (default 10m) under a mixed\n" +
      "                     workload; every operation logged and the history checked: prints the faults, the\n" +
      "                     operations and every violation, exits 1 on any\n" +
      "    --nemesis-seed N       the seed of the faults and the workload (default 1)\n" +
      "    --nemesis-rate N       items/s offered (default 30)\n" +
      "  --partitions N     partitions of the cluster's topics (default 4)\n" +
      "  --server-heap SIZE -Xmx of each server (default 1g)\n" +
      "  --server-setting K=V  a setting of each server (as in its --config), repeatable\n" +
      "  --json FILE        also write the result as JSON to FILE (for ordo bench report)";

  private enum Mode { FAILOVER, DRAIN, SOAK, NEMESIS }

  private final Mode mode;
  private final Map<String, String> values;
  private final Map<String, String> serverSettings = new TreeMap<>();

  private FaultModes(Mode mode, Map<String, String> values) {
    this.mode = mode;
    this.values = values;
  }

  static boolean isFaultMode(List<String> args) {
    return args.contains("--failover") || args.contains("--drain") || args.contains("--soak")
        || args.contains("--nemesis");
  }

  static FaultModes parse(List<String> args) {
    Mode mode = null;
    Map<String, String> values = new TreeMap<>();
    Map<String, String> settings = new TreeMap<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      Mode m = switch (a) {
        case "--failover" -> Mode.FAILOVER;
        case "--drain" -> Mode.DRAIN;
        case "--soak" -> Mode.SOAK;
        case "--nemesis" -> Mode.NEMESIS;
        default -> null;
      };
      if (m != null) {
        if (mode != null) {
          throw new IllegalArgumentException("one fault mode at a time: --failover, --drain, --soak or --nemesis");
        }
        mode = m;
        if (m == Mode.NEMESIS && i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
          values.put("--nemesis", args.get(++i)); // its optional duration
        }
        continue;
      }
      String key = a;
      String value;
      int eq = a.indexOf('=');
      if (eq > 0) {
        key = a.substring(0, eq);
        value = a.substring(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args.get(++i);
      } else {
        throw new IllegalArgumentException("missing value of " + a);
      }
      if (key.equals("--server-setting")) {
        int kv = value.indexOf('=');
        if (kv < 1) {
          throw new IllegalArgumentException("--server-setting takes KEY=VALUE, got " + value);
        }
        settings.put(value.substring(0, kv), value.substring(kv + 1));
        continue;
      }
      if (!List.of("--failover-items", "--failover-standbys", "--drain-items", "--soak-minutes",
          "--soak-restart-minutes", "--soak-rate", "--nemesis-seed", "--nemesis-rate", "--partitions",
          "--server-heap", "--json").contains(key)) {
        throw new IllegalArgumentException("unknown option of a fault mode: " + key);
      }
      values.put(key, value);
    }
    FaultModes f = new FaultModes(mode, values);
    f.serverSettings.putAll(settings);
    // Check every value now, before anything starts.
    f.number("--failover-items", 1_000_000);
    f.standbys();
    f.number("--drain-items", 10_000_000);
    f.number("--soak-minutes", 30);
    f.number("--soak-restart-minutes", 5);
    f.number("--soak-rate", 200);
    f.number("--partitions", 4);
    f.number("--nemesis-rate", 30);
    f.nemesisDuration();
    f.seed();
    f.heap();
    return f;
  }

  /** {@code --nemesis}'s duration (e.g. 10m, 120s; default 10 minutes). */
  private Duration nemesisDuration() {
    String v = values.get("--nemesis");
    if (v == null) {
      return Duration.ofMinutes(10);
    }
    try {
      Duration d = dev.ordo.api.Durations.parse(v);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException();
      }
      return d;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("--nemesis takes a duration such as 10m or 120s, got " + v);
    }
  }

  private long seed() {
    String v = values.getOrDefault("--nemesis-seed", "1");
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--nemesis-seed must be a number, got " + v);
    }
  }

  /** True for the modes that need the bench's Kafka (the nemesis brings a cluster of its own). */
  boolean needsKafka() {
    return mode != Mode.NEMESIS;
  }

  private long number(String key, long otherwise) {
    String v = values.get(key);
    if (v == null) {
      return otherwise;
    }
    String s = v.replace("_", "").toLowerCase(Locale.ROOT);
    long scale = 1;
    if (s.endsWith("k")) {
      scale = 1_000;
      s = s.substring(0, s.length() - 1);
    } else if (s.endsWith("m")) {
      scale = 1_000_000;
      s = s.substring(0, s.length() - 1);
    }
    try {
      long n = Long.parseLong(s) * scale;
      if (n < 1) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a positive number (k and m allowed), got " + v);
    }
  }

  private List<Integer> standbys() {
    List<Integer> list = new ArrayList<>();
    for (String s : values.getOrDefault("--failover-standbys", "0,1").split(",")) {
      try {
        int n = Integer.parseInt(s.trim());
        if (n < 0) {
          throw new NumberFormatException();
        }
        list.add(n);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--failover-standbys must list numbers >= 0, got "
            + values.get("--failover-standbys"));
      }
    }
    return list;
  }

  private String heap() {
    String h = values.getOrDefault("--server-heap", "1g");
    if (!h.matches("[0-9]+[kKmMgG]?")) {
      throw new IllegalArgumentException("--server-heap must be a JVM heap size such as 1g or 768m, got " + h);
    }
    return h;
  }

  /** With {@code --json FILE}: the result as JSON ({@link FaultReport}), with this mode's options. */
  private void json(String kind, java.time.Instant started, PrintStream out,
      java.util.function.UnaryOperator<FaultReport> fill) {
    String file = values.get("--json");
    if (file == null) {
      return;
    }
    Map<String, Object> o = new java.util.LinkedHashMap<>();
    switch (mode) {
      case FAILOVER -> {
        o.put("items", number("--failover-items", 1_000_000));
        o.put("standbys", standbys());
      }
      case DRAIN -> o.put("items", number("--drain-items", 10_000_000));
      case SOAK -> {
        o.put("minutes", number("--soak-minutes", 30));
        o.put("restartMinutes", number("--soak-restart-minutes", 5));
        o.put("rate", number("--soak-rate", 200));
      }
      case NEMESIS -> {
        o.put("seconds", nemesisDuration().toSeconds());
        o.put("seed", seed());
        o.put("rate", number("--nemesis-rate", 30));
      }
    }
    o.put("partitions", number("--partitions", 4));
    o.put("serverHeap", heap());
    o.put("serverSettings", serverSettings);
    fill.apply(new FaultReport(kind, started, o)).write(Path.of(file));
    out.println("JSON written to " + file);
  }

  /** The collector of the launcher's default (decisions 0070), so the servers run as {@code ordo server} does. */
  private static final String SERVER_GC = "-XX:+UseParallelGC";

  int run(String bootstrap, PrintStream out) throws IOException {
    // The whole heap touched at start: a server's RSS then holds its heap from the first sample, and
    // what it grows by afterwards is off the heap (RocksDB, metaspace, threads), which the soak watches.
    List<String> jvm = List.of("-Xmx" + heap(), "-Xms" + heap(), "-XX:+AlwaysPreTouch", SERVER_GC);
    int partitions = Math.toIntExact(number("--partitions", 4));
    String run = Long.toString(System.currentTimeMillis() % 100_000);
    java.time.Instant started = java.time.Instant.now();
    Path dir = Files.createTempDirectory("ordo-bench-" + mode.name().toLowerCase(Locale.ROOT) + "-");
    try {
      switch (mode) {
        case FAILOVER -> {
          List<FailoverRun.Result> results = new ArrayList<>();
          for (int standbys : standbys()) {
            FailoverRun.Options o = new FailoverRun.Options(Math.toIntExact(number("--failover-items", 1_000_000)),
                partitions, standbys, 200, false, jvm, serverSettings);
            results.add(FailoverRun.run(bootstrap, "failover" + standbys + "-" + run, o, dir.resolve("s" + standbys),
                out));
          }
          out.println();
          out.println("Failover with a backlog (two servers, one killed with SIGKILL):");
          results.forEach(r -> out.println("  " + r.line()));
          json(FaultReport.FAILOVER, started, out, report -> report.failover(results));
        }
        case DRAIN -> {
          DrainRun.Result r = DrainRun.run(bootstrap, "drain-" + run, new DrainRun.Options(
              number("--drain-items", 10_000_000), partitions, 200, jvm, Duration.ofSeconds(30), serverSettings), dir, out);
          out.println();
          out.println("Backlog drain (one server, -Xmx" + heap() + "):");
          out.println("  " + r.line());
          json(FaultReport.DRAIN, started, out, report -> report.drain(r));
        }
        case NEMESIS -> {
          NemesisRun.Result r = NemesisRun.run(new NemesisRun.Options(nemesisDuration(), seed(), partitions,
              Math.toIntExact(number("--nemesis-rate", 30)), Duration.ofSeconds(15), Duration.ofSeconds(2),
              List.of("-Xmx" + heap(), SERVER_GC)), dir, out);
          out.println();
          out.println("Nemesis (three servers, three brokers, seed " + seed() + "):");
          r.faults().forEach(f -> out.println("  fault " + f.line()));
          out.println("  " + r.line());
          r.check().violations().forEach(v -> out.println("  violation: " + v));
          json(FaultReport.NEMESIS, started, out, report -> report.nemesis(r));
          return r.ok() ? 0 : 1;
        }
        case SOAK -> {
          SoakRun.Result r = SoakRun.run(bootstrap, "soak-" + run, new SoakRun.Options(
              Duration.ofMinutes(number("--soak-minutes", 30)), Math.toIntExact(number("--soak-rate", 200)),
              Duration.ofMinutes(number("--soak-restart-minutes", 5)), Duration.ofMinutes(1), partitions, jvm,
              serverSettings),
              dir, out);
          out.println();
          out.println("Soak (two servers, -Xmx" + heap() + "; samples above):");
          out.println("  " + r.line());
          json(FaultReport.SOAK, started, out, report -> report.soak(r));
          return r.missing() == 0 && r.misplaced() == 0 && r.early() == 0 ? 0 : 1;
        }
      }
      return 0;
    } finally {
      // -Dordo.bench.keep=true keeps the servers' state and logs (<dir>/<server>.log) for a look afterwards.
      if (Boolean.getBoolean("ordo.bench.keep")) {
        out.println("Kept the servers' state and logs in " + dir);
      } else {
        BenchCommand.delete(dir);
      }
    }
  }
}
