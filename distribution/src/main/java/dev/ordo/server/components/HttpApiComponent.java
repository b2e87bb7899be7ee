package dev.ordo.server.components;

import dev.ordo.client.NamespaceAdmin;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerContext;
import dev.ordo.client.dlq.DeadLetters;
import dev.ordo.server.http.ClusterApi;
import dev.ordo.server.http.DlqApi;
import dev.ordo.server.http.ItemLookup;
import dev.ordo.server.http.PeekApi;
import dev.ordo.server.http.internal.Instances;
import dev.ordo.server.http.NamespaceApi;
import dev.ordo.server.http.QueueApi;
import dev.ordo.server.http.ScheduleApi;
import dev.ordo.server.http.internal.KnownTopics;
import dev.ordo.api.Durations;
import dev.ordo.delay.DelayClient;
import dev.ordo.delay.DelayTiersConfig;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import dev.ordo.topology.QueueService;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The queue's HTTP API ({@code /v1/...}, see docs/http-api.md) on the server's HTTP port: one
 * {@link QueueProducer} and one {@link QueueClient} per server for enqueue, dequeue, commands and
 * topic counts (Kafka only, so any instance answers), and item look-ups in the queue's stores
 * (interactive queries, forwarded to the owning instance). Starts after the queue component.
 */
public final class HttpApiComponent implements ServerComponent {
  private final Supplier<QueueService> queue;
  private QueueProducer producer;
  private QueueClient client;
  private DelayClient delays;
  private Admin admin;
  private NamespaceAdmin namespaces;
  private DeadLetters deadLetters;
  private dev.ordo.server.http.internal.PauseTable pauses;
  private dev.ordo.client.purge.TopicPurges purges;

  /** @param queue the queue this server runs (its stores answer item look-ups); null until started */
  public HttpApiComponent(Supplier<QueueService> queue) {
    this.queue = queue;
  }

  @Override
  public String name() {
    return "http-api";
  }

  @Override
  public void start(ServerContext ctx) {
    URI address = ctx.httpAddress();
    Map<String, Object> producerConfig = new HashMap<>(ctx.kafkaClientConfig());
    producerConfig.putAll(ctx.settings().ordo(QueueProducerConfig.configDef()));
    producerConfig.put(QueueProducerConfig.CLUSTER_CONFIG, ctx.topics().cluster());
    producer = new QueueProducer(producerConfig);
    producer.bindMetrics(ctx.meters());

    Map<String, Object> clientConfig = new HashMap<>(ctx.kafkaClientConfig());
    clientConfig.putAll(ctx.settings().ordo(QueueClientConfig.configDef()));
    clientConfig.put(QueueClientConfig.CLUSTER_CONFIG, ctx.topics().cluster());
    // Named after the instance: its hash picks the reply partition, so instances spread over them.
    clientConfig.put(QueueClientConfig.CLIENT_ID_CONFIG,
        ("ordo-http-" + address.getHost() + "-" + address.getPort()).replaceAll("[^A-Za-z0-9._-]", "-"));
    client = new QueueClient(clientConfig);
    client.bindMetrics(ctx.meters());

    Instances instances = new Instances(new HostInfo(address.getHost(), address.getPort()), ctx.httpTls());
    Supplier<KafkaStreams> streams = () -> {
      QueueService service = queue.get();
      return service == null ? null : service.streams();
    };
    // What is paused, followed from C.namespaces: the listings' paused fields and the paused gauges.
    pauses = new dev.ordo.server.http.internal.PauseTable(ctx.kafkaClientConfig(), ctx.topics().namespaces(),
        ctx.meters());
    pauses.start();
    // Spare capacity of the workers that dequeue over HTTP: empty dequeues and busy ratio (decisions D58).
    long busyWindowMs = new QueueClientConfig(clientConfig).busyWindow().toMillis();
    var consumers = new dev.ordo.server.http.internal.HttpConsumerMeters(busyWindowMs, ctx.meters(),
        org.apache.kafka.common.utils.Time.SYSTEM);
    new QueueApi(producer, client, new ItemLookup(streams, instances, ctx.partitions()), pauses::of, consumers)
        .register(ctx.http());
    new PeekApi(streams, instances, ctx.partitions()).register(ctx.http());
    new ClusterApi(streams, instances.self(), ctx.topics().cluster(), ctx.partitions()).register(ctx.http());

    // POST /v1/schedule: writes at once what a tier can carry (durable when answered), holds only
    // what is shorter than the shortest tier, and answers once that is written.
    Map<String, Object> delayConfig = new HashMap<>(ctx.kafkaClientConfig());
    delayConfig.putAll(ctx.settings().ordo(DelayTiersConfig.configDef()));
    delayConfig.put(DelayTiersConfig.CLUSTER_CONFIG, ctx.topics().cluster());
    delayConfig.put(DelayTiersConfig.TIERS_CONFIG,
        ctx.delayTiers().stream().map(Durations::format).collect(Collectors.joining(",")));
    delayConfig.put(DelayTiersConfig.CLIENT_HOLD_RESIDUAL_CONFIG, false);
    delays = DelayClient.create(delayConfig);
    admin = Admin.create(ctx.kafkaClientConfig());
    new ScheduleApi(delays, new KnownTopics(admin, Duration.ofSeconds(1)), ctx.delayTiers().get(0))
        .register(ctx.http());

    // GET/PUT/DELETE /v1/namespaces/{ns}/policy: records on the compacted C.namespaces topic.
    namespaces = new NamespaceAdmin(ctx.kafkaClientConfig(), ctx.topics().cluster());
    new NamespaceApi(namespaces).register(ctx.http());
    new dev.ordo.server.http.PauseApi(namespaces, client, pauses, admin).register(ctx.http());
    // Topic purges: jobs the queue's partitions run themselves, followed on C.purges.
    purges = new dev.ordo.client.purge.TopicPurges(ctx.kafkaClientConfig(), ctx.topics().cluster());
    new dev.ordo.server.http.TopicPurgeApi(purges, client).register(ctx.http());

    // /v1/dlq...: dead letters read from C.dlq, jobs written to C.dlq.state (run by DlqJobsComponent).
    Map<String, Object> dlqConfig = ctx.kafkaClientConfig();
    dlqConfig.putAll(ctx.settings().ordo(dev.ordo.client.QueueClientConfig.configDef()));
    deadLetters = new DeadLetters(dlqConfig, ctx.topics().cluster());
    new DlqApi(deadLetters).register(ctx.http());
  }

  @Override
  public void close() {
    if (delays != null) {
      delays.close(Duration.ofSeconds(5));
    }
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    if (namespaces != null) {
      namespaces.close();
    }
    if (pauses != null) {
      pauses.close();
    }
    if (purges != null) {
      purges.close();
    }
    if (deadLetters != null) {
      deadLetters.close();
    }
    if (client != null) {
      client.close(Duration.ofSeconds(5));
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
