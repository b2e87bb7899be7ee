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
    service = new QueueService(streams, queue, ctx.partitions(), ctx.meters());
    service.start();
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
