package dev.ordo.server.components;

import dev.ordo.api.Durations;
import dev.ordo.delay.DelayTiers;
import dev.ordo.delay.ForwarderStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import dev.ordo.delay.DelayTiersConfig;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The delay-tier forwarders of this instance: one consumer group per tier, shared by every
 * {@code ordo server} of the cluster. They carry the queue's parked items and any record
 * scheduled with {@code DelayClient}.
 */
public final class DelayTiersComponent implements ServerComponent {
  private DelayTiers tiers;

  @Override
  public String name() {
    return "delay-tiers";
  }

  @Override
  public void start(ServerContext ctx) throws IOException {
    Map<String, Object> config = new HashMap<>(ctx.kafkaClientConfig());
    config.putAll(ctx.settings().ordo(DelayTiersConfig.configDef()));
    config.put(DelayTiersConfig.CLUSTER_CONFIG, ctx.topics().cluster());
    config.put(DelayTiersConfig.TIERS_CONFIG,
        ctx.delayTiers().stream().map(Durations::format).collect(Collectors.joining(",")));
    config.put(DelayTiersConfig.INSTANCE_ID_CONFIG, instanceId(ctx.stateDir()));
    tiers = new DelayTiers(config);
    registerMeters(tiers, ctx.delayTiers(), ctx.meters());
    tiers.start();
  }

  /**
   * Each tier's forwarding as meters (docs/operations.md): records moved on to the next tier, to
   * their target, to the dead letters, dropped; records held in memory near their due time; and how
   * late records reach their target (a histogram, and a counter of any that went early, which the
   * tiers promise never happens). The counts are the current forwarder's and restart with it, as
   * counters do when a process restarts.
   */
  static void registerMeters(DelayTiers tiers, java.util.List<Duration> tierList, MeterRegistry registry) {
    Map<Duration, Timer> late = new HashMap<>();
    Map<Duration, Counter> early = new HashMap<>();
    for (Duration tier : tierList) {
      String t = Durations.format(tier);
      Map<String, ToLongFunction<ForwarderStats>> kinds = Map.of("tier", ForwarderStats::toTier, "target",
          ForwarderStats::toTarget, "dlq", ForwarderStats::deadLettered, "dropped", ForwarderStats::dropped);
      kinds.forEach((to, count) -> FunctionCounter.builder("ordo.delay.records", tiers,
              x -> count.applyAsLong(x.stats().getOrDefault(tier, new ForwarderStats(0, 0, 0, 0, 0, 0))))
          .description("Records a delay tier's forwarder sent on, by where: the next tier, the target, the dead letters, dropped")
          .tags("tier", t, "to", to)
          .register(registry));
      Gauge.builder("ordo.delay.held", tiers, x -> x.held().getOrDefault(tier, 0))
          .description("Records a tier's forwarder holds in memory until their due time (less than the shortest tier to go)")
          .tag("tier", t)
          .register(registry);
      late.put(tier, Timer.builder("ordo.delay.lateness")
          .description("How late records reach their target topic, past their due time")
          .tag("tier", t)
          .publishPercentileHistogram()
          .minimumExpectedValue(Duration.ofMillis(1))
          .maximumExpectedValue(Duration.ofMinutes(10))
          .register(registry));
      early.put(tier, Counter.builder("ordo.delay.early")
          .description("Records that reached their target before their due time (never, by the tiers' design)")
          .tag("tier", t)
          .register(registry));
    }
    tiers.observeLateness((tier, ms) -> {
      Counter e = early.get(tier);
      Timer l = late.get(tier);
      if (e == null || l == null) {
        return; // a tier this component did not register: nothing to record it in
      }
      if (ms < 0) {
        e.increment();
      } else {
        l.record(ms, TimeUnit.MILLISECONDS);
      }
    });
  }

  /**
   * A stable id per state directory: a restarted instance reuses its transactional ids and so
   * aborts its crashed predecessor's open transactions at once instead of after their timeout.
   */
  static String instanceId(Path stateDir) throws IOException {
    Path file = stateDir.resolve("instance-id");
    if (Files.exists(file)) {
      return Files.readString(file, StandardCharsets.UTF_8).trim();
    }
    String id = "ordo-" + UUID.randomUUID().toString().substring(0, 8);
    Files.writeString(file, id + "\n", StandardCharsets.UTF_8);
    return id;
  }

  @Override
  public String status() {
    if (tiers == null) {
      return "STARTING";
    }
    return tiers.isRunning() ? "UP" : "DOWN";
  }

  @Override
  public void close() {
    if (tiers != null) {
      tiers.close();
    }
  }
}
