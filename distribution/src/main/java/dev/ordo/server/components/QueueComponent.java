package dev.ordo.server.components;

import dev.ordo.api.Durations;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerContext;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueService;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The queue topology (Kafka Streams) of this instance. Every {@code ordo server} of a cluster
 * runs one; Kafka's group protocol shares the partitions among them.
 */
public final class QueueComponent implements ServerComponent {
  private QueueService service;

  @Override
  public String name() {
    return "queue";
  }

  @Override
  public void start(ServerContext ctx) {
    Map<String, Object> streams = new HashMap<>(ctx.kafkaClientConfig());
    streams.putAll(ctx.settings().streams());
    streams.put(StreamsConfig.STATE_DIR_CONFIG, ctx.stateDir().resolve("streams").toString());
    // Advertised to the other instances of the cluster, so that a query for a partition this
    // instance owns (GET /v1/items/{id}) can be forwarded here.
    streams.put(StreamsConfig.APPLICATION_SERVER_CONFIG, applicationServer(ctx.httpAddress()));
    Map<String, Object> queue = new HashMap<>(ctx.settings().ordo(QueueConfig.CONFIG));
    queue.put(QueueConfig.CLUSTER_CONFIG, ctx.topics().cluster());
    queue.put(QueueConfig.DELAY_TIERS_CONFIG,
        ctx.delayTiers().stream().map(Durations::format).collect(Collectors.joining(",")));
    checkRetention(ctx, new QueueConfig(queue).getLong(QueueConfig.COLD_AFTER_MS_CONFIG));
    service = new QueueService(streams, queue, ctx.partitions(), ctx.meters());
    service.start();
  }

  /**
   * Refuses to start when the items topic's retention could delete the record of an item that is not
   * cold yet (decisions D54): {@link QueueConfig#COLD_AFTER_MS_CONFIG} must be under half of it.
   */
  static void checkRetention(ServerContext ctx, long coldAfterMs) {
    String items = ctx.topics().items();
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(ctx.kafkaClientConfig())) {
      org.apache.kafka.common.config.ConfigResource r =
          new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC, items);
      org.apache.kafka.clients.admin.ConfigEntry e = admin.describeConfigs(java.util.List.of(r)).all()
          .get(30, java.util.concurrent.TimeUnit.SECONDS).get(r).get("retention.ms");
      long retention = e == null || e.value() == null ? -1 : Long.parseLong(e.value());
      String problem = retentionProblem(items, retention, coldAfterMs);
      if (problem != null) {
        throw new dev.ordo.server.StartupException(problem);
      }
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new dev.ordo.server.StartupException("could not read the retention of " + items + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new dev.ordo.server.StartupException("interrupted while reading the retention of " + items, e);
    }
  }

  /** Why {@code retentionMs} of the items topic is too short for {@code coldAfterMs}, or null when it is not. */
  static String retentionProblem(String items, long retentionMs, long coldAfterMs) {
    if (retentionMs < 0 || coldAfterMs <= retentionMs / 2) {
      return null;
    }
    return items + " keeps records " + retentionMs + " ms (retention.ms), but " + QueueConfig.COLD_AFTER_MS_CONFIG + "="
        + coldAfterMs + " keeps an item's state apart from its record that long: set it under half the retention,"
        + " or raise the topic's retention.ms";
  }

  /** {@code host:port} of an HTTP address, as Kafka Streams' {@code application.server} wants it. */
  public static String applicationServer(java.net.URI httpAddress) {
    return httpAddress.getHost() + ":" + httpAddress.getPort();
  }

  /** The running service, for other components (HTTP queries, metrics); null before start. */
  public QueueService service() {
    return service;
  }

  @Override
  public String status() {
    if (service == null) {
      return "STARTING";
    }
    KafkaStreams.State state = service.streams().state();
    return switch (state) {
      case RUNNING -> "UP";
      case CREATED, REBALANCING -> "STARTING";
      default -> "DOWN (" + state + ")";
    };
  }

  @Override
  public void close() {
    if (service != null) {
      service.close();
    }
  }
}
