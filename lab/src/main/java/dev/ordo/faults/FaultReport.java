package dev.ordo.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordo.bench.RunInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A fault mode's result as JSON ({@code ordo bench --failover|--drain|--soak|--nemesis --json FILE}),
 * for {@code ordo bench report}: {@code kind} ({@code ordo-failover}, {@code ordo-drain}, {@code ordo-soak},
 * {@code ordo-nemesis}), {@code environment} (as {@code ordo bench}'s JSON: cores, Java, load, build,
 * command line, memory; {@link RunInfo}), {@code options} (the mode's sizes and server settings) and the
 * mode's own figures, durations in seconds and memory in MiB.
 */
public final class FaultReport {
  public static final String FAILOVER = "ordo-failover";
  public static final String DRAIN = "ordo-drain";
  public static final String SOAK = "ordo-soak";
  public static final String NEMESIS = "ordo-nemesis";

  private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final ObjectNode root = MAPPER.createObjectNode();

  /** A report of {@code kind} that started at {@code startedAt}, with the mode's {@code options}. */
  public FaultReport(String kind, Instant startedAt, Map<String, ?> options) {
    root.put("kind", kind);
    RunInfo.environment(root.putObject("environment"), startedAt.toString(),
        Duration.between(startedAt, Instant.now()).toMillis() / 1e3);
    ObjectNode o = root.putObject("options");
    options.forEach((k, v) -> o.putPOJO(k, v));
  }

  /** The failover runs, one per standby setting. */
  public FaultReport failover(List<FailoverRun.Result> results) {
    ArrayNode runs = root.putArray("runs");
    for (FailoverRun.Result r : results) {
      ObjectNode n = runs.addObject();
      n.put("standbys", r.standbys());
      n.put("items", r.items());
      ArrayNode victims = n.putArray("victimPartitions");
      r.victimPartitions().stream().sorted().forEach(victims::add);
      n.put("handledAtKill", r.handledAtKill());
      num(n, "takeoverSeconds", seconds(r.takeover()));
      ObjectNode each = n.putObject("partitionSeconds");
      new java.util.TreeMap<>(r.perPartition()).forEach((p, d) -> each.put(Integer.toString(p), seconds(d)));
      n.put("ingestSeconds", seconds(r.ingest()));
      n.put("handled", r.handled());
      n.put("duplicates", r.duplicates());
      if (r.missing() < 0) {
        n.putNull("missing"); // the rest not drained
      } else {
        n.put("missing", r.missing());
      }
      n.put("unknown", r.unknown());
      n.put("tableRebuilds", r.tableRebuilds());
      n.put("rebuiltItems", r.rebuiltItems());
      n.put("lostItems", r.lostItems());
    }
    return this;
  }

  /** The backlog drain. */
  public FaultReport drain(DrainRun.Result r) {
    ObjectNode n = root.putObject("drain");
    n.put("items", r.items());
    n.put("enqueueSeconds", seconds(r.enqueue()));
    n.put("ingestSeconds", seconds(r.ingest()));
    n.put("drainSeconds", seconds(r.drain()));
    num(n, "itemsPerSec", r.drain().isZero() ? 0 : r.items() / (r.drain().toMillis() / 1e3));
    num(n, "startItemsPerSec", r.startRate());
    num(n, "endItemsPerSec", r.endRate());
    num(n, "endOverStart", r.endToStart());
    n.put("maxHeapAfterGcMiB", r.maxHeapAfterGc() >> 20);
    n.put("maxRssMiB", r.maxRss() >> 20);
    ArrayNode samples = n.putArray("samples");
    r.samples().forEach(s -> samples.addObject().put("atSeconds", seconds(s.at())).put("phase", s.phase())
        .put("handled", s.handled()).put("heapAfterGcMiB", s.heapAfterGcBytes() >> 20).put("rssMiB", s.rssBytes() >> 20));
    return this;
  }

  /** The soak. */
  public FaultReport soak(SoakRun.Result r) {
    ObjectNode n = root.putObject("soak");
    n.put("enqueued", r.enqueued());
    n.put("acked", r.acked());
    n.put("deadLettered", r.deadLettered());
    n.put("missing", r.missing());
    n.put("misplaced", r.misplaced());
    n.put("early", r.early());
    n.put("restarts", r.restarts());
    num(n, "heapTrendMibPerMinute", r.heapTrendMibPerMinute());
    num(n, "rssTrendMibPerMinute", r.rssTrendMibPerMinute());
    ArrayNode samples = n.putArray("samples");
    r.samples().forEach(s -> samples.addObject().put("atSeconds", seconds(s.at())).put("server", s.server())
        .put("heapAfterGcMiB", s.heapAfterGcBytes() >> 20).put("rssMiB", s.rssBytes() >> 20));
    return this;
  }

  /** The nemesis: its faults, and what the history checker found. */
  public FaultReport nemesis(NemesisRun.Result r) {
    ObjectNode n = root.putObject("nemesis");
    n.put("operations", r.operations());
    n.put("enqueued", r.enqueued());
    n.put("summary", r.check().summary());
    n.put("ok", r.ok());
    ArrayNode faults = n.putArray("faults");
    r.faults().forEach(f -> faults.addObject().put("atSeconds", seconds(f.at())).put("what", f.what()));
    ArrayNode violations = n.putArray("violations");
    r.check().violations().forEach(v -> violations.add(v.toString()));
    return this;
  }

  public String toJson() {
    try {
      return MAPPER.writeValueAsString(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("could not write the fault report as JSON", e);
    }
  }

  /** Writes {@link #toJson} to {@code file} (its directory made if missing). */
  public void write(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, toJson(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + file, e);
    }
  }

  private static double seconds(Duration d) {
    return d == null ? Double.NaN : d.toMillis() / 1e3;
  }

  /** A figure rounded to 3 decimals, null when not finite (a rate of a phase too short to time). */
  private static void num(ObjectNode node, String name, double v) {
    if (Double.isFinite(v)) {
      node.put(name, Math.round(v * 1000) / 1000.0);
    } else {
      node.putNull(name);
    }
  }
}
