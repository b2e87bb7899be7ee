package dev.ordo.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What one {@code ordo bench} run measures and how big it is. Build with {@link #parse} from the
 * command line's flags, or with {@link #defaults(Size)} and the {@code with*} methods.
 *
 * @param size {@link Size#QUICK} (under 3 minutes), {@link Size#FULL} or {@link Size#LARGE} (a 10M backlog)
 * @param rounds rounds of every scenario; each figure is the median over rounds
 * @param items records or items per throughput measurement (baselines, Ordo end to end, each backlog drain)
 * @param payloadBytes payload of every record and item (at least 16: the bench stamps a sequence number and a time)
 * @param partitions partitions of every topic the bench creates (Ordo clusters and baselines alike)
 * @param backlogItems standing backlog of the backlog scenario
 * @param consumers consumers per measurement: share consumers, lease consumers (and plain consumers: one)
 * @param maxInFlight {@code ordo.consumer.max.in.flight} of each lease consumer
 * @param workers {@code ordo.consumer.workers} of each lease consumer
 * @param latencySeconds length of each fixed-load latency measurement
 * @param warmUpSeconds how long uncounted Ordo rounds may run before the first round, to let the JIT
 *     compiler settle (at least one runs whatever this is)
 * @param delayItems items of the delay scenario, scheduled evenly from 0 to {@code delayMaxMs}
 * @param delayMaxMs the longest delay of the delay scenario
 * @param delayTiers the shortened delay tiers of the delay scenario, e.g. {@code 200ms,500ms,2s,5s}
 * @param scenarios which scenarios run ({@link #DEFAULT_SCENARIOS} unless chosen)
 * @param json where to write the report as JSON, or null
 * @param keepTopics whether to leave the bench's topics on the cluster (they are deleted by default)
 * @param surge the phases and rates of the surge scenario
 * @param fairness the sizes of the fairness scenario
 * @param schemaRegistryUrl a schema registry for the Ordo clusters and clients the bench makes
 *     ({@code ordo.schema.registry.url}: Confluent framing), or null for single-object records
 */
public record BenchOptions(
    Size size,
    int rounds,
    int items,
    int payloadBytes,
    int partitions,
    int backlogItems,
    int consumers,
    int maxInFlight,
    int workers,
    int latencySeconds,
    int warmUpSeconds,
    int delayItems,
    long delayMaxMs,
    String delayTiers,
    Set<Scenario> scenarios,
    Path json,
    boolean keepTopics,
    Surge surge,
    Fairness fairness,
    String schemaRegistryUrl) {

  /** How big a run is. */
  public enum Size { QUICK, FULL, LARGE }

  /** The scenarios (issues 6, 12, 13 and 14), in the order a round runs them. */
  public enum Scenario {
    /** Plain KafkaProducer to KafkaConsumer. */
    RAW,
    /** A Kafka share group, every record ACCEPTed explicitly. */
    SHARE,
    /** Ordo end to end, exactly_once_v2: throughput and latency at half load. */
    EOS,
    /** Ordo end to end, at_least_once: throughput and latency at half load. */
    ALOS,
    /** Ordo's dequeue throughput with an empty queue and with a standing backlog. */
    BACKLOG,
    /** Lateness of delayed items over every delay tier. */
    DELAY,
    /**
     * Ordo over HTTP (issue 12): 8 keep-alive workers dequeuing 50 and acking in batches, with the
     * run's partitions and with 32; dequeue and single-ack round trips. Needs the distribution's
     * {@code ordo bench}, which can start an {@code ordo server}.
     */
    HTTP,
    /**
     * Ordo over its SQS endpoint (issue 47): the AWS SDK for Java v2 sends the items with
     * SendMessageBatch (10 a call, 8 threads), then 8 workers loop ReceiveMessage(10) +
     * DeleteMessageBatch until all are deleted; beside the http scenario's items/s of the same round and
     * the same loop over Ordo's HTTP API with SQS's batch of 10.
     * Needs the distribution's {@code ordo bench}. Not in the default run.
     */
    SQS,
    /**
     * Namespace policies against a noisy neighbour (issue 13): tenant A offers a steady rate while
     * tenant B dumps 10 times the consumers' capacity; A's latency before, during and after B's
     * surge, without policies and with them. Not in the default run.
     */
    SURGE,
    /**
     * The cost of namespace policies (issue 13): Ordo end to end at-least-once without policies
     * and with a policy that never binds on every namespace the bench uses. Not in the default run.
     */
    COST,
    /**
     * Fair queueing among group keys (issue 14): Alice's wait with and without Bob's backlog on her
     * partition, and the dispatches on it before each of her items; a 3:1 weighted share; Ordo end to
     * end at-least-once with a group key on every item against none. Not in the default run.
     */
    FAIRNESS,
    /**
     * The cost of issue 48's tenant features: Ordo end to end at-least-once with a group key on every
     * item (the fairness scenario's {@code --fair-keys} distinct ones), without a policy and with
     * {@code shards: 2} and a group rate that never binds on the namespace, the two sides in turn.
     * Not in the default run.
     */
    TENANTS
  }

  /**
   * What runs when {@code --scenarios} is not given: every scenario but {@link Scenario#SURGE},
   * {@link Scenario#COST}, {@link Scenario#FAIRNESS}, {@link Scenario#SQS} and {@link Scenario#TENANTS},
   * which add minutes to every round and are asked for by name.
   */
  public static final Set<Scenario> DEFAULT_SCENARIOS = Set.copyOf(EnumSet.complementOf(
      EnumSet.of(Scenario.SURGE, Scenario.COST, Scenario.FAIRNESS, Scenario.SQS, Scenario.TENANTS)));

  /**
   * The surge scenario's sizes: the consumers' capacity is twice A's rate, B offers 10 times that
   * capacity ({@code dev.ordo.bench.internal.SurgePlan}).
   *
   * @param tenantARate items a second tenant A offers throughout
   * @param seconds how long B's surge lasts
   * @param calmSeconds how long each measured phase before and after the surge lasts
   * @param tenantBSharePercent B's admission (and dispatch) rate under its policy, in percent of the
   *     capacity A leaves spare
   */
  public record Surge(int tenantARate, int seconds, int calmSeconds, int tenantBSharePercent) {
    /** B's policy admits a tenth of the capacity A leaves spare, unless told otherwise. */
    public static final int DEFAULT_B_SHARE_PERCENT = 10;

    public Surge {
      positive("--surge-rate", tenantARate);
      positive("--surge-seconds", seconds);
      positive("--surge-calm-seconds", calmSeconds);
      if (tenantBSharePercent < 1 || tenantBSharePercent > 100) {
        throw new IllegalArgumentException("--surge-b-share must be 1..100 (percent), got " + tenantBSharePercent);
      }
    }

    public Surge(int tenantARate, int seconds, int calmSeconds) {
      this(tenantARate, seconds, calmSeconds, DEFAULT_B_SHARE_PERCENT);
    }

    Surge withTenantBSharePercent(int percent) {
      return new Surge(tenantARate, seconds, calmSeconds, percent);
    }
  }

  /**
   * The fairness scenario's sizes ({@code dev.ordo.bench.internal.FairPlan}).
   *
   * @param backlog Bob's items, enqueued before Alice starts
   * @param baselineItems Alice's items on an empty queue, one every 100 ms, for her wait without Bob
   * @param weightedItems items of each of the two weighted groups (3:1)
   * @param groupKeys distinct group keys, round-robin, of the end-to-end run with group keys
   */
  public record Fairness(int backlog, int baselineItems, int weightedItems, int groupKeys) {
    public Fairness {
      positive("--fair-backlog", backlog);
      positive("--fair-baseline", baselineItems);
      positive("--fair-weighted", weightedItems);
      positive("--fair-keys", groupKeys);
    }
  }

  /** The flags {@link #parse} takes, one per line (a constant: the CLI's help shows it too). */
  public static final String USAGE =
      "Options of ordo bench:\n" +
      "  --quick            small sizes, finishes in under 3 minutes (100k backlog; http's\n" +
      "                     single acks on 4 partitions only)\n" +
      "  --full             the default: 1M backlog, under 20 minutes\n" +
      "  --large            as --full with a 10M backlog\n" +
      "  --rounds N         rounds of every scenario (figures are medians over rounds)\n" +
      "  --items N          records/items per throughput measurement\n" +
      "  --payload-bytes N  payload size (default 200)\n" +
      "  --partitions N     partitions of every topic (default 4)\n" +
      "  --backlog N        standing backlog of the backlog scenario\n" +
      "  --consumers N      consumers per measurement (default 2)\n" +
      "  --max-in-flight N  items leased at once per lease consumer (default 4000)\n" +
      "  --workers N        handler threads per lease consumer (default 4)\n" +
      "  --latency-seconds N  length of each fixed-load latency measurement\n" +
      "  --warm-up-seconds N  uncounted Ordo rounds before the first, until the JIT settles or N s pass\n" +
      "                     (default 15 quick, 120 full; one round at least)\n" +
      "  --scenarios LIST   some of raw,share,eos,alos,backlog,delay,http,sqs,surge,cost,fairness,tenants,\n" +
      "                     or all (default: all but sqs, surge, cost, fairness and tenants, which run\n" +
      "                     only when named)\n" +
      "  --surge-rate N     surge: items/s tenant A offers; the consumers' capacity is twice that and\n" +
      "                     tenant B dumps 10x the capacity (default 1000; 200 quick)\n" +
      "  --surge-seconds N  surge: how long B's surge lasts (default 30; 5 quick)\n" +
      "  --surge-calm-seconds N  surge: the phases measured before and after it (default 20; 5 quick)\n" +
      "  --surge-b-share PCT  surge: B's admission and dispatch rate under its policy, in percent of\n" +
      "                     the capacity A leaves spare (default 10)\n" +
      "  --fair-backlog N   fairness: Bob's items ahead of Alice's, on her partition (default 200k; 50k quick)\n" +
      "  --fair-baseline N  fairness: Alice's items on an empty queue, 1 per 100 ms (default 50; 20 quick)\n" +
      "  --fair-weighted N  fairness: items of each group of the 3:1 weights (default 10k; 2k quick)\n" +
      "  --fair-keys N      fairness: distinct group keys of the end-to-end run with keys (default 1000)\n" +
      "  --json FILE        also write the report as JSON to FILE\n" +
      "  --keep-topics      leave the bench's topics on the cluster\n" +
      "  --schema-registry-url URL  Ordo's clusters and clients use this schema registry: items,\n" +
      "                     deliveries, stats and dead letters Confluent-framed (A/B against no flag)";

  public BenchOptions {
    if (size == null) {
      throw new IllegalArgumentException("size is missing");
    }
    positive("--rounds", rounds);
    positive("--items", items);
    positive("--partitions", partitions);
    positive("--consumers", consumers);
    positive("--max-in-flight", maxInFlight);
    positive("--workers", workers);
    positive("--latency-seconds", latencySeconds);
    if (warmUpSeconds < 0) {
      throw new IllegalArgumentException("--warm-up-seconds must be >= 0, got " + warmUpSeconds);
    }
    positive("delay items", delayItems);
    if (payloadBytes < 16 || payloadBytes > 10 * 1024) {
      throw new IllegalArgumentException("--payload-bytes must be between 16 and 10240, got " + payloadBytes);
    }
    if (backlogItems < 0) {
      throw new IllegalArgumentException("--backlog must be >= 0, got " + backlogItems);
    }
    if (scenarios == null || scenarios.isEmpty()) {
      throw new IllegalArgumentException("--scenarios names none");
    }
    scenarios = Set.copyOf(scenarios);
    if (surge == null) {
      throw new IllegalArgumentException("surge sizes are missing");
    }
    if (fairness == null) {
      throw new IllegalArgumentException("fairness sizes are missing");
    }
  }

  private static void positive(String name, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1, got " + value);
    }
  }

  /** The sizes of a run: quick is made to finish in under 3 minutes on 2 shared cores, full in under 20. */
  public static BenchOptions defaults(Size size) {
    return switch (size) {
      case QUICK -> new BenchOptions(size, 3, 20_000, 200, 4, 100_000, 2, 4_000, 4, 3, 15, 300, 3_000,
          "100ms,200ms,500ms,1s", DEFAULT_SCENARIOS, null, false, new Surge(200, 5, 5),
          new Fairness(50_000, 20, 2_000, 1_000), null);
      case FULL -> new BenchOptions(size, 4, 100_000, 200, 4, 1_000_000, 2, 4_000, 4, 10, 120, 1_000, 12_000,
          "200ms,500ms,2s,5s", DEFAULT_SCENARIOS, null, false, new Surge(1_000, 30, 20),
          new Fairness(200_000, 50, 10_000, 1_000), null);
      case LARGE -> new BenchOptions(size, 3, 100_000, 200, 4, 10_000_000, 2, 4_000, 4, 10, 120, 1_000, 12_000,
          "200ms,500ms,2s,5s", DEFAULT_SCENARIOS, null, false, new Surge(1_000, 30, 20),
          new Fairness(200_000, 50, 10_000, 1_000), null);
    };
  }

  /**
   * Parses the flags of {@link #USAGE}. {@code --quick}, {@code --full} or {@code --large} pick the
   * sizes; the other flags override them whatever their order.
   *
   * @throws IllegalArgumentException naming the bad flag
   */
  public static BenchOptions parse(String... args) {
    Size size = Size.FULL;
    List<String> rest = new ArrayList<>();
    for (String a : args) {
      switch (a) {
        case "--quick" -> size = Size.QUICK;
        case "--full" -> size = Size.FULL;
        case "--large" -> size = Size.LARGE;
        default -> rest.add(a);
      }
    }
    BenchOptions o = defaults(size);
    for (int i = 0; i < rest.size(); i++) {
      String flag = rest.get(i);
      String value = null;
      int eq = flag.indexOf('=');
      if (flag.startsWith("--") && eq > 0) {
        value = flag.substring(eq + 1);
        flag = flag.substring(0, eq);
      }
      if (flag.equals("--keep-topics")) {
        o = o.withKeepTopics(true);
        continue;
      }
      if (value == null) {
        if (i + 1 >= rest.size()) {
          throw new IllegalArgumentException("unknown option or missing value: " + flag + "\n" + USAGE);
        }
        value = rest.get(++i);
      }
      o = switch (flag) {
        case "--rounds" -> o.withRounds(intValue(flag, value));
        case "--items" -> o.withItems(intValue(flag, value));
        case "--payload-bytes" -> o.withPayloadBytes(intValue(flag, value));
        case "--partitions" -> o.withPartitions(intValue(flag, value));
        case "--backlog" -> o.withBacklogItems(intValue(flag, value));
        case "--consumers" -> o.withConsumers(intValue(flag, value));
        case "--max-in-flight" -> o.withMaxInFlight(intValue(flag, value));
        case "--workers" -> o.withWorkers(intValue(flag, value));
        case "--latency-seconds" -> o.withLatencySeconds(intValue(flag, value));
        case "--warm-up-seconds" -> o.withWarmUpSeconds(intValue(flag, value));
        case "--scenarios" -> o.withScenarios(scenarios(value));
        case "--surge-rate" -> o.withSurge(new Surge(intValue(flag, value), o.surge().seconds(), o.surge().calmSeconds(),
            o.surge().tenantBSharePercent()));
        case "--surge-seconds" -> o.withSurge(new Surge(o.surge().tenantARate(), intValue(flag, value),
            o.surge().calmSeconds(), o.surge().tenantBSharePercent()));
        case "--surge-calm-seconds" -> o.withSurge(new Surge(o.surge().tenantARate(), o.surge().seconds(),
            intValue(flag, value), o.surge().tenantBSharePercent()));
        case "--surge-b-share" -> o.withSurge(o.surge().withTenantBSharePercent(intValue(flag, value)));
        case "--fair-backlog" -> o.withFairness(new Fairness(intValue(flag, value), o.fairness().baselineItems(),
            o.fairness().weightedItems(), o.fairness().groupKeys()));
        case "--fair-baseline" -> o.withFairness(new Fairness(o.fairness().backlog(), intValue(flag, value),
            o.fairness().weightedItems(), o.fairness().groupKeys()));
        case "--fair-weighted" -> o.withFairness(new Fairness(o.fairness().backlog(), o.fairness().baselineItems(),
            intValue(flag, value), o.fairness().groupKeys()));
        case "--fair-keys" -> o.withFairness(new Fairness(o.fairness().backlog(), o.fairness().baselineItems(),
            o.fairness().weightedItems(), intValue(flag, value)));
        case "--json" -> o.withJson(Path.of(value));
        case "--schema-registry-url" -> o.withSchemaRegistryUrl(value);
        default -> throw new IllegalArgumentException("unknown option: " + flag + "\n" + USAGE);
      };
    }
    if (o.schemaRegistryUrl() != null && o.runs(Scenario.HTTP)) {
      // The http scenario's front end is an ordo server of the CLI's making, which is not given the registry.
      throw new IllegalArgumentException("--schema-registry-url does not reach the http scenario's server: choose"
          + " --scenarios without http (e.g. eos,alos)");
    }
    return o;
  }

  private static int intValue(String flag, String value) {
    String v = value.replace("_", "").toLowerCase(Locale.ROOT);
    int scale = 1;
    if (v.endsWith("k")) {
      scale = 1_000;
      v = v.substring(0, v.length() - 1);
    } else if (v.endsWith("m")) {
      scale = 1_000_000;
      v = v.substring(0, v.length() - 1);
    }
    try {
      return Math.multiplyExact(Integer.parseInt(v), scale);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(flag + " needs a whole number (100000, 100k, 1m), got '" + value + "'");
    }
  }

  private static Set<Scenario> scenarios(String list) {
    Set<Scenario> out = EnumSet.noneOf(Scenario.class);
    for (String s : list.split(",")) {
      String name = s.trim();
      if (name.isEmpty()) {
        continue;
      }
      if (name.equalsIgnoreCase("all")) {
        out.addAll(EnumSet.allOf(Scenario.class));
        continue;
      }
      try {
        out.add(Scenario.valueOf(name.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--scenarios: unknown scenario '" + name + "'; known: "
            + String.join(", ", EnumSet.allOf(Scenario.class).stream()
                .map(x -> x.name().toLowerCase(Locale.ROOT)).toList()) + ", all");
      }
    }
    return out;
  }

  public boolean runs(Scenario s) {
    return scenarios.contains(s);
  }

  public BenchOptions withSchemaRegistryUrl(String v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness,
        v == null || v.isBlank() ? null : v.trim());
  }

  public BenchOptions withRounds(int v) {
    return new BenchOptions(size, v, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withItems(int v) {
    return new BenchOptions(size, rounds, v, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withPayloadBytes(int v) {
    return new BenchOptions(size, rounds, items, v, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withPartitions(int v) {
    return new BenchOptions(size, rounds, items, payloadBytes, v, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withBacklogItems(int v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, v, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withConsumers(int v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, v, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withMaxInFlight(int v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, v, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withWorkers(int v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, v,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withLatencySeconds(int v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        v, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withWarmUpSeconds(int v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, v, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  /** The delay scenario: {@code n} items with delays spread evenly over 0..{@code maxMs}, over {@code tiers}. */
  public BenchOptions withDelays(int n, long maxMs, String tiers) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, n, maxMs, tiers, scenarios, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withScenarios(Set<Scenario> v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, v, json, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withJson(Path v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, v, keepTopics, surge, fairness, schemaRegistryUrl);
  }

  public BenchOptions withSurge(Surge v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, v, fairness, schemaRegistryUrl);
  }

  public BenchOptions withFairness(Fairness v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, keepTopics, surge, v, schemaRegistryUrl);
  }

  public BenchOptions withKeepTopics(boolean v) {
    return new BenchOptions(size, rounds, items, payloadBytes, partitions, backlogItems, consumers, maxInFlight, workers,
        latencySeconds, warmUpSeconds, delayItems, delayMaxMs, delayTiers, scenarios, json, v, surge, fairness, schemaRegistryUrl);
  }
}
