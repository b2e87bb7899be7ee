package dev.ordo.server.components;

import dev.ordo.api.Durations;
import dev.ordo.delay.DelayTiers;
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
    tiers.start();
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
