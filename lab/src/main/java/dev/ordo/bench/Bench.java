package dev.ordo.bench;

import dev.ordo.bench.BenchOptions.Scenario;
import dev.ordo.bench.BenchReport.Figure;
import dev.ordo.bench.BenchReport.Latency;
import dev.ordo.bench.internal.BenchKafka;
import dev.ordo.bench.internal.FairPlan;
import dev.ordo.bench.internal.FairnessScenario;
import dev.ordo.bench.internal.HttpScenario.AckMode;
import dev.ordo.bench.internal.OrdoScenarios;
import dev.ordo.bench.internal.PolicyText;
import dev.ordo.bench.internal.RawKafkaScenario;
import dev.ordo.bench.internal.ShareGroupScenario;
import dev.ordo.bench.internal.Stats;
import dev.ordo.bench.internal.SurgePlan;
import dev.ordo.bench.internal.SurgeScenario;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * {@code ordo bench}: Ordo against raw Kafka and Kafka share groups, in one run, as ratios.
 *
 * <p>Against the Kafka cluster at the given bootstrap servers, each round runs, back to back:
 * <ol>
 *   <li>the baselines with the same records: a plain producer to a plain consumer, and a share group
 *       that ACCEPTs every record ({@link RawKafkaScenario}, {@link ShareGroupScenario});</li>
 *   <li>Ordo end to end under exactly_once_v2 and at_least_once: throughput of a producer and lease
 *       consumers acking, then enqueue-to-handler latency at half that throughput;</li>
 *   <li>Ordo's dequeue throughput with an empty queue and with a standing backlog;</li>
 *   <li>the lateness of delayed items over every (shortened) delay tier;</li>
 *   <li>Ordo over HTTP: an {@code ordo server} worked by keep-alive HTTP workers acking in batches,
 *       with the run's partitions and with 32 ({@link dev.ordo.bench.internal.HttpScenario}); then
 *       workers acking each item with its own request, with 4 partitions and with 16 (issue 45), the
 *       first of the two alternating by round ({@code --quick}: with 4 only);</li>
 *   <li>when asked for by name, namespace policies (issue 13): a tenant's latency while another one
 *       surges, without policies and with them ({@link SurgeScenario}); and the end-to-end
 *       at-least-once throughput without policies and with a policy that never binds (the cost of
 *       a policy). Each round runs the two sides in turn, the first of them alternating by round.</li>
 *   <li>when asked for by name, fair queueing among group keys (issue 14): Alice's wait behind Bob's
 *       backlog and the dispatches before each of her items, a 3:1 weighted share
 *       ({@link FairnessScenario}), and the end-to-end at-least-once throughput with a group key on
 *       every item against none (in turn, as above).</li>
 * </ol>
 * Every scenario of every round creates its own topics (and Ordo cluster: a queue instance and
 * delay-tier forwarders in this process, state in a temporary directory) under a name unique to
 * the run, and deletes them afterwards, so rounds do not see each other's data. Each figure is the
 * median over the rounds.
 *
 * <p>Embedding (the {@code ordo bench} command does this):
 * <pre>{@code
 * BenchOptions options = BenchOptions.parse("--quick", "--json", "bench.json");
 * BenchReport report = Bench.run("localhost:9092", options, System.out);
 * }</pre>
 */
public final class Bench {
  private Bench() {}

  /**
   * Runs every scenario of {@code options} against the Kafka cluster at {@code bootstrapServers},
   * printing progress and then the table to {@code out}, and writing the JSON to
   * {@code options.json()} when set. A scenario that fails in a round counts as not measured in
   * that round (the report's notes say why); the run goes on.
   *
   * @throws IllegalStateException when Kafka cannot be reached
   * @throws UncheckedIOException when the JSON file cannot be written
   */
  public static BenchReport run(String bootstrapServers, BenchOptions options, PrintStream out) {
    return run(bootstrapServers, options, out, null);
  }

  /** HTTP workers of the {@code http} scenario, and what each dequeues at once (issue 12). */
  static final int HTTP_WORKERS = 8;
  static final int HTTP_DEQUEUE = 50;
  /** SQS's most messages a receive: the sqs scenario's batch, and the dequeue of its HTTP reference loop. */
  static final int SQS_BATCH = 10;

  /** The partition count the {@code http} scenario compares the run's with. */
  static final int HTTP_WIDE_PARTITIONS = 32;

  /**
   * The {@code http} scenario's single-ack phase (issue 45): {@link #HTTP_WORKERS} workers that each
   * dequeue this many and ack them one by one, as a first HTTP client does, on
   * {@link #SINGLE_ACK_NARROW} and {@link #SINGLE_ACK_WIDE} partitions; the goal is a wide / narrow
   * ratio of at least 0.8.
   */
  static final int SINGLE_ACK_DEQUEUE = 20;
  static final int SINGLE_ACK_NARROW = 4;
  static final int SINGLE_ACK_WIDE = 16;

  /**
   * {@link #run(String, BenchOptions, PrintStream)} with a way to start an {@code ordo server} for the
   * {@code http} scenario; without one (null) that scenario is skipped with a note.
   */
  public static BenchReport run(String bootstrapServers, BenchOptions options, PrintStream out, HttpFrontEnd http) {
    long t0 = System.nanoTime();
    String startedAt = Instant.now().toString();
    String runId = "bench-" + Long.toString(System.currentTimeMillis(), 36);
    List<String> notes = new ArrayList<>();
    List<Double> loads = new ArrayList<>();
    int rounds = options.rounds();
    double[] raw = nans(rounds);
    double[] share = nans(rounds);
    OrdoScenarios.EndToEnd[] eos = new OrdoScenarios.EndToEnd[rounds];
    OrdoScenarios.EndToEnd[] alos = new OrdoScenarios.EndToEnd[rounds];
    OrdoScenarios.Backlog[] backlog = new OrdoScenarios.Backlog[rounds];
    Stats.Latency[] delays = new Stats.Latency[rounds];
    dev.ordo.bench.internal.HttpScenario.Result[] httpNarrow = new dev.ordo.bench.internal.HttpScenario.Result[rounds];
    dev.ordo.bench.internal.HttpScenario.Result[] httpWide = new dev.ordo.bench.internal.HttpScenario.Result[rounds];
    dev.ordo.bench.internal.HttpScenario.Result[] singleNarrow = new dev.ordo.bench.internal.HttpScenario.Result[rounds];
    dev.ordo.bench.internal.HttpScenario.Result[] singleWide = new dev.ordo.bench.internal.HttpScenario.Result[rounds];
    dev.ordo.bench.internal.SqsScenario.Result[] sqsRuns = new dev.ordo.bench.internal.SqsScenario.Result[rounds];
    dev.ordo.bench.internal.HttpScenario.Result[] http10 = new dev.ordo.bench.internal.HttpScenario.Result[rounds];
    SurgePlan surgePlan = SurgePlan.of(options.surge().tenantARate(), options.surge().seconds(),
        options.surge().calmSeconds(), options.surge().tenantBSharePercent() / 100.0);
    SurgeScenario.Result[] surgeWithout = new SurgeScenario.Result[rounds];
    SurgeScenario.Result[] surgeWith = new SurgeScenario.Result[rounds];
    OrdoScenarios.EndToEnd[] costWithout = new OrdoScenarios.EndToEnd[rounds];
    OrdoScenarios.EndToEnd[] costWith = new OrdoScenarios.EndToEnd[rounds];
    OrdoScenarios.EndToEnd[] tenantsOff = new OrdoScenarios.EndToEnd[rounds];
    OrdoScenarios.EndToEnd[] tenantsOn = new OrdoScenarios.EndToEnd[rounds];
    BenchOptions.Fairness fairSizes = options.fairness();
    FairPlan fairPlan = FairPlan.of(options.partitions(), fairSizes.backlog(), fairSizes.baselineItems(),
        fairSizes.weightedItems(), fairSizes.groupKeys());
    FairnessScenario.Result[] fair = new FairnessScenario.Result[rounds];
    OrdoScenarios.EndToEnd[] fairUnkeyed = new OrdoScenarios.EndToEnd[rounds];
    OrdoScenarios.EndToEnd[] fairKeyed = new OrdoScenarios.EndToEnd[rounds];
    OrdoScenarios.KeySlices[] fairSlices = new OrdoScenarios.KeySlices[rounds];
    if (options.runs(Scenario.HTTP) && http == null) {
      notes.add("the http scenario needs ordo bench itself, which starts an ordo server: skipped");
    }
    if (options.runs(Scenario.SQS) && http == null) {
      notes.add("the sqs scenario needs ordo bench itself, which starts an ordo server: skipped");
    }
    if (options.runs(Scenario.HTTP) && http != null && options.size() == BenchOptions.Size.QUICK) {
      notes.add("--quick: the http single-ack phase ran on " + SINGLE_ACK_NARROW + " partitions only; --full adds "
          + SINGLE_ACK_WIDE + " and their ratio");
    }
    OrdoScenarios.Sizes sizes = new OrdoScenarios.Sizes(options.partitions(), options.items(), options.payloadBytes(),
        options.consumers(), options.maxInFlight(), options.workers(), options.latencySeconds(), options.backlogItems(),
        options.delayItems(), options.delayMaxMs(), options.delayTiers(), options.keepTopics());
    int brokers;
    String heartbeat;
    String minHeartbeat;
    out.printf(Locale.ROOT, "ordo bench: run %s against %s%n", runId, bootstrapServers);
    try (BenchKafka kafka = new BenchKafka(bootstrapServers)) {
      kafka.useSchemaRegistry(options.schemaRegistryUrl());
      brokers = kafka.brokers();
      heartbeat = kafka.brokerConfig(BenchKafka.SHARE_HEARTBEAT);
      minHeartbeat = kafka.brokerConfig(BenchKafka.SHARE_MIN_HEARTBEAT);
      if (options.runs(Scenario.SHARE) && (heartbeat == null || Long.parseLong(heartbeat) > 500)) {
        notes.add("the broker's share heartbeat is " + heartbeat + " ms (min " + minHeartbeat + " ms); KAFKA-NOTES"
            + " measured share groups with " + BenchKafka.SHARE_HEARTBEAT + "=500 and "
            + BenchKafka.SHARE_MIN_HEARTBEAT + "=500 (broker settings). The steady-state figure excludes the join,"
            + " which those settings mostly shorten.");
      }
      if (options.runs(Scenario.RAW) || options.runs(Scenario.SHARE)) {
        // Warms this JVM's Kafka clients up (JIT), so the first round's baselines are not a cold start's.
        measure(out, notes, -1, "warm-up, Kafka producer -> consumer", () -> RawKafkaScenario.run(kafka,
            runId + "-warmup", options.partitions(), Math.min(options.items(), 20_000), options.payloadBytes()),
            "records/s");
      }
      if (options.runs(Scenario.EOS) || options.runs(Scenario.ALOS) || options.runs(Scenario.BACKLOG)
          || options.runs(Scenario.SURGE) || options.runs(Scenario.COST) || options.runs(Scenario.FAIRNESS)
          || options.runs(Scenario.TENANTS)) {
        warmUp(kafka, runId, sizes, options, out, notes);
      }
      if (options.runs(Scenario.HTTP) && http != null) {
        warmUpHttp(kafka, runId, http, options, out, notes);
      }
      if (options.runs(Scenario.FAIRNESS)) {
        warmUpFairness(kafka, runId, sizes, options, out, notes);
      }
      JitClock jit = new JitClock();
      for (int r = 0; r < rounds; r++) {
        double load = loadAverage();
        loads.add(load);
        String round = "-r" + (r + 1);
        out.printf(Locale.ROOT, "round %d/%d (load average %.1f%s)%n", r + 1, rounds, load,
            r == 0 ? "" : String.format(Locale.ROOT, "; JIT compiler %.0f%% of a core in the last round", 100 * jit.share()));
        jit.restart();
        int i = r;
        if (options.runs(Scenario.RAW)) {
          raw[r] = measure(out, notes, r, "Kafka producer -> consumer", () -> RawKafkaScenario.run(kafka,
              runId + "-raw" + round, options.partitions(), options.items(), options.payloadBytes()), "records/s");
        }
        if (options.runs(Scenario.SHARE)) {
          share[r] = measure(out, notes, r, "Kafka share group", () -> ShareGroupScenario.run(kafka,
              runId + "-share" + round, options.partitions(), options.items(), options.payloadBytes(),
              options.consumers()), "records/s");
        }
        if (options.runs(Scenario.EOS)) {
          eos[r] = endToEnd(out, notes, r, "exactly_once_v2",
              () -> OrdoScenarios.endToEnd(kafka, runId + "-eos" + round, "exactly_once_v2", sizes));
        }
        if (options.runs(Scenario.ALOS)) {
          alos[r] = endToEnd(out, notes, r, "at_least_once",
              () -> OrdoScenarios.endToEnd(kafka, runId + "-alos" + round, "at_least_once", sizes));
        }
        if (options.runs(Scenario.BACKLOG)) {
          try {
            backlog[i] = OrdoScenarios.backlog(kafka, runId + "-backlog" + round, sizes);
            out.printf(Locale.ROOT, "  Ordo dequeue: empty %,.0f items/s, %,d standing %,.0f items/s (%.2f)%n",
                backlog[i].emptyPerSec(), options.backlogItems(), backlog[i].backlogPerSec(),
                backlog[i].backlogPerSec() / backlog[i].emptyPerSec());
          } catch (RuntimeException e) {
            failed(out, notes, r, "backlog", e);
          }
        }
        if (options.runs(Scenario.DELAY)) {
          try {
            delays[i] = OrdoScenarios.delays(kafka, runId + "-delay" + round, sizes);
            out.printf(Locale.ROOT, "  Ordo delays: lateness p50 %.0f p99 %.0f max %.0f ms%n", delays[i].p50(),
                delays[i].p99(), delays[i].max());
          } catch (RuntimeException e) {
            failed(out, notes, r, "delays", e);
          }
        }
        if (options.runs(Scenario.HTTP) && http != null) {
          try {
            httpNarrow[i] = dev.ordo.bench.internal.HttpScenario.run(kafka, http, runId + "-http" + round,
                options.partitions(), options.items(), options.payloadBytes(), HTTP_WORKERS, HTTP_DEQUEUE,
                AckMode.BATCH, 0.5, options.latencySeconds());
            httpWide[i] = dev.ordo.bench.internal.HttpScenario.run(kafka, http, runId + "-httpw" + round,
                HTTP_WIDE_PARTITIONS, options.items(), options.payloadBytes(), HTTP_WORKERS, HTTP_DEQUEUE,
                AckMode.BATCH, 0, options.latencySeconds());
            out.printf(Locale.ROOT, "  Ordo over HTTP: %,.0f items/s with %d partitions, %,.0f with %d; dequeue p50 %.1f"
                    + " p99 %.1f ms; ack at %,.0f items/s p50 %.1f p99 %.1f ms; quiet enqueue, dequeue, ack p50 %.1f,"
                + " %.1f, %.1f ms%n", httpNarrow[i].itemsPerSec(),
                options.partitions(), httpWide[i].itemsPerSec(), HTTP_WIDE_PARTITIONS, httpNarrow[i].dequeue().p50(),
                httpNarrow[i].dequeue().p99(), httpNarrow[i].offeredPerSec(), httpNarrow[i].ack().p50(),
                httpNarrow[i].ack().p99(), httpNarrow[i].quiet().enqueue().p50(), httpNarrow[i].quiet().dequeue().p50(),
                httpNarrow[i].quiet().ack().p50());
          } catch (RuntimeException e) {
            failed(out, notes, r, "http", e);
          }
          // Issue 45's single acks, the first side alternating by round as the issue 13 scenarios'.
          for (int partitions : singleAckSides(options, r)) {
            try {
              dev.ordo.bench.internal.HttpScenario.Result s = dev.ordo.bench.internal.HttpScenario.run(kafka, http,
                  runId + "-httpeach" + partitions + round, partitions, options.items(), options.payloadBytes(),
                  HTTP_WORKERS, SINGLE_ACK_DEQUEUE, AckMode.EACH, 0, options.latencySeconds());
              (partitions == SINGLE_ACK_NARROW ? singleNarrow : singleWide)[i] = s;
              out.printf(Locale.ROOT, "  Ordo over HTTP, dequeue %d and ack one by one: %,.0f items/s with %d partitions"
                  + " (acked %,d of %,d items in %,d ack requests)%n", SINGLE_ACK_DEQUEUE, s.itemsPerSec(), partitions,
                  s.acked(), options.items(), s.ackRequests());
            } catch (RuntimeException e) {
              failed(out, notes, r, "http single acks on " + partitions + " partitions", e);
            }
          }
        }
        if (options.runs(Scenario.SQS) && http != null) {
          try {
            sqsRuns[i] = dev.ordo.bench.internal.SqsScenario.run(kafka, http, runId + "-sqs" + round,
                options.partitions(), options.items(), options.payloadBytes(), HTTP_WORKERS);
            // The same loop over Ordo's HTTP API with SQS's batch size: what the protocol itself costs.
            http10[i] = dev.ordo.bench.internal.HttpScenario.run(kafka, http, runId + "-http10-" + round,
                options.partitions(), options.items(), options.payloadBytes(), HTTP_WORKERS, SQS_BATCH,
                AckMode.BATCH, 0, options.latencySeconds());
            out.printf(Locale.ROOT, "  Ordo over SQS (AWS SDK for Java v2, %d threads): SendMessageBatch %,.0f items/s;"
                + " ReceiveMessage(10) + DeleteMessageBatch %,.0f items/s; Ordo's HTTP with dequeue(10) %,.0f items/s%n",
                HTTP_WORKERS, sqsRuns[i].sendPerSec(), sqsRuns[i].workPerSec(), http10[i].itemsPerSec());
          } catch (RuntimeException e) {
            failed(out, notes, r, "sqs", e);
          }
        }
        // The two sides of the issue 13 scenarios run in turn, the first alternating by round, so
        // that neither always runs on a machine the other warmed up.
        boolean policiesFirst = r % 2 == 1;
        if (options.runs(Scenario.SURGE)) {
          for (boolean policies : policiesFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            try {
              SurgeScenario.Result s = SurgeScenario.run(kafka, runId + (policies ? "-surgep" : "-surge") + round,
                  surgePlan, policies, options.partitions(), options.payloadBytes(), options.keepTopics());
              (policies ? surgeWith : surgeWithout)[i] = s;
              printSurge(out, s);
            } catch (RuntimeException e) {
              failed(out, notes, r, "surge " + (policies ? "with policies" : "without policies"), e);
            }
          }
        }
        if (options.runs(Scenario.COST)) {
          for (boolean policies : policiesFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            String what = policies ? "at_least_once, with policies" : "at_least_once, no policies";
            (policies ? costWith : costWithout)[i] = endToEnd(out, notes, r, what,
                () -> OrdoScenarios.endToEnd(kafka, runId + (policies ? "-costp" : "-cost") + round,
                    "at_least_once", sizes, policies ? OrdoScenarios.unboundPolicies() : Map.of()));
          }
        }
        if (options.runs(Scenario.TENANTS)) {
          int keys = fairPlan.groupKeys();
          for (boolean on : policiesFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            String what = String.format(Locale.ROOT, "at_least_once, %,d group keys, %s", keys,
                on ? "shards 2 and group rates" : "no policy");
            (on ? tenantsOn : tenantsOff)[i] = endToEnd(out, notes, r, what,
                () -> OrdoScenarios.endToEnd(kafka, runId + (on ? "-tenp" : "-ten") + round, "at_least_once", sizes,
                    on ? OrdoScenarios.tenantPolicies() : Map.of(), keys));
          }
        }
        if (options.runs(Scenario.FAIRNESS)) {
          try {
            fair[i] = FairnessScenario.run(kafka, runId + "-fair" + round, fairPlan,
                new FairnessScenario.Consumers(options.consumers(), options.maxInFlight(), options.workers()),
                options.payloadBytes(), options.keepTopics());
            printFairness(out, fair[i]);
          } catch (RuntimeException e) {
            failed(out, notes, r, "fairness", e);
          }
          for (boolean keys : policiesFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            String what = keys ? String.format(Locale.ROOT, "at_least_once, %,d group keys", fairPlan.groupKeys())
                : "at_least_once, no group keys";
            (keys ? fairKeyed : fairUnkeyed)[i] = endToEnd(out, notes, r, what,
                () -> OrdoScenarios.endToEnd(kafka, runId + (keys ? "-fairk" : "-fairn") + round, "at_least_once",
                    sizes, Map.of(), keys ? fairPlan.groupKeys() : 0));
          }
          try {
            fairSlices[i] = OrdoScenarios.keySlices(kafka, runId + "-fairs" + round, sizes, fairPlan.groupKeys(),
                KEY_SLICE_PAIRS, Math.max(1, sizes.items() / KEY_SLICE_PAIRS));
            printSlices(out, fairSlices[i]);
          } catch (RuntimeException e) {
            failed(out, notes, r, "group keys in alternating slices", e);
          }
        }
      }
    }
    loads.add(loadAverage());

    Figure rawFigure = options.runs(Scenario.RAW) ? figure(raw) : null;
    Figure shareFigure = options.runs(Scenario.SHARE) ? figure(share) : null;
    BenchReport.Ordo eosFigure = options.runs(Scenario.EOS) ? ordo("exactly_once_v2", eos) : null;
    BenchReport.Ordo alosFigure = options.runs(Scenario.ALOS) ? ordo("at_least_once", alos) : null;
    BenchReport.Backlog backlogFigure = null;
    double[] backlogRatios = nans(rounds);
    if (options.runs(Scenario.BACKLOG)) {
      double[] empty = nans(rounds);
      double[] standing = nans(rounds);
      for (int r = 0; r < rounds; r++) {
        if (backlog[r] != null) {
          empty[r] = backlog[r].emptyPerSec();
          standing[r] = backlog[r].backlogPerSec();
          backlogRatios[r] = standing[r] / empty[r];
        }
      }
      backlogFigure = new BenchReport.Backlog(options.backlogItems(), figure(empty), figure(standing));
    }
    BenchReport.Delays delayFigure = null;
    if (options.runs(Scenario.DELAY)) {
      List<Latency> each = Arrays.stream(delays).map(Bench::latency).toList();
      delayFigure = new BenchReport.Delays(options.delayTiers(), options.delayItems(), options.delayMaxMs(),
          medianLatency(each), each);
    }
    double[] eosRates = rates(eos);
    BenchReport.Http httpFigure = null;
    if (options.runs(Scenario.HTTP) && http != null) {
      double[] narrow = nans(rounds);
      double[] wide = nans(rounds);
      double[] offered = nans(rounds);
      double[] singleNarrowRates = nans(rounds);
      double[] singleWideRates = nans(rounds);
      List<Latency> dequeue = new ArrayList<>();
      List<Latency> ack = new ArrayList<>();
      List<Latency> quietEnqueue = new ArrayList<>();
      List<Latency> quietDequeue = new ArrayList<>();
      List<Latency> quietAck = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        if (httpNarrow[r] != null) {
          narrow[r] = httpNarrow[r].itemsPerSec();
          offered[r] = httpNarrow[r].offeredPerSec();
          dequeue.add(latency(httpNarrow[r].dequeue()));
          ack.add(latency(httpNarrow[r].ack()));
          quietEnqueue.add(latency(httpNarrow[r].quiet().enqueue()));
          quietDequeue.add(latency(httpNarrow[r].quiet().dequeue()));
          quietAck.add(latency(httpNarrow[r].quiet().ack()));
        }
        if (httpWide[r] != null) {
          wide[r] = httpWide[r].itemsPerSec();
        }
        if (singleNarrow[r] != null) {
          singleNarrowRates[r] = singleNarrow[r].itemsPerSec();
        }
        if (singleWide[r] != null) {
          singleWideRates[r] = singleWide[r].itemsPerSec();
        }
      }
      BenchReport.SingleAcks singleAcks = new BenchReport.SingleAcks(SINGLE_ACK_DEQUEUE, SINGLE_ACK_NARROW,
          SINGLE_ACK_WIDE, figure(singleNarrowRates), figure(singleWideRates),
          medianRatio(singleWideRates, singleNarrowRates));
      httpFigure = new BenchReport.Http(HTTP_WORKERS, HTTP_DEQUEUE, HTTP_WIDE_PARTITIONS, figure(narrow), figure(wide),
          medianLatency(dequeue), figure(offered), medianLatency(ack), medianRatio(narrow, eosRates),
          medianRatio(wide, narrow), dev.ordo.bench.internal.HttpScenario.QUIET_CALLS, medianLatency(quietEnqueue),
          medianLatency(quietDequeue), medianLatency(quietAck), singleAcks);
    }
    BenchReport.Sqs sqsFigure = null;
    if (options.runs(Scenario.SQS) && http != null) {
      double[] send = nans(rounds);
      double[] work = nans(rounds);
      double[] httpRates = nans(rounds);
      double[] http10Rates = nans(rounds);
      for (int r = 0; r < rounds; r++) {
        if (sqsRuns[r] != null) {
          send[r] = sqsRuns[r].sendPerSec();
          work[r] = sqsRuns[r].workPerSec();
        }
        if (http10[r] != null) {
          http10Rates[r] = http10[r].itemsPerSec();
        }
        if (httpNarrow[r] != null) {
          httpRates[r] = httpNarrow[r].itemsPerSec();
        }
      }
      sqsFigure = new BenchReport.Sqs(HTTP_WORKERS, figure(send), figure(work), figure(http10Rates),
          medianRatio(work, httpRates), medianRatio(send, httpRates), medianRatio(work, http10Rates));
    }
    double[] alosRates = rates(alos);
    BenchReport.Ratios ratios = new BenchReport.Ratios(
        medianRatio(eosRates, raw), medianRatio(eosRates, share), Stats.median(list(backlogRatios)),
        medianRatio(alosRates, raw), medianRatio(alosRates, share));
    BenchReport.Environment env = new BenchReport.Environment(startedAt, (System.nanoTime() - t0) / 1e9,
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
        System.getProperty("os.name") + " " + System.getProperty("os.arch"), loads, bootstrapServers, brokers,
        heartbeat, minHeartbeat);
    BenchReport.Surge surgeFigure = options.runs(Scenario.SURGE) ? surge(surgePlan, surgeWithout, surgeWith) : null;
    BenchReport.Cost costFigure = null;
    if (options.runs(Scenario.COST)) {
      double[] cpuWithout = Arrays.stream(costWithout)
          .mapToDouble(e -> e == null ? Double.NaN : e.streamThreadUsPerItem()).toArray();
      double[] cpuWith = Arrays.stream(costWith)
          .mapToDouble(e -> e == null ? Double.NaN : e.streamThreadUsPerItem()).toArray();
      costFigure = new BenchReport.Cost(PolicyText.describe(OrdoScenarios.UNBOUND_POLICY),
          ordo("at_least_once", costWithout), ordo("at_least_once", costWith),
          medianRatio(rates(costWith), rates(costWithout)), medianRatio(cpuWith, cpuWithout));
    }
    BenchReport.Tenants tenantsFigure = options.runs(Scenario.TENANTS)
        ? tenants(fairPlan.groupKeys(), tenantsOff, tenantsOn) : null;
    BenchReport.Fairness fairFigure = options.runs(Scenario.FAIRNESS)
        ? fairness(fairPlan, fair, fairUnkeyed, fairKeyed, fairSlices) : null;
    BenchReport report = new BenchReport(options, env, rawFigure, shareFigure, eosFigure, alosFigure, backlogFigure,
        delayFigure, httpFigure, sqsFigure, surgeFigure, costFigure, tenantsFigure, fairFigure, ratios,
        List.copyOf(notes));
    out.println();
    out.print(report.table());
    if (options.json() != null) {
      try {
        Path parent = options.json().toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        Files.writeString(options.json(), report.toJson(), StandardCharsets.UTF_8);
        out.println("JSON written to " + options.json());
      } catch (IOException e) {
        throw new UncheckedIOException("could not write " + options.json(), e);
      }
    }
    out.flush();
    return report;
  }

  /**
   * Runs the bench from a command line: {@code --bootstrap-servers HOST:PORT} plus the flags of
   * {@link BenchOptions#USAGE}. Exits 2 on bad flags.
   */
  public static void main(String[] args) {
    String bootstrap = null;
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--bootstrap-servers") && i + 1 < args.length) {
        bootstrap = args[++i];
      } else if (args[i].startsWith("--bootstrap-servers=")) {
        bootstrap = args[i].substring("--bootstrap-servers=".length());
      } else {
        rest.add(args[i]);
      }
    }
    BenchOptions options;
    try {
      if (bootstrap == null) {
        throw new IllegalArgumentException("--bootstrap-servers HOST:PORT is required\n" + BenchOptions.USAGE);
      }
      options = BenchOptions.parse(rest.toArray(String[]::new));
    } catch (IllegalArgumentException e) {
      System.err.println("ordo bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    run(bootstrap, options, System.out);
    System.exit(0);
  }

  // ---- helpers ----

  /**
   * Runs uncounted Ordo rounds, alternating the guarantees, until the JIT compiler settles: until it
   * compiled for less than {@link #JIT_SETTLED} of a core's time over a round, or
   * {@code warmUpSeconds} have passed (one round at least). Why: in a new JVM on 2 cores the
   * compiler threads took a whole core for the first minute of a run (the broker's, Kafka Streams'
   * and the clients' code all compile at once), so the first rounds measured the compiler more than
   * the queue: half the throughput of later rounds at twice the CPU per item.
   */
  private static void warmUp(BenchKafka kafka, String runId, OrdoScenarios.Sizes sizes, BenchOptions options,
      PrintStream out, List<String> notes) {
    OrdoScenarios.Sizes warm = warmSizes(sizes, options);
    WarmUp w = untilSettled(options, n -> {
      String guarantee = n % 2 == 1 ? "exactly_once_v2" : "at_least_once";
      String what = String.format(Locale.ROOT, "%s (warm-up %d, not counted)", guarantee, n);
      endToEnd(out, notes, -1, what, () -> OrdoScenarios.endToEnd(kafka, runId + "-warmup" + n, guarantee, warm));
      return true;
    }, (n, share) -> out.printf(Locale.ROOT, "    JIT compiler: %.0f%% of a core during warm-up %d%n", 100 * share, n));
    notes.add(String.format(Locale.ROOT, "warm-up: %d uncounted Ordo rounds in %.0f s; the JIT compiler took %.0f%%"
        + " of a core in the last one%s", w.rounds(), w.seconds(), 100 * w.share(),
        w.share() >= JIT_SETTLED ? " (not settled within --warm-up-seconds: early rounds include compilation)" : ""));
  }

  /** The warm-up rounds' sizes: half the items, at most 30,000, and a latency phase of a second. */
  private static OrdoScenarios.Sizes warmSizes(OrdoScenarios.Sizes sizes, BenchOptions options) {
    int warmItems = Math.max(1, Math.min(options.items() / 2, 30_000));
    return new OrdoScenarios.Sizes(sizes.partitions(), warmItems, sizes.payloadBytes(), sizes.consumers(),
        sizes.maxInFlight(), sizes.workers(), 1, sizes.backlogItems(), sizes.delayItems(), sizes.delayMaxMs(),
        sizes.delayTiers(), sizes.keepTopics());
  }

  /** How a warm-up ended: its rounds, its seconds, the JIT compiler's share of a core in its last round. */
  private record WarmUp(int rounds, double seconds, double share) {}

  /**
   * Runs {@code round} (given its number, from 1; false: stop) until the JIT compiler compiled for
   * less than {@link #JIT_SETTLED} of a core's time over a round or {@code --warm-up-seconds} passed,
   * one round at least; {@code after} is told each round's share.
   */
  private static WarmUp untilSettled(BenchOptions options, java.util.function.IntPredicate round,
      java.util.function.ObjDoubleConsumer<Integer> after) {
    long deadline = System.nanoTime() + options.warmUpSeconds() * 1_000_000_000L;
    long started = System.nanoTime();
    JitClock jit = new JitClock();
    double share;
    int n = 0;
    boolean more;
    do {
      n++;
      jit.restart();
      more = round.test(n);
      share = jit.share();
      after.accept(n, share);
    } while (more && share >= JIT_SETTLED && System.nanoTime() < deadline);
    return new WarmUp(n, (System.nanoTime() - started) / 1e9, share);
  }

  /**
   * The partition counts of the http scenario's single-ack phase in round {@code round} (0-based), in
   * the order they run: both, the first alternating by round; with {@code --quick} the narrow one only,
   * since each side is a server of its own that takes 5-7 s to start, get ready and stop whatever
   * the item count (the suite's http smoke test runs --quick).
   */
  static int[] singleAckSides(BenchOptions options, int round) {
    if (options.size() == BenchOptions.Size.QUICK) {
      return new int[] {SINGLE_ACK_NARROW};
    }
    return round % 2 == 0 ? new int[] {SINGLE_ACK_NARROW, SINGLE_ACK_WIDE} : new int[] {SINGLE_ACK_WIDE, SINGLE_ACK_NARROW};
  }

  /**
   * One uncounted round of the http scenario on each of its partition counts, as {@link #warmUp} does
   * for the lease consumers: the HTTP server's, the JSON and the {@code QueueClient}'s code compile in
   * it, which the lease consumers' warm-up does not run. Without it the first counted round measured
   * the compiler (dequeue p50 ~60 ms against 20-30 in later rounds, half the items/s). None with
   * {@code --warm-up-seconds 0} (the suite's smoke tests: two servers of 5-7 s each for nothing).
   */
  private static void warmUpHttp(BenchKafka kafka, String runId, HttpFrontEnd http, BenchOptions options,
      PrintStream out, List<String> notes) {
    if (options.warmUpSeconds() == 0) {
      notes.add("--warm-up-seconds 0: no http warm-up; the first http round includes the JIT compiler's work");
      return;
    }
    int items = Math.max(1, Math.min(options.items(), 20_000));
    JitClock jit = new JitClock();
    for (int partitions : new int[] {options.partitions(), HTTP_WIDE_PARTITIONS}) {
      try {
        dev.ordo.bench.internal.HttpScenario.Result warm = dev.ordo.bench.internal.HttpScenario.run(kafka, http,
            runId + "-httpwarm" + partitions, partitions, items, options.payloadBytes(), HTTP_WORKERS, HTTP_DEQUEUE,
            AckMode.BATCH, 0, options.latencySeconds());
        out.printf(Locale.ROOT, "  Ordo over HTTP (warm-up, not counted): %,.0f items/s with %d partitions%n",
            warm.itemsPerSec(), partitions);
      } catch (RuntimeException e) {
        notes.add("the http warm-up on " + partitions + " partitions failed: " + e.getMessage());
      }
    }
    out.printf(Locale.ROOT, "    JIT compiler: %.0f%% of a core during the http warm-up%n", 100 * jit.share());
  }

  /**
   * Uncounted rounds of the fairness scenario at a smaller size (a backlog of at most 50,000, a few of
   * Alice's items alone, at most 2,000 weighted items each) and of its end-to-end run with group keys,
   * until the JIT compiler settles as in {@link #warmUp} (one round at least): the code of a group-keyed
   * queue (group queues, fair shares) and of a drain from a large backlog compiles in them, which the
   * lease consumers' warm-up (no group keys, no backlog) does not run. Without it the JIT compiler took
   * 75-90% of a core through the whole of the first counted drain of Bob's backlog (`top -H`, fourteenth
   * session), beside the queue's stream thread, and Alice's figures measured the compiler.
   */
  private static void warmUpFairness(BenchKafka kafka, String runId, OrdoScenarios.Sizes sizes, BenchOptions options,
      PrintStream out, List<String> notes) {
    BenchOptions.Fairness f = options.fairness();
    FairPlan plan = FairPlan.of(options.partitions(), Math.min(f.backlog(), 50_000), Math.min(f.baselineItems(), 10),
        Math.min(f.weightedItems(), 2_000), f.groupKeys());
    OrdoScenarios.Sizes warm = warmSizes(sizes, options);
    WarmUp w = untilSettled(options, n -> {
      try {
        FairnessScenario.run(kafka, runId + "-fairwarm" + n, plan,
            new FairnessScenario.Consumers(options.consumers(), options.maxInFlight(), options.workers()),
            options.payloadBytes(), false);
        OrdoScenarios.endToEnd(kafka, runId + "-fairwarmk" + n, "at_least_once", warm, Map.of(), f.groupKeys());
        return true;
      } catch (RuntimeException e) {
        notes.add("the fairness warm-up failed: " + e.getMessage());
        return false;
      }
    }, (n, share) -> out.printf(Locale.ROOT, "  fairness (warm-up %d, not counted): JIT compiler %.0f%% of a core%n", n,
        100 * share));
    notes.add(String.format(Locale.ROOT, "fairness warm-up: %d uncounted rounds in %.0f s; the JIT compiler took %.0f%%"
        + " of a core in the last one", w.rounds(), w.seconds(), 100 * w.share()));
  }

  /** Pairs of alternating slices (keys, none) per round in the fairness scenario's cost of group keys. */
  private static final int KEY_SLICE_PAIRS = 4;

  /** The JIT compiler's share of one core below which the warm-up counts it as settled. */
  private static final double JIT_SETTLED = 0.15;

  /** Time the JIT compiler threads spent compiling since a start, as a share of the wall clock. */
  private static final class JitClock {
    private final java.lang.management.CompilationMXBean bean =
        java.lang.management.ManagementFactory.getCompilationMXBean();
    private long compileMs;
    private long wallNs;

    JitClock() {
      restart();
    }

    void restart() {
      compileMs = compileMs();
      wallNs = System.nanoTime();
    }

    /** Compilation time over wall time since {@link #restart} (summed over compiler threads: 1 = one core). */
    double share() {
      double wallMs = (System.nanoTime() - wallNs) / 1e6;
      return wallMs <= 0 ? 0 : (compileMs() - compileMs) / wallMs;
    }

    private long compileMs() {
      return bean != null && bean.isCompilationTimeMonitoringSupported() ? bean.getTotalCompilationTime() : 0;
    }
  }

  private static double measure(PrintStream out, List<String> notes, int round, String what, Supplier<Double> run,
      String unit) {
    try {
      double v = run.get();
      out.printf(Locale.ROOT, "  %s: %,.0f %s%n", what, v, unit);
      return v;
    } catch (RuntimeException e) {
      failed(out, notes, round, what, e);
      return Double.NaN;
    }
  }

  private static OrdoScenarios.EndToEnd endToEnd(PrintStream out, List<String> notes, int round, String guarantee,
      Supplier<OrdoScenarios.EndToEnd> run) {
    try {
      OrdoScenarios.EndToEnd e = run.get();
      out.printf(Locale.ROOT, "  Ordo e2e %s: %,.0f items/s (CPU per item: %.0f µs in all, %.0f µs on stream threads;"
              + " %.2f Kafka records per item); at %,.0f items/s latency p50 %.1f p99 %.1f max %.1f ms%n",
          guarantee, e.itemsPerSec(), e.cpuUsPerItem(), e.streamThreadUsPerItem(), e.recordsPerItem(), e.offeredPerSec(),
          e.latency().p50(),
          e.latency().p99(), e.latency().max());
      StringBuilder parts = new StringBuilder();
      e.cpuUsPerItemByPart().forEach((part, us) -> parts.append(parts.isEmpty() ? "" : ", ")
          .append(String.format(Locale.ROOT, "%s %.1f", part, us)));
      out.printf(Locale.ROOT, "    CPU per item by part of the process, µs: %s%n", parts);
      if (!e.brokerRequestsPerItem().isEmpty()) {
        StringBuilder requests = new StringBuilder();
        e.brokerRequestsPerItem().forEach((kind, n) -> requests.append(requests.isEmpty() ? "" : ", ")
            .append(String.format(Locale.ROOT, "%s %.3f", kind, n)));
        out.printf(Locale.ROOT, "    broker requests per item: %s%n", requests);
        StringBuilder handlers = new StringBuilder();
        e.brokerHandlerUsPerItem().forEach((kind, us) -> handlers.append(handlers.isEmpty() ? "" : ", ")
            .append(String.format(Locale.ROOT, "%s %.1f", kind, us)));
        out.printf(Locale.ROOT, "    broker request handlers' time per item, µs: %s%n", handlers);
        StringBuilder clients = new StringBuilder();
        e.clientRequestsPerItem().forEach((kind, n) -> clients.append(clients.isEmpty() ? "" : "; ")
            .append(String.format(Locale.ROOT, "%s %.3f", kind, n)));
        out.printf(Locale.ROOT, "    client requests per item: %s%n", clients);
      }
      return e;
    } catch (RuntimeException e) {
      failed(out, notes, round, "Ordo e2e " + guarantee, e);
      return null;
    }
  }

  private static void printSurge(PrintStream out, SurgeScenario.Result s) {
    out.printf(Locale.ROOT, "  Surge, %s: A p50/p99 before %.1f/%.1f, during %.1f/%.1f, after %.1f/%.1f ms"
            + " (p99 during/before %.2f); B enqueued %,d, refused %,d, worked on %,d/%,d/%,d; overflow %,d,"
            + " admitted %,d, sidelined %,d; A worked on %,d of %,d%n",
        s.policies() ? "policies" : "no policies", s.before().tenantA().p50(), s.before().tenantA().p99(),
        s.during().tenantA().p50(), s.during().tenantA().p99(), s.after().tenantA().p50(), s.after().tenantA().p99(),
        s.p99DuringOverBefore(), s.tenantBEnqueued(), s.tenantBRefused(), s.before().tenantBDelivered(),
        s.during().tenantBDelivered(), s.after().tenantBDelivered(), s.overflowed(), s.admitted(), s.sidelined(),
        s.tenantADelivered(), s.tenantAEnqueued());
  }

  /** The surge figures: the plan, and each side's medians over the rounds it finished. */
  private static BenchReport.Surge surge(SurgePlan plan, SurgeScenario.Result[] without, SurgeScenario.Result[] with) {
    String a = PolicyText.describe(plan.tenantAPolicy());
    String b = PolicyText.describe(plan.tenantBPolicy());
    return new BenchReport.Surge(plan.tenantARate(), plan.workers(), SurgePlan.SERVICE.toNanos() / 1e6,
        plan.capacity(), plan.inFlight(), plan.tenantBRate(), (int) plan.calm().toSeconds(),
        (int) plan.surge().toSeconds(), a, b, surgeRun(without), surgeRun(with));
  }

  private static BenchReport.SurgeRun surgeRun(SurgeScenario.Result[] results) {
    List<SurgeScenario.Result> done = Arrays.stream(results).filter(Objects::nonNull).toList();
    List<Double> ratios = Arrays.stream(results).map(x -> x == null ? Double.NaN : x.p99DuringOverBefore()).toList();
    return new BenchReport.SurgeRun(surgePhase(done, SurgeScenario.Result::before),
        surgePhase(done, SurgeScenario.Result::during), surgePhase(done, SurgeScenario.Result::after),
        Stats.median(ratios), ratios, medianOf(done, SurgeScenario.Result::tenantAEnqueued),
        medianOf(done, SurgeScenario.Result::tenantARefused), medianOf(done, SurgeScenario.Result::tenantADelivered),
        medianOf(done, SurgeScenario.Result::tenantBEnqueued), medianOf(done, SurgeScenario.Result::tenantBRefused),
        medianOf(done, SurgeScenario.Result::tenantBDelivered), medianOf(done, SurgeScenario.Result::overflowed),
        medianOf(done, SurgeScenario.Result::admitted), medianOf(done, SurgeScenario.Result::sidelined));
  }

  private static void printFairness(PrintStream out, FairnessScenario.Result f) {
    FairnessScenario.Backlog q = f.backlog();
    out.printf(Locale.ROOT, "  Fairness: Alice alone p50/p99 %.1f/%.1f ms (taken in %.1f/%.1f, acked %.1f/%.1f), behind Bob's %,d"
            + " p50/p99 %.1f/%.1f ms (taken in %.1f/%.1f, acked %.1f/%.1f; p99 ratio %.2f, %d items); dispatched before her after"
            + " arrival p99 %.0f max %d (at least %d), since enqueue p99 %.0f max %d; Bob drained at %,.0f items/s"
            + " (a consumer's window down to %,d; the queue's stream thread: process %.0f%%, commit %.0f%%, poll %.0f%% of"
            + " its loop); weights served %d:%d (%.2f); a plain Kafka record beside her p50/p99 %.1f/%.1f ms alone,"
            + " %.1f/%.1f behind Bob (p99 ratio %.2f)%n",
        q.aliceAlone().p50(), q.aliceAlone().p99(), q.aliceAloneIntake().p50(), q.aliceAloneIntake().p99(),
        q.aliceAloneAcked().p50(), q.aliceAloneAcked().p99(),
        q.bobEnqueued(), q.aliceBehind().p50(), q.aliceBehind().p99(), q.aliceBehindIntake().p50(),
        q.aliceBehindIntake().p99(), q.aliceBehindAcked().p50(), q.aliceBehindAcked().p99(),
        q.p99BehindOverAlone(), q.turns().items(), q.turns().afterArrivalP99(), q.turns().afterArrivalMax(),
        q.turns().afterArrivalAtLeastMax(), q.turns().sinceEnqueueP99(), q.turns().sinceEnqueueMax(), q.bobPerSec(),
        q.smallestWindow(), 100 * q.loop().process(), 100 * q.loop().commit(), 100 * q.loop().poll(),
        f.weights().share().heavy(), f.weights().share().light(), f.weights().share().ratio(),
        q.pingAlone().p50(), q.pingAlone().p99(), q.pingBehind().p50(), q.pingBehind().p99(),
        q.pingP99BehindOverAlone());
  }

  /** The fairness figures: each part's medians over the rounds it finished. */
  private static BenchReport.Fairness fairness(FairPlan plan, FairnessScenario.Result[] results,
      OrdoScenarios.EndToEnd[] unkeyed, OrdoScenarios.EndToEnd[] keyed, OrdoScenarios.KeySlices[] slices) {
    List<FairnessScenario.Result> done = Arrays.stream(results).filter(Objects::nonNull).toList();
    List<FairnessScenario.Backlog> q = done.stream().map(FairnessScenario.Result::backlog).toList();
    List<Double> ratios = Arrays.stream(results)
        .map(x -> x == null ? Double.NaN : x.backlog().p99BehindOverAlone()).toList();
    List<Double> pingRatios = Arrays.stream(results)
        .map(x -> x == null ? Double.NaN : x.backlog().pingP99BehindOverAlone()).toList();
    List<Double> afterMax = Arrays.stream(results)
        .map(x -> x == null ? Double.NaN : (double) x.backlog().turns().afterArrivalMax()).toList();
    BenchReport.FairQueue queue = new BenchReport.FairQueue(plan.bobKey(), plan.aliceKey(), plan.partition(),
        plan.backlog(), (int) FairPlan.ALICE_INTERVAL.toMillis(), FairPlan.ACTIVE_GROUPS,
        medianLatency(q.stream().map(b -> latency(b.aliceAlone())).toList()),
        medianLatency(q.stream().map(b -> latency(b.aliceAloneIntake())).toList()),
        medianLatency(q.stream().map(b -> latency(b.aliceAloneAcked())).toList()),
        medianOf(q, b -> b.aliceAlone().count()),
        medianLatency(q.stream().map(b -> latency(b.aliceBehind())).toList()),
        medianLatency(q.stream().map(b -> latency(b.aliceBehindIntake())).toList()),
        medianLatency(q.stream().map(b -> latency(b.aliceBehindAcked())).toList()),
        medianOf(q, b -> b.aliceBehind().count()), Stats.median(ratios), ratios,
        medianOf(q, b -> b.turns().afterArrivalP50()), medianOf(q, b -> b.turns().afterArrivalP99()),
        Stats.median(afterMax), afterMax,
        medianOf(q, b -> b.turns().afterArrivalAtLeastMax()), medianOf(q, b -> b.turns().sinceEnqueueP99()),
        medianOf(q, b -> b.turns().sinceEnqueueMax()), medianOf(q, FairnessScenario.Backlog::aliceEnqueued),
        medianOf(q, FairnessScenario.Backlog::aliceDelivered), medianOf(q, FairnessScenario.Backlog::bobEnqueued),
        medianOf(q, FairnessScenario.Backlog::bobDelivered), medianOf(q, FairnessScenario.Backlog::bobPerSec),
        medianOf(q, FairnessScenario.Backlog::dispatchesRead), medianOf(q, FairnessScenario.Backlog::dispatchesCounted),
        medianLatency(q.stream().map(b -> latency(b.pingAlone())).toList()),
        medianLatency(q.stream().map(b -> latency(b.pingBehind())).toList()), medianOf(q, b -> b.pingAlone().count()),
        medianOf(q, b -> b.pingBehind().count()), Stats.median(pingRatios), pingRatios);
    List<FairnessScenario.Weights> w = done.stream().map(FairnessScenario.Result::weights).toList();
    List<Double> shares = Arrays.stream(results).map(x -> x == null ? Double.NaN : x.weights().share().ratio()).toList();
    double shareRatio = Stats.median(shares);
    BenchReport.FairWeights weights = new BenchReport.FairWeights(plan.heavyKey(), plan.lightKey(),
        FairPlan.HEAVY_WEIGHT, FairPlan.LIGHT_WEIGHT, plan.weightedItems(), medianOf(w, x -> x.share().heavy()),
        medianOf(w, x -> x.share().light()), shareRatio, shares, shareRatio / FairPlan.weightRatio() - 1,
        medianOf(w, FairnessScenario.Weights::heavyDelivered), medianOf(w, FairnessScenario.Weights::lightDelivered));
    double[] cpuWithout = Arrays.stream(unkeyed)
        .mapToDouble(e -> e == null ? Double.NaN : e.streamThreadUsPerItem()).toArray();
    double[] cpuWith = Arrays.stream(keyed)
        .mapToDouble(e -> e == null ? Double.NaN : e.streamThreadUsPerItem()).toArray();
    BenchReport.FairCost cost = new BenchReport.FairCost(plan.groupKeys(), ordo("at_least_once", unkeyed),
        ordo("at_least_once", keyed), medianRatio(rates(keyed), rates(unkeyed)), medianRatio(cpuWith, cpuWithout),
        sliced(slices));
    return new BenchReport.Fairness(queue, weights, cost);
  }

  /** The alternating slices of every round: their pairs' ratios in order, and the median of them all. */
  private static BenchReport.KeySlices sliced(OrdoScenarios.KeySlices[] slices) {
    List<OrdoScenarios.KeySlices> done = Arrays.stream(slices).filter(Objects::nonNull).toList();
    List<Double> pairs = done.stream().flatMap(x -> x.pairRatios().stream()).toList();
    List<Double> keyedUs = done.stream().flatMap(x -> x.keyedStreamUs().stream()).toList();
    List<Double> noneUs = done.stream().flatMap(x -> x.unkeyedStreamUs().stream()).toList();
    return new BenchReport.KeySlices(KEY_SLICE_PAIRS, Stats.median(pairs), pairs,
        Stats.median(done.stream().flatMap(x -> x.keyedPerSec().stream()).toList()),
        Stats.median(done.stream().flatMap(x -> x.unkeyedPerSec().stream()).toList()),
        Stats.median(keyedUs) / Stats.median(noneUs));
  }

  private static void printSlices(PrintStream out, OrdoScenarios.KeySlices s) {
    out.printf(Locale.ROOT, "  Ordo e2e at_least_once, group keys against none in alternating slices: keys / none %s"
            + " per pair; items/s with %s, without %s%n", fmt(s.pairRatios(), "%.2f"), fmt(s.keyedPerSec(), "%,.0f"),
        fmt(s.unkeyedPerSec(), "%,.0f"));
  }

  private static String fmt(List<Double> values, String format) {
    return values.stream().map(v -> String.format(Locale.ROOT, format, v)).toList().toString();
  }

  private static <T> double medianOf(List<T> values, ToDoubleFunction<T> f) {
    return Stats.median(values.stream().map(v -> f.applyAsDouble(v)).toList());
  }

  private static BenchReport.SurgePhase surgePhase(List<SurgeScenario.Result> done,
      Function<SurgeScenario.Result, SurgeScenario.PhaseResult> phase) {
    List<SurgeScenario.PhaseResult> each = done.stream().map(phase).toList();
    return new BenchReport.SurgePhase(medianLatency(each.stream().map(p -> latency(p.tenantA())).toList()),
        medianLatency(each.stream().map(p -> latency(p.tenantAQueued())).toList()),
        Stats.median(each.stream().map(p -> (double) p.tenantA().count()).toList()),
        Stats.median(each.stream().map(p -> (double) p.tenantBDelivered()).toList()));
  }

  private static void failed(PrintStream out, List<String> notes, int round, String what, RuntimeException e) {
    String msg = "round " + (round + 1) + ": " + what + " failed: " + e;
    out.println("  " + msg);
    notes.add(msg);
  }

  private static double[] nans(int n) {
    double[] a = new double[n];
    Arrays.fill(a, Double.NaN);
    return a;
  }

  private static List<Double> list(double[] values) {
    return Arrays.stream(values).boxed().toList();
  }

  private static Figure figure(double[] rounds) {
    List<Double> l = list(rounds);
    return new Figure(Stats.median(l), l);
  }

  private static double[] rates(OrdoScenarios.EndToEnd[] results) {
    return Arrays.stream(results).mapToDouble(e -> e == null ? Double.NaN : e.itemsPerSec()).toArray();
  }

  private static double medianRatio(double[] a, double[] b) {
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      r.add(a[i] / b[i]);
    }
    return Stats.median(r);
  }

  /** The tenants scenario's two sides and the medians of their per-round ratios (on over off). */
  private static BenchReport.Tenants tenants(int groupKeys, OrdoScenarios.EndToEnd[] off, OrdoScenarios.EndToEnd[] on) {
    ToDoubleFunction<OrdoScenarios.EndToEnd> all = OrdoScenarios.EndToEnd::cpuUsPerItem;
    ToDoubleFunction<OrdoScenarios.EndToEnd> stream = OrdoScenarios.EndToEnd::streamThreadUsPerItem;
    return new BenchReport.Tenants(PolicyText.describe(OrdoScenarios.TENANT_POLICY), groupKeys,
        ordo("at_least_once", off), ordo("at_least_once", on), medianRatio(rates(on), rates(off)),
        medianRatio(each(on, all), each(off, all)), medianRatio(each(on, stream), each(off, stream)));
  }

  private static double[] each(OrdoScenarios.EndToEnd[] results, ToDoubleFunction<OrdoScenarios.EndToEnd> figure) {
    return Arrays.stream(results).mapToDouble(e -> e == null ? Double.NaN : figure.applyAsDouble(e)).toArray();
  }

  private static BenchReport.Ordo ordo(String guarantee, OrdoScenarios.EndToEnd[] results) {
    List<Latency> each = Arrays.stream(results).map(e -> e == null ? null : e.latency()).map(Bench::latency).toList();
    double[] offered = Arrays.stream(results).mapToDouble(e -> e == null ? Double.NaN : e.offeredPerSec()).toArray();
    double[] cpu = Arrays.stream(results).mapToDouble(e -> e == null ? Double.NaN : e.cpuUsPerItem()).toArray();
    double[] stream = Arrays.stream(results).mapToDouble(e -> e == null ? Double.NaN : e.streamThreadUsPerItem())
        .toArray();
    double[] records = Arrays.stream(results).mapToDouble(e -> e == null ? Double.NaN : e.recordsPerItem()).toArray();
    return new BenchReport.Ordo(guarantee, figure(rates(results)), figure(offered), medianLatency(each), each,
        figure(cpu), figure(stream), figure(records));
  }

  private static Latency latency(Stats.Latency l) {
    return l == null ? new Latency(Double.NaN, Double.NaN, Double.NaN) : new Latency(l.p50(), l.p99(), l.max());
  }

  private static Latency medianLatency(List<Latency> each) {
    return new Latency(Stats.median(each.stream().map(Latency::p50).toList()),
        Stats.median(each.stream().map(Latency::p99).toList()),
        Stats.median(each.stream().map(Latency::max).toList()));
  }

  /** The 1-minute load average of the machine, NaN when unknown. */
  static double loadAverage() {
    try {
      String s = Files.readString(Path.of("/proc/loadavg"));
      return Double.parseDouble(s.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      double v = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return v < 0 ? Double.NaN : v;
    }
  }
}
