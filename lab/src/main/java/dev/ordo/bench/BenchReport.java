package dev.ordo.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one {@code ordo bench} run measured: every figure is the median over the rounds, with the
 * rounds' own values beside it; a scenario that did not run has null figures. {@link #table()} is
 * what the bench prints, {@link #toJson()} what {@code --json} writes.
 *
 * <p>The ratios are medians of the per-round ratios (each round's scenarios ran back to back, so
 * they saw about the same load on the machine): Ordo end to end (exactly-once, the default) over
 * the plain Kafka producer and consumer, over the share group, and the backlog's dequeue throughput
 * over the empty queue's. The surge and cost scenarios (issue 13) and the fairness scenario
 * (issue 14) carry their own ratios.
 */
public record BenchReport(
    BenchOptions options,
    Environment environment,
    Figure rawKafka,
    Figure shareGroups,
    Ordo exactlyOnce,
    Ordo atLeastOnce,
    Backlog backlog,
    Delays delays,
    Http http,
    Sqs sqs,
    Surge surge,
    Cost cost,
    Tenants tenants,
    Fairness fairness,
    Ratios ratios,
    List<String> notes) {

  /** A median over rounds and the rounds' values (items or records per second). */
  public record Figure(double median, List<Double> rounds) {}

  /** A latency distribution in milliseconds. */
  public record Latency(double p50, double p99, double max) {}

  /**
   * Ordo end to end under one processing guarantee: throughput, the load offered for the latency
   * measurement (half the round's throughput) and the latency at it (medians of each round's p50,
   * p99 and max).
   */
  public record Ordo(String guarantee, Figure itemsPerSec, Figure offeredPerSec, Latency latencyMs,
      List<Latency> roundLatencies, Figure cpuUsPerItem, Figure streamThreadUsPerItem, Figure recordsPerItem) {}

  /** Dequeue throughput with an empty queue and with {@code backlogItems} items standing. */
  public record Backlog(int backlogItems, Figure emptyItemsPerSec, Figure backlogItemsPerSec) {}

  /** Lateness of delayed items (handler time minus due time), over the tiers. */
  public record Delays(String tiers, int items, long maxDelayMs, Latency latenessMs, List<Latency> roundLateness) {}

  /**
   * Ordo over HTTP ({@code ordo server}, keep-alive workers): throughput of {@code workers} workers
   * dequeuing {@code dequeueCount} and acking in batches, with the cluster's partitions and with
   * {@code widePartitions}; the round trip of a dequeue of ready items; and the round trip of a
   * single ack at half the first throughput. The ratios: over the exactly-once lease consumers of
   * the same round, and the wide partition count's throughput over the first's. The round trips of
   * one call on a quiet server (issue 45): one client on one keep-alive connection enqueues an item,
   * dequeues it (count 1) and acks it, {@code quietCalls} times in a row, nothing else running. And
   * {@code singleAcks}: the same workers acking one by one.
   */
  public record Http(int workers, int dequeueCount, int widePartitions, Figure itemsPerSec, Figure wideItemsPerSec,
      Latency dequeueMs, Figure offeredPerSec, Latency ackMs, double vsLeaseConsumers, double wideVsNarrow,
      int quietCalls, Latency quietEnqueueMs, Latency quietDequeueMs, Latency quietAckMs, SingleAcks singleAcks) {}

  /**
   * The http scenario's workers as a first HTTP client works (issue 45): each dequeues
   * {@code dequeueCount} ready items and acks each with its own request, on {@code narrowPartitions}
   * and on {@code widePartitions}; the throughput of each and the median of the per-round ratios wide
   * over narrow (goal: at least 0.8), which the per-partition cost of single operations pulls down.
   * {@code --quick} runs the narrow side only: the wide one's figures and the ratio are NaN.
   */
  public record SingleAcks(int dequeueCount, int narrowPartitions, int widePartitions, Figure narrowItemsPerSec,
      Figure wideItemsPerSec, double wideVsNarrow) {}

  /**
   * Ordo over its SQS endpoint (issue 47): the AWS SDK for Java v2 from {@code workers} threads sending
   * with SendMessageBatch (10 a call), then working with ReceiveMessage(10) + DeleteMessageBatch; the
   * ratios are over the http scenario's throughput of the same rounds (its same loop over Ordo's HTTP
   * API, dequeuing 50), NaN when it did not run, and over that loop with SQS's batch of 10
   * ({@code http10PerSec}, measured by this scenario on a server of its own): what the protocol costs.
   */
  public record Sqs(int workers, Figure sendPerSec, Figure workPerSec, Figure http10PerSec, double workVsHttp,
      double sendVsHttp, double workVsHttp10) {}

  /**
   * The surge scenario (issue 13): tenant A offers {@code tenantARate} items a second throughout;
   * the consumers are one fleet of {@code workers} workers busy {@code serviceMs} per item
   * ({@code capacity} items a second), each tenant's consumer holding up to {@code inFlight} items;
   * tenant B offers {@code tenantBRate} for {@code surgeSeconds}, between phases of
   * {@code calmSeconds}. Run without policies and with the policies described.
   */
  public record Surge(double tenantARate, int workers, double serviceMs, double capacity, int inFlight,
      double tenantBRate, int calmSeconds, int surgeSeconds, String tenantAPolicy, String tenantBPolicy,
      SurgeRun withoutPolicies, SurgeRun withPolicies) {}

  /**
   * One surge run, medians over rounds: per phase, A's latency from enqueue to a worker starting on
   * the item; A's p99 during the surge over its p99 before (the median of the rounds' ratios, and
   * each round's); what each producer enqueued and had refused, the distinct items of each that
   * reached a worker; the queue's OVERFLOW, admission and sideline counts.
   */
  public record SurgeRun(SurgePhase before, SurgePhase during, SurgePhase after, double p99DuringOverBefore,
      List<Double> roundRatios, double tenantAEnqueued, double tenantARefused, double tenantADelivered,
      double tenantBEnqueued, double tenantBRefused, double tenantBDelivered, double overflowed, double admitted,
      double sidelined) {}

  /**
   * One phase of a surge run: A's latency (ms), the queue's part of it (enqueue to A's handler
   * receiving the item, before the wait for a worker), and how many of A's items were enqueued in it;
   * how many of B's items workers started on in it.
   */
  public record SurgePhase(Latency tenantAMs, Latency tenantAQueuedMs, double tenantAItems, double tenantBDelivered) {}

  /**
   * The cost scenario (issue 13): Ordo end to end at-least-once without policies and with
   * {@code policy} on every namespace it uses; the medians of the per-round ratios (with over
   * without) of throughput and of the stream thread's CPU per item.
   */
  public record Cost(String policy, Ordo withoutPolicies, Ordo withPolicies, double throughputWithOverWithout,
      double streamCpuWithOverWithout) {}

  /**
   * The tenants scenario (issue 48): Ordo end to end at-least-once, every item with one of
   * {@code groupKeys} group keys, without a policy ({@code off}) and with {@code policy} (shards 2 and
   * a group rate that never binds: {@code on}); the medians of the per-round ratios (on over off) of
   * throughput, of the CPU per item in all threads and of the stream thread's CPU per item.
   */
  public record Tenants(String policy, int groupKeys, Ordo off, Ordo on, double throughputOnOverOff,
      double cpuOnOverOff, double streamCpuOnOverOff) {}

  /**
   * The fairness scenario (issue 14): Alice behind Bob's backlog, weighted groups, and what group
   * keys cost end to end. A part that failed in every round has NaN figures.
   */
  public record Fairness(FairQueue queue, FairWeights weights, FairCost cost) {}

  /**
   * Alice behind Bob (medians over rounds): Bob enqueues {@code backlogItems} items of group
   * {@code bobKey}, then Alice (group {@code aliceKey}, the same topic, priority and partition
   * {@code partition}) one item every {@code aliceIntervalMs} while the consumers drain Bob's. Her
   * wait from enqueue to the handler on an empty queue ({@code aliceAloneMs}, of
   * {@code aliceAloneItems} items) and behind the backlog ({@code aliceBehindMs}, her
   * {@code aliceBehindItems} items enqueued while Bob had items not dispatched), and the ratio of
   * their p99s (the median of the rounds' ratios, and each round's); the part of each wait before
   * the queue took her item in ({@code aliceAloneIntakeMs}, {@code aliceBehindIntakeMs}), and of that the part
   * before the broker acknowledged her write ({@code aliceAloneAckedMs}, {@code aliceBehindAckedMs}). The items her partition
   * dispatched before each of hers: after the queue took it in (p50, p99 and max of the upper bound;
   * the max of the lower bound), and since she enqueued it (its transit to the queue included),
   * beside the {@code activeGroups} the issue bounds it by. {@code dispatchesRead} entries of her
   * partition's dispatch order were read against {@code dispatchesCounted} by the queue. Beside each of
   * her two parts a plain Kafka record went from a producer to a consumer every {@code aliceIntervalMs}
   * ({@code pingAloneMs}, {@code pingBehindMs}, of {@code pingAloneRecords} and {@code pingBehindRecords}
   * records; {@code KafkaPing}): the ratio of their p99s (the median of the
   * rounds', and each round's) is what the machine adds to one Kafka hop under Bob's drain.
   */
  public record FairQueue(String bobKey, String aliceKey, int partition, int backlogItems, int aliceIntervalMs,
      int activeGroups, Latency aliceAloneMs, Latency aliceAloneIntakeMs, Latency aliceAloneAckedMs, double aliceAloneItems,
      Latency aliceBehindMs, Latency aliceBehindIntakeMs, Latency aliceBehindAckedMs, double aliceBehindItems,
      double p99BehindOverAlone, List<Double> roundRatios, double afterArrivalP50, double afterArrivalP99,
      double afterArrivalMax,
      List<Double> roundAfterArrivalMax, double afterArrivalAtLeastMax, double sinceEnqueueP99,
      double sinceEnqueueMax, double aliceEnqueued, double aliceDelivered, double bobEnqueued, double bobDelivered,
      double bobItemsPerSec, double dispatchesRead, double dispatchesCounted, Latency pingAloneMs, Latency pingBehindMs,
      double pingAloneRecords, double pingBehindRecords, double pingP99BehindOverAlone, List<Double> pingRoundRatios) {}

  /**
   * Weighted groups (medians over rounds): {@code itemsPerGroup} items of each of {@code heavyKey}
   * (weight {@code heavyWeight}) and {@code lightKey} ({@code lightWeight}) on one partition, all
   * taken in before the consumers start; the items of each dispatched while both had items, their
   * ratio (the median of the rounds', and each round's) and its deviation from the weights' ratio;
   * and the distinct items of each delivered.
   */
  public record FairWeights(String heavyKey, String lightKey, double heavyWeight, double lightWeight,
      int itemsPerGroup, double heavyServed, double lightServed, double ratio, List<Double> roundRatios,
      double deviation, double heavyDelivered, double lightDelivered) {}

  /**
   * Ordo end to end at-least-once without group keys and with one on every item ({@code groupKeys}
   * distinct ones in turn); the medians of the per-round ratios (with over without) of throughput
   * and of the stream thread's CPU per item.
   */
  public record FairCost(int groupKeys, Ordo withoutGroupKeys, Ordo withGroupKeys, double throughputWithOverWithout,
      double streamCpuWithOverWithout, KeySlices slices) {}

  /**
   * Group keys against none in one cluster, in alternating slices ({@code pairsPerRound} pairs a
   * round): the median of every pair's throughput ratio (keys over none) and the ratios themselves,
   * the median slice's items/s on each side, and the ratio of the median stream-thread CPU per item.
   */
  public record KeySlices(int pairsPerRound, double throughputWithOverWithout, List<Double> pairRatios,
      double withPerSec, double withoutPerSec, double streamCpuWithOverWithout) {}

  /** The ratios the issue asks for, plus the at-least-once ones; NaN when a side did not run. */
  public record Ratios(double ordoVsRawKafka, double ordoVsShareGroups, double backlogVsEmpty,
      double atLeastOnceVsRawKafka, double atLeastOnceVsShareGroups) {}

  /** Where it ran: cores, Java, the load average (1 min) before each round and at the end, the broker. */
  public record Environment(String startedAt, double seconds, int cores, String java, String os,
      List<Double> loadAverages, String bootstrapServers, int brokers, String shareHeartbeatMs,
      String shareMinHeartbeatMs) {}

  // ---- the table ----

  /** The report as the bench prints it. */
  public String table() {
    StringBuilder b = new StringBuilder();
    BenchOptions o = options;
    Environment e = environment;
    b.append(String.format(Locale.ROOT, "ordo bench (%s): %d rounds, %,d items, %d-byte payloads, %d partitions,"
            + " %d consumers x %d in flight (%d workers), %.0f s%n", o.size().name().toLowerCase(Locale.ROOT), o.rounds(),
        o.items(), o.payloadBytes(), o.partitions(), o.consumers(), o.maxInFlight(), o.workers(), e.seconds()));
    b.append(String.format(Locale.ROOT, "machine: %d cores, %s, Java %s; load average (1 min) per round: %s%n",
        e.cores(), e.os(), e.java(), loads(e.loadAverages())));
    b.append(String.format(Locale.ROOT, "Kafka: %s (%d broker%s), share heartbeat %s ms (min %s ms)%n%n",
        e.bootstrapServers(), e.brokers(), e.brokers() == 1 ? "" : "s", e.shareHeartbeatMs(), e.shareMinHeartbeatMs()));
    String row = "%-44s %-30s %s%n";
    b.append(String.format(Locale.ROOT, row, "scenario", "median", "rounds"));
    if (rawKafka != null) {
      b.append(String.format(Locale.ROOT, row, "Kafka producer -> consumer", rate(rawKafka.median(), "records/s"),
          rounds(rawKafka)));
    }
    if (shareGroups != null) {
      b.append(String.format(Locale.ROOT, row, "Kafka share group, ACCEPT each (steady)",
          rate(shareGroups.median(), "records/s"), rounds(shareGroups)));
    }
    for (Ordo ordo : new Ordo[] {exactlyOnce, atLeastOnce}) {
      if (ordo == null) {
        continue;
      }
      b.append(String.format(Locale.ROOT, row, "Ordo end to end, " + ordo.guarantee(),
          rate(ordo.itemsPerSec().median(), "items/s"), rounds(ordo.itemsPerSec())));
      b.append(String.format(Locale.ROOT, row, "  CPU per item, all / stream thread",
          String.format(Locale.ROOT, "%.0f / %.0f µs", ordo.cpuUsPerItem().median(),
              ordo.streamThreadUsPerItem().median()), cpuRounds(ordo)));
      b.append(String.format(Locale.ROOT, row, "  Kafka records written per item",
          String.format(Locale.ROOT, "%.2f", ordo.recordsPerItem().median()), rounds(ordo.recordsPerItem(), "%.2f")));
      b.append(String.format(Locale.ROOT, row,
          String.format(Locale.ROOT, "  latency at %,.0f items/s (half)", ordo.offeredPerSec().median()),
          latency(ordo.latencyMs()), ordo.roundLatencies().stream().map(BenchReport::latencyShort).toList()));
    }
    if (backlog != null) {
      b.append(String.format(Locale.ROOT, row, "Ordo dequeue, empty queue", rate(backlog.emptyItemsPerSec().median(),
          "items/s"), rounds(backlog.emptyItemsPerSec())));
      b.append(String.format(Locale.ROOT, row,
          String.format(Locale.ROOT, "Ordo dequeue, %,d items standing", backlog.backlogItems()),
          rate(backlog.backlogItemsPerSec().median(), "items/s"), rounds(backlog.backlogItemsPerSec())));
    }
    if (delays != null) {
      b.append(String.format(Locale.ROOT, row,
          String.format(Locale.ROOT, "Ordo delays 0-%ss, tiers %s", trim(delays.maxDelayMs() / 1000.0), delays.tiers()),
          "lateness " + latency(delays.latenessMs()), delays.roundLateness().stream().map(BenchReport::latencyShort).toList()));
    }
    if (http != null) {
      b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "Ordo over HTTP, %d workers, %d partitions",
          http.workers(), o.partitions()), rate(http.itemsPerSec().median(), "items/s"), rounds(http.itemsPerSec())));
      b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "  the same, %d partitions",
          http.widePartitions()), rate(http.wideItemsPerSec().median(), "items/s"), rounds(http.wideItemsPerSec())));
      b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "  dequeue(%d) of ready items",
          http.dequeueCount()), latency(http.dequeueMs()), ""));
      b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "  ack at %,.0f items/s (half)",
          http.offeredPerSec().median()), latency(http.ackMs()), ""));
      b.append(String.format(Locale.ROOT, row, "  one call, quiet server: enqueue", latency(http.quietEnqueueMs()), ""));
      b.append(String.format(Locale.ROOT, row, "    dequeue of 1 ready item", latency(http.quietDequeueMs()), ""));
      b.append(String.format(Locale.ROOT, row, "    ack", latency(http.quietAckMs()), ""));
      SingleAcks each = http.singleAcks();
      b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "  dequeue(%d), ack one by one, %d partitions",
          each.dequeueCount(), each.narrowPartitions()), rate(each.narrowItemsPerSec().median(), "items/s"),
          rounds(each.narrowItemsPerSec())));
      b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "    the same, %d partitions",
          each.widePartitions()), rate(each.wideItemsPerSec().median(), "items/s"), rounds(each.wideItemsPerSec())));
    }
    if (sqs != null) {
      b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "Ordo over SQS, SendMessageBatch, %d threads",
          sqs.workers()), rate(sqs.sendPerSec().median(), "items/s"), rounds(sqs.sendPerSec())));
      b.append(String.format(Locale.ROOT, row, "  ReceiveMessage(10) + DeleteMessageBatch",
          rate(sqs.workPerSec().median(), "items/s"), rounds(sqs.workPerSec())));
      b.append(String.format(Locale.ROOT, row, "  Ordo's HTTP, dequeue(10) + batch ack",
          rate(sqs.http10PerSec().median(), "items/s"), rounds(sqs.http10PerSec())));
    }
    if (surge != null) {
      surgeRows(b, row);
    }
    if (cost != null) {
      e2eRows(b, row, "", cost.withoutPolicies(), "no policies");
      e2eRows(b, row, "", cost.withPolicies(), "with policies");
      b.append(String.format(Locale.ROOT, "  the policy: %s%n", cost.policy()));
    }
    if (tenants != null) {
      String keys = String.format(Locale.ROOT, "%,d group keys, ", tenants.groupKeys());
      e2eRows(b, row, "", tenants.off(), keys + "no policy");
      e2eRows(b, row, "", tenants.on(), keys + "tenant policy");
      b.append(String.format(Locale.ROOT, "  the tenant policy: %s%n", tenants.policy()));
    }
    if (fairness != null) {
      fairnessRows(b, row);
    }
    b.append(String.format(Locale.ROOT, "%nratios (median of per-round ratios)%n"));
    b.append(String.format(Locale.ROOT, "  Ordo e2e (exactly-once) / raw Kafka    %s%n", ratio(ratios.ordoVsRawKafka())));
    b.append(String.format(Locale.ROOT, "  Ordo e2e (exactly-once) / share groups %s%n", ratio(ratios.ordoVsShareGroups())));
    b.append(String.format(Locale.ROOT, "  Ordo e2e (at-least-once) / raw Kafka   %s%n", ratio(ratios.atLeastOnceVsRawKafka())));
    b.append(String.format(Locale.ROOT, "  Ordo e2e (at-least-once) / share groups %s%n",
        ratio(ratios.atLeastOnceVsShareGroups())));
    b.append(String.format(Locale.ROOT, "  backlog / empty                        %s%n", ratio(ratios.backlogVsEmpty())));
    if (http != null) {
      b.append(String.format(Locale.ROOT, "  HTTP workers / lease consumers (e-o)   %s%n", ratio(http.vsLeaseConsumers())));
      b.append(String.format(Locale.ROOT, "  HTTP %d partitions / %d partitions      %s%n", http.widePartitions(),
          o.partitions(), ratio(http.wideVsNarrow())));
      b.append(String.format(Locale.ROOT, "  HTTP single acks, %d / %d partitions    %s%n",
          http.singleAcks().widePartitions(), http.singleAcks().narrowPartitions(),
          ratio(http.singleAcks().wideVsNarrow())));
    }
    if (sqs != null) {
      b.append(String.format(Locale.ROOT, "  SQS worker loop / HTTP workers         %s%n", ratio(sqs.workVsHttp())));
      b.append(String.format(Locale.ROOT, "  SQS SendMessageBatch / HTTP workers    %s%n", ratio(sqs.sendVsHttp())));
      b.append(String.format(Locale.ROOT, "  SQS worker loop / HTTP dequeue(10)     %s%n", ratio(sqs.workVsHttp10())));
    }
    if (surge != null) {
      b.append(String.format(Locale.ROOT, "  surge: A p99 during / before, no policies %s %s%n",
          ratio(surge.withoutPolicies().p99DuringOverBefore()), ratios(surge.withoutPolicies().roundRatios())));
      b.append(String.format(Locale.ROOT, "  surge: A p99 during / before, policies    %s %s%n",
          ratio(surge.withPolicies().p99DuringOverBefore()), ratios(surge.withPolicies().roundRatios())));
    }
    if (cost != null) {
      b.append(String.format(Locale.ROOT, "  cost: e2e with policies / without         %s (stream thread CPU per item %s)%n",
          ratio(cost.throughputWithOverWithout()), ratio(cost.streamCpuWithOverWithout())));
    }
    if (tenants != null) {
      b.append(String.format(Locale.ROOT,
          "  tenants: e2e with shards and group rates / without %s (CPU per item, all %s, stream thread %s)%n",
          ratio(tenants.throughputOnOverOff()), ratio(tenants.cpuOnOverOff()), ratio(tenants.streamCpuOnOverOff())));
    }
    if (fairness != null) {
      b.append(String.format(Locale.ROOT, "  fairness: Alice p99 behind Bob / alone      %s %s%n",
          ratio(fairness.queue().p99BehindOverAlone()), ratios(fairness.queue().roundRatios())));
      b.append(String.format(Locale.ROOT, "  fairness: the same, a plain Kafka record    %s %s%n",
          ratio(fairness.queue().pingP99BehindOverAlone()), ratios(fairness.queue().pingRoundRatios())));
      FairWeights w = fairness.weights();
      b.append(String.format(Locale.ROOT, "  fairness: heavy / light served (goal %s)    %s %s, deviation %s%n",
          weight(w.heavyWeight() / w.lightWeight()), ratio(w.ratio()), ratios(w.roundRatios()),
          percent(w.deviation())));
      FairCost c = fairness.cost();
      b.append(String.format(Locale.ROOT,
          "  fairness: e2e with group keys / without     %s (stream thread CPU per item %s)%n",
          ratio(c.throughputWithOverWithout()), ratio(c.streamCpuWithOverWithout())));
      KeySlices k = c.slices();
      b.append(String.format(Locale.ROOT,
          "  fairness: the same, alternating slices       %s of %d pairs (stream thread CPU per item %s)%n",
          ratio(k.throughputWithOverWithout()), k.pairRatios().size(), ratio(k.streamCpuWithOverWithout())));
    }
    for (String note : notes) {
      b.append("note: ").append(note).append(System.lineSeparator());
    }
    return b.toString();
  }

  private void fairnessRows(StringBuilder b, String row) {
    FairQueue q = fairness.queue();
    b.append(String.format(Locale.ROOT, "Fairness: Bob %,d items (group %s), then Alice (group %s) 1 per %d ms, same"
            + " topic, priority and partition (%d); %d active groups%n", q.backlogItems(), q.bobKey(), q.aliceKey(),
        q.aliceIntervalMs(), q.partition(), q.activeGroups()));
    b.append(String.format(Locale.ROOT, row, "  Alice alone, enqueue -> handler", latency(q.aliceAloneMs()),
        count(q.aliceAloneItems()) + " items; taken in " + latencyShort(q.aliceAloneIntakeMs()) + " ms, acked "
            + latencyShort(q.aliceAloneAckedMs()) + " ms"));
    b.append(String.format(Locale.ROOT, row, "  Alice behind Bob's backlog", latency(q.aliceBehindMs()),
        count(q.aliceBehindItems()) + " items; taken in " + latencyShort(q.aliceBehindIntakeMs())
            + " ms, acked " + latencyShort(q.aliceBehindAckedMs()) + " ms; Bob drained at " + rate(q.bobItemsPerSec(), "items/s")));
    b.append(String.format(Locale.ROOT, row, "  plain Kafka record beside her, alone", latency(q.pingAloneMs()),
        count(q.pingAloneRecords()) + " records, producer -> consumer"));
    b.append(String.format(Locale.ROOT, row, "  plain Kafka record beside her, behind Bob", latency(q.pingBehindMs()),
        count(q.pingBehindRecords()) + " records"));
    b.append(String.format(Locale.ROOT, row, "  dispatched before her, after she arrived",
        "p50 " + count(q.afterArrivalP50()) + ", p99 " + count(q.afterArrivalP99()) + ", max "
            + count(q.afterArrivalMax()) + " (at most)",
        "max per round " + counts(q.roundAfterArrivalMax()) + "; at least: max " + count(q.afterArrivalAtLeastMax())));
    b.append(String.format(Locale.ROOT, row, "  dispatched before her, since her enqueue",
        "p99 " + count(q.sinceEnqueueP99()) + ", max " + count(q.sinceEnqueueMax()),
        "transit to the queue included; dispatches read " + count(q.dispatchesRead()) + ", counted "
            + count(q.dispatchesCounted())));
    b.append(String.format(Locale.ROOT, row, "  Bob enqueued / delivered", count(q.bobEnqueued()) + " / "
        + count(q.bobDelivered()), "Alice " + count(q.aliceEnqueued()) + " / " + count(q.aliceDelivered())));
    FairWeights w = fairness.weights();
    b.append(String.format(Locale.ROOT, row, String.format(Locale.ROOT, "  weights %s:%s, %,d items each",
            weight(w.heavyWeight()), weight(w.lightWeight()), w.itemsPerGroup()),
        "served " + count(w.heavyServed()) + " : " + count(w.lightServed()) + " = " + ratio(w.ratio()),
        w.heavyKey() + " : " + w.lightKey() + " while both had items; delivered " + count(w.heavyDelivered()) + " / "
            + count(w.lightDelivered())));
    FairCost c = fairness.cost();
    e2eRows(b, row, "  ", c.withoutGroupKeys(), "no group keys");
    e2eRows(b, row, "  ", c.withGroupKeys(), String.format(Locale.ROOT, "%,d group keys", c.groupKeys()));
  }

  private static String counts(List<Double> values) {
    return values.stream().map(BenchReport::count).toList().toString();
  }

  private static String weight(double v) {
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String percent(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%+.1f%%", 100 * v);
  }

  private void surgeRows(StringBuilder b, String row) {
    b.append(String.format(Locale.ROOT, "Surge: A %,.0f items/s; fleet %d workers x %s ms = %,.0f items/s, %,d in flight"
            + " per tenant; B %,.0f items/s for %d s; phases of %d s%n", surge.tenantARate(), surge.workers(),
        trim(surge.serviceMs()), surge.capacity(), surge.inFlight(), surge.tenantBRate(), surge.surgeSeconds(),
        surge.calmSeconds()));
    b.append(String.format(Locale.ROOT, "  policies: A %s; B %s%n", surge.tenantAPolicy(), surge.tenantBPolicy()));
    SurgeRun[] runs = {surge.withoutPolicies(), surge.withPolicies()};
    for (int r = 0; r < runs.length; r++) {
      SurgeRun run = runs[r];
      String which = r == 0 ? "no policies" : "policies";
      String[] names = {"before", "during B's surge", "after"};
      SurgePhase[] phases = {run.before(), run.during(), run.after()};
      for (int i = 0; i < phases.length; i++) {
        b.append(String.format(Locale.ROOT, row, "  " + which + ", A " + names[i], latency(phases[i].tenantAMs()),
            count(phases[i].tenantAItems()) + " items; in the queue " + latency(phases[i].tenantAQueuedMs())));
      }
      b.append(String.format(Locale.ROOT, row, "  " + which + ", B worked on",
          count(run.before().tenantBDelivered()) + " / " + count(run.during().tenantBDelivered()) + " / "
              + count(run.after().tenantBDelivered()), "before / during / after"));
      b.append(String.format(Locale.ROOT, row, "  " + which + ", B enqueued / refused",
          count(run.tenantBEnqueued()) + " / " + count(run.tenantBRefused()),
          "overflow " + count(run.overflowed()) + ", admitted " + count(run.admitted()) + ", sidelined "
              + count(run.sidelined())));
      b.append(String.format(Locale.ROOT, row, "  " + which + ", A enqueued / worked on",
          count(run.tenantAEnqueued()) + " / " + count(run.tenantADelivered()),
          run.tenantARefused() > 0 ? "refused " + count(run.tenantARefused()) : ""));
    }
  }

  private static String count(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String ratios(List<Double> rounds) {
    return rounds.stream().map(BenchReport::ratio).toList().toString();
  }

  private static String loads(List<Double> loads) {
    return loads.stream().map(l -> String.format(Locale.ROOT, "%.1f", l)).toList().toString();
  }

  private static String rate(double v, String unit) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f %s", v, unit);
  }

  private static String rounds(Figure f) {
    return rounds(f, "%,.0f");
  }

  private static String rounds(Figure f, String format) {
    return f.rounds().stream().map(v -> Double.isNaN(v) ? "-" : String.format(Locale.ROOT, format, v)).toList()
        .toString();
  }

  /** Each round's CPU per item, all threads / stream thread ("48/24"). */
  static String cpuRounds(Ordo ordo) {
    List<Double> all = ordo.cpuUsPerItem().rounds();
    List<Double> stream = ordo.streamThreadUsPerItem().rounds();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < Math.max(all.size(), stream.size()); i++) {
      out.add(trim(i < all.size() ? all.get(i) : Double.NaN) + "/" + trim(i < stream.size() ? stream.get(i) : Double.NaN));
    }
    return out.toString();
  }

  private static String latency(Latency l) {
    return String.format(Locale.ROOT, "p50 %s p99 %s max %s ms", trim(l.p50()), trim(l.p99()), trim(l.max()));
  }

  private static String latencyShort(Latency l) {
    return trim(l.p50()) + "/" + trim(l.p99()) + "/" + trim(l.max());
  }

  private static String trim(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    return v >= 10 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  /**
   * An end-to-end run's rows, each line begun with {@code indent}: items/s, CPU per item and latency at
   * half load, each with its rounds.
   */
  private static void e2eRows(StringBuilder b, String row, String indent, Ordo ordo, String which) {
    b.append(String.format(Locale.ROOT, row, indent + "Ordo e2e " + ordo.guarantee() + ", " + which,
        rate(ordo.itemsPerSec().median(), "items/s"), rounds(ordo.itemsPerSec())));
    b.append(String.format(Locale.ROOT, row, indent + "  CPU per item, all / stream thread",
        String.format(Locale.ROOT, "%.0f / %.0f µs", ordo.cpuUsPerItem().median(),
            ordo.streamThreadUsPerItem().median()), cpuRounds(ordo)));
    b.append(String.format(Locale.ROOT, row,
        String.format(Locale.ROOT, indent + "  latency at %,.0f items/s (half)", ordo.offeredPerSec().median()),
        latency(ordo.latencyMs()), ordo.roundLatencies().stream().map(BenchReport::latencyShort).toList()));
  }

  private static String ratio(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  // ---- JSON ----

  /**
   * The report as JSON. Stable keys for scripts: {@code ratios.ordoVsRawKafka},
   * {@code ratios.ordoVsShareGroups}, {@code ratios.backlogVsEmpty},
   * {@code ordo.exactlyOnce.itemsPerSec}, {@code ordo.exactlyOnce.latencyMs.p50} / {@code .p99}
   * (and {@code ordo.atLeastOnce...}); with the issue 13 scenarios,
   * {@code ratios.surgeP99DuringOverBeforeWithPolicies} (and {@code ...WithoutPolicies}),
   * {@code ratios.policyCostThroughput}, {@code surge.withPolicies.phases.during.tenantAMs.p99} and
   * {@code cost.withPolicies.itemsPerSec}; with the fairness scenario (issue 14),
   * {@code ratios.fairnessAliceP99BehindOverAlone}, {@code ratios.fairnessPingP99BehindOverAlone},
   * {@code ratios.fairnessWeightRatio},
   * {@code ratios.groupKeyCostThroughput}, {@code fairness.queue.aliceBehindMs.p99},
   * {@code fairness.queue.afterArrivalMax} and {@code fairness.cost.withGroupKeys.itemsPerSec}; with the
   * tenants scenario (issue 48), {@code ratios.tenantCostThroughput}, {@code ratios.tenantCostCpu} and
   * {@code tenants.on.cpuUsPerItem}; figures that were not measured are null.
   */
  public String toJson() {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("kind", RunInfo.BENCH_KIND); // what ordo bench report recognises it by
    ObjectNode r = root.putObject("ratios");
    num(r, "ordoVsRawKafka", ratios.ordoVsRawKafka());
    num(r, "ordoVsShareGroups", ratios.ordoVsShareGroups());
    num(r, "backlogVsEmpty", ratios.backlogVsEmpty());
    num(r, "atLeastOnceVsRawKafka", ratios.atLeastOnceVsRawKafka());
    num(r, "atLeastOnceVsShareGroups", ratios.atLeastOnceVsShareGroups());
    num(r, "surgeP99DuringOverBeforeWithoutPolicies",
        surge == null ? Double.NaN : surge.withoutPolicies().p99DuringOverBefore());
    num(r, "surgeP99DuringOverBeforeWithPolicies",
        surge == null ? Double.NaN : surge.withPolicies().p99DuringOverBefore());
    num(r, "policyCostThroughput", cost == null ? Double.NaN : cost.throughputWithOverWithout());
    num(r, "tenantCostThroughput", tenants == null ? Double.NaN : tenants.throughputOnOverOff());
    num(r, "tenantCostCpu", tenants == null ? Double.NaN : tenants.cpuOnOverOff());
    num(r, "fairnessAliceP99BehindOverAlone", fairness == null ? Double.NaN : fairness.queue().p99BehindOverAlone());
    num(r, "fairnessPingP99BehindOverAlone",
        fairness == null ? Double.NaN : fairness.queue().pingP99BehindOverAlone());
    num(r, "fairnessWeightRatio", fairness == null ? Double.NaN : fairness.weights().ratio());
    num(r, "groupKeyCostThroughput", fairness == null ? Double.NaN : fairness.cost().throughputWithOverWithout());
    num(r, "groupKeyCostThroughputSliced",
        fairness == null ? Double.NaN : fairness.cost().slices().throughputWithOverWithout());
    ObjectNode ordo = root.putObject("ordo");
    ordo(ordo.putObject("exactlyOnce"), exactlyOnce);
    ordo(ordo.putObject("atLeastOnce"), atLeastOnce);
    figure(root.putObject("rawKafka"), "recordsPerSec", rawKafka);
    figure(root.putObject("shareGroups"), "recordsPerSec", shareGroups);
    ObjectNode bl = root.putObject("backlog");
    if (backlog != null) {
      bl.put("backlogItems", backlog.backlogItems());
      figure(bl.putObject("empty"), "itemsPerSec", backlog.emptyItemsPerSec());
      figure(bl.putObject("standing"), "itemsPerSec", backlog.backlogItemsPerSec());
    }
    ObjectNode d = root.putObject("delays");
    if (delays != null) {
      d.put("tiers", delays.tiers());
      d.put("items", delays.items());
      d.put("maxDelayMs", delays.maxDelayMs());
      latency(d.putObject("latenessMs"), delays.latenessMs());
      ArrayNode rounds = d.putArray("rounds");
      delays.roundLateness().forEach(l -> latency(rounds.addObject(), l));
    }
    ObjectNode q = root.putObject("sqs");
    if (sqs != null) {
      q.put("workers", sqs.workers());
      figure(q.putObject("sendMessageBatch"), "itemsPerSec", sqs.sendPerSec());
      figure(q.putObject("receiveAndDeleteBatch"), "itemsPerSec", sqs.workPerSec());
      figure(q.putObject("httpDequeue10"), "itemsPerSec", sqs.http10PerSec());
      num(q, "workVsHttp10", sqs.workVsHttp10());
      num(q, "workVsHttp", sqs.workVsHttp());
      num(q, "sendVsHttp", sqs.sendVsHttp());
    }
    ObjectNode h = root.putObject("http");
    if (http != null) {
      h.put("workers", http.workers());
      h.put("dequeueCount", http.dequeueCount());
      h.put("widePartitions", http.widePartitions());
      figure(h.putObject("throughput"), "itemsPerSec", http.itemsPerSec());
      figure(h.putObject("wideThroughput"), "itemsPerSec", http.wideItemsPerSec());
      latency(h.putObject("dequeueMs"), http.dequeueMs());
      figure(h.putObject("offered"), "itemsPerSec", http.offeredPerSec());
      latency(h.putObject("ackMs"), http.ackMs());
      h.put("quietCalls", http.quietCalls());
      latency(h.putObject("quietEnqueueMs"), http.quietEnqueueMs());
      latency(h.putObject("quietDequeueMs"), http.quietDequeueMs());
      latency(h.putObject("quietAckMs"), http.quietAckMs());
      num(h, "vsLeaseConsumers", http.vsLeaseConsumers());
      num(h, "wideVsNarrow", http.wideVsNarrow());
      ObjectNode each = h.putObject("singleAcks");
      each.put("dequeueCount", http.singleAcks().dequeueCount());
      each.put("narrowPartitions", http.singleAcks().narrowPartitions());
      each.put("widePartitions", http.singleAcks().widePartitions());
      figure(each.putObject("narrow"), "itemsPerSec", http.singleAcks().narrowItemsPerSec());
      figure(each.putObject("wide"), "itemsPerSec", http.singleAcks().wideItemsPerSec());
      num(each, "wideVsNarrow", http.singleAcks().wideVsNarrow());
    }
    ObjectNode sg = root.putObject("surge");
    if (surge != null) {
      num(sg, "tenantARate", surge.tenantARate());
      sg.put("workers", surge.workers());
      num(sg, "serviceMs", surge.serviceMs());
      num(sg, "capacity", surge.capacity());
      sg.put("inFlight", surge.inFlight());
      num(sg, "tenantBRate", surge.tenantBRate());
      sg.put("calmSeconds", surge.calmSeconds());
      sg.put("surgeSeconds", surge.surgeSeconds());
      sg.put("tenantAPolicy", surge.tenantAPolicy());
      sg.put("tenantBPolicy", surge.tenantBPolicy());
      surgeRun(sg.putObject("withoutPolicies"), surge.withoutPolicies());
      surgeRun(sg.putObject("withPolicies"), surge.withPolicies());
    }
    ObjectNode co = root.putObject("cost");
    if (cost != null) {
      co.put("policy", cost.policy());
      ordo(co.putObject("withoutPolicies"), cost.withoutPolicies());
      ordo(co.putObject("withPolicies"), cost.withPolicies());
      num(co, "throughputWithOverWithout", cost.throughputWithOverWithout());
      num(co, "streamCpuWithOverWithout", cost.streamCpuWithOverWithout());
    }
    ObjectNode te = root.putObject("tenants");
    if (tenants != null) {
      te.put("policy", tenants.policy());
      te.put("groupKeys", tenants.groupKeys());
      ordo(te.putObject("off"), tenants.off());
      ordo(te.putObject("on"), tenants.on());
      num(te, "throughputOnOverOff", tenants.throughputOnOverOff());
      num(te, "cpuOnOverOff", tenants.cpuOnOverOff());
      num(te, "streamCpuOnOverOff", tenants.streamCpuOnOverOff());
    }
    ObjectNode fa = root.putObject("fairness");
    if (fairness != null) {
      fairQueue(fa.putObject("queue"), fairness.queue());
      fairWeights(fa.putObject("weights"), fairness.weights());
      ObjectNode fc = fa.putObject("cost");
      fc.put("groupKeys", fairness.cost().groupKeys());
      ordo(fc.putObject("withoutGroupKeys"), fairness.cost().withoutGroupKeys());
      ordo(fc.putObject("withGroupKeys"), fairness.cost().withGroupKeys());
      num(fc, "throughputWithOverWithout", fairness.cost().throughputWithOverWithout());
      num(fc, "streamCpuWithOverWithout", fairness.cost().streamCpuWithOverWithout());
      KeySlices k = fairness.cost().slices();
      ObjectNode ks = fc.putObject("slices");
      ks.put("pairsPerRound", k.pairsPerRound());
      num(ks, "throughputWithOverWithout", k.throughputWithOverWithout());
      ArrayNode pairs = ks.putArray("pairRatios");
      k.pairRatios().forEach(pairs::add);
      num(ks, "withPerSec", k.withPerSec());
      num(ks, "withoutPerSec", k.withoutPerSec());
      num(ks, "streamCpuWithOverWithout", k.streamCpuWithOverWithout());
    }
    ObjectNode opts = root.putObject("options");
    opts.put("size", options.size().name().toLowerCase(Locale.ROOT));
    opts.put("rounds", options.rounds());
    opts.put("items", options.items());
    opts.put("payloadBytes", options.payloadBytes());
    opts.put("partitions", options.partitions());
    opts.put("backlogItems", options.backlogItems());
    opts.put("consumers", options.consumers());
    opts.put("maxInFlight", options.maxInFlight());
    opts.put("workers", options.workers());
    opts.put("latencySeconds", options.latencySeconds());
    opts.put("surgeRate", options.surge().tenantARate());
    opts.put("surgeSeconds", options.surge().seconds());
    opts.put("surgeCalmSeconds", options.surge().calmSeconds());
    opts.put("surgeTenantBSharePercent", options.surge().tenantBSharePercent());
    opts.put("fairBacklog", options.fairness().backlog());
    opts.put("fairBaseline", options.fairness().baselineItems());
    opts.put("fairWeighted", options.fairness().weightedItems());
    opts.put("fairKeys", options.fairness().groupKeys());
    ArrayNode sc = opts.putArray("scenarios");
    options.scenarios().stream().sorted().forEach(s -> sc.add(s.name().toLowerCase(Locale.ROOT)));
    ObjectNode env = root.putObject("environment");
    env.put("startedAt", environment.startedAt());
    num(env, "seconds", environment.seconds());
    env.put("cores", environment.cores());
    env.put("java", environment.java());
    env.put("os", environment.os());
    ArrayNode loads = env.putArray("loadAverages");
    environment.loadAverages().forEach(loads::add);
    env.put("bootstrapServers", environment.bootstrapServers());
    env.put("brokers", environment.brokers());
    env.put("shareHeartbeatMs", environment.shareHeartbeatMs());
    env.put("shareMinHeartbeatMs", environment.shareMinHeartbeatMs());
    RunInfo.current().addTo(env); // build, command line, memory, CPU model
    ArrayNode n = root.putArray("notes");
    notes.forEach(n::add);
    try {
      return mapper.writeValueAsString(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
      throw new IllegalStateException("could not write the report as JSON", ex);
    }
  }

  private static void ordo(ObjectNode node, Ordo o) {
    if (o == null) {
      node.putNull("itemsPerSec");
      ObjectNode l = node.putObject("latencyMs");
      l.putNull("p50");
      l.putNull("p99");
      l.putNull("max");
      return;
    }
    node.put("guarantee", o.guarantee());
    num(node, "itemsPerSec", o.itemsPerSec().median());
    num(node, "offeredPerSec", o.offeredPerSec().median());
    num(node, "cpuUsPerItem", o.cpuUsPerItem().median());
    num(node, "streamThreadUsPerItem", o.streamThreadUsPerItem().median());
    num(node, "recordsPerItem", o.recordsPerItem().median());
    latency(node.putObject("latencyMs"), o.latencyMs());
    ArrayNode rounds = node.putArray("rounds");
    for (int i = 0; i < o.itemsPerSec().rounds().size(); i++) {
      ObjectNode round = rounds.addObject();
      num(round, "itemsPerSec", o.itemsPerSec().rounds().get(i));
      num(round, "offeredPerSec", o.offeredPerSec().rounds().get(i));
      roundNum(round, "cpuUsPerItem", o.cpuUsPerItem(), i);
      roundNum(round, "streamThreadUsPerItem", o.streamThreadUsPerItem(), i);
      roundNum(round, "recordsPerItem", o.recordsPerItem(), i);
      latency(round.putObject("latencyMs"), o.roundLatencies().get(i));
    }
  }

  private static void roundNum(ObjectNode node, String name, Figure f, int i) {
    num(node, name, f == null || i >= f.rounds().size() || f.rounds().get(i) == null ? Double.NaN : f.rounds().get(i));
  }

  private static void surgeRun(ObjectNode node, SurgeRun run) {
    ObjectNode phases = node.putObject("phases");
    String[] names = {"before", "during", "after"};
    SurgePhase[] each = {run.before(), run.during(), run.after()};
    for (int i = 0; i < each.length; i++) {
      ObjectNode p = phases.putObject(names[i]);
      latency(p.putObject("tenantAMs"), each[i].tenantAMs());
      latency(p.putObject("tenantAQueuedMs"), each[i].tenantAQueuedMs());
      num(p, "tenantAItems", each[i].tenantAItems());
      num(p, "tenantBDelivered", each[i].tenantBDelivered());
    }
    num(node, "p99DuringOverBefore", run.p99DuringOverBefore());
    ArrayNode rounds = node.putArray("rounds");
    run.roundRatios().forEach(v -> {
      if (v == null || v.isNaN() || v.isInfinite()) {
        rounds.addNull();
      } else {
        rounds.add(v);
      }
    });
    num(node, "tenantAEnqueued", run.tenantAEnqueued());
    num(node, "tenantARefused", run.tenantARefused());
    num(node, "tenantADelivered", run.tenantADelivered());
    num(node, "tenantBEnqueued", run.tenantBEnqueued());
    num(node, "tenantBRefused", run.tenantBRefused());
    num(node, "tenantBDelivered", run.tenantBDelivered());
    num(node, "overflowed", run.overflowed());
    num(node, "admitted", run.admitted());
    num(node, "sidelined", run.sidelined());
  }

  private static void fairQueue(ObjectNode node, FairQueue q) {
    node.put("bobKey", q.bobKey());
    node.put("aliceKey", q.aliceKey());
    node.put("partition", q.partition());
    node.put("backlogItems", q.backlogItems());
    node.put("aliceIntervalMs", q.aliceIntervalMs());
    node.put("activeGroups", q.activeGroups());
    latency(node.putObject("aliceAloneMs"), q.aliceAloneMs());
    latency(node.putObject("aliceAloneIntakeMs"), q.aliceAloneIntakeMs());
    latency(node.putObject("aliceAloneAckedMs"), q.aliceAloneAckedMs());
    num(node, "aliceAloneItems", q.aliceAloneItems());
    latency(node.putObject("aliceBehindMs"), q.aliceBehindMs());
    latency(node.putObject("aliceBehindIntakeMs"), q.aliceBehindIntakeMs());
    latency(node.putObject("aliceBehindAckedMs"), q.aliceBehindAckedMs());
    num(node, "aliceBehindItems", q.aliceBehindItems());
    num(node, "p99BehindOverAlone", q.p99BehindOverAlone());
    values(node.putArray("rounds"), q.roundRatios());
    num(node, "afterArrivalP50", q.afterArrivalP50());
    num(node, "afterArrivalP99", q.afterArrivalP99());
    num(node, "afterArrivalMax", q.afterArrivalMax());
    values(node.putArray("roundAfterArrivalMax"), q.roundAfterArrivalMax());
    num(node, "afterArrivalAtLeastMax", q.afterArrivalAtLeastMax());
    num(node, "sinceEnqueueP99", q.sinceEnqueueP99());
    num(node, "sinceEnqueueMax", q.sinceEnqueueMax());
    num(node, "aliceEnqueued", q.aliceEnqueued());
    num(node, "aliceDelivered", q.aliceDelivered());
    num(node, "bobEnqueued", q.bobEnqueued());
    num(node, "bobDelivered", q.bobDelivered());
    num(node, "bobItemsPerSec", q.bobItemsPerSec());
    num(node, "dispatchesRead", q.dispatchesRead());
    num(node, "dispatchesCounted", q.dispatchesCounted());
    latency(node.putObject("pingAloneMs"), q.pingAloneMs());
    latency(node.putObject("pingBehindMs"), q.pingBehindMs());
    num(node, "pingAloneRecords", q.pingAloneRecords());
    num(node, "pingBehindRecords", q.pingBehindRecords());
    num(node, "pingP99BehindOverAlone", q.pingP99BehindOverAlone());
    values(node.putArray("pingRounds"), q.pingRoundRatios());
  }

  private static void fairWeights(ObjectNode node, FairWeights w) {
    node.put("heavyKey", w.heavyKey());
    node.put("lightKey", w.lightKey());
    num(node, "heavyWeight", w.heavyWeight());
    num(node, "lightWeight", w.lightWeight());
    node.put("itemsPerGroup", w.itemsPerGroup());
    num(node, "heavyServed", w.heavyServed());
    num(node, "lightServed", w.lightServed());
    num(node, "ratio", w.ratio());
    values(node.putArray("rounds"), w.roundRatios());
    num(node, "deviation", w.deviation());
    num(node, "heavyDelivered", w.heavyDelivered());
    num(node, "lightDelivered", w.lightDelivered());
  }

  private static void values(ArrayNode array, List<Double> values) {
    values.forEach(v -> {
      if (v == null || v.isNaN() || v.isInfinite()) {
        array.addNull();
      } else {
        array.add(Math.round(v * 1000) / 1000.0);
      }
    });
  }

  private static void figure(ObjectNode node, String name, Figure f) {
    if (f == null) {
      node.putNull(name);
      return;
    }
    num(node, name, f.median());
    ArrayNode rounds = node.putArray("rounds");
    f.rounds().forEach(v -> {
      if (v == null || v.isNaN()) {
        rounds.addNull();
      } else {
        rounds.add(v);
      }
    });
  }

  private static void latency(ObjectNode node, Latency l) {
    num(node, "p50", l.p50());
    num(node, "p99", l.p99());
    num(node, "max", l.max());
  }

  private static void num(ObjectNode node, String name, double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      node.putNull(name);
    } else {
      node.put(name, Math.round(v * 1000) / 1000.0);
    }
  }
}
