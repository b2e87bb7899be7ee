package dev.ordo.server.components;

import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerContext;
import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.PrincipalStore;
import dev.ordo.server.auth.SecurityConfig;
import dev.ordo.server.sqs.SigV4;
import dev.ordo.server.sqs.SqsActions;
import dev.ordo.server.sqs.SqsConfig;
import dev.ordo.server.sqs.SqsHttpServer;
import dev.ordo.server.sqs.SqsQueues;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQS-compatible endpoint (docs/sqs.md) on its own port ({@code ordo.sqs.port}, {@code --sqs-port}):
 * its queues on {@code <cluster>.sqs.queues}, messages through a producer and a queue client of its own.
 * With {@code ordo.http.auth} token or mtls, every request must be signed with AWS Signature Version 4
 * by an SQS credential of a principal, whose grants then apply; with none, any signature (or none) is
 * accepted. Off when the port is 0.
 */
public final class SqsComponent implements ServerComponent {
  private static final Logger LOG = LoggerFactory.getLogger(SqsComponent.class);

  private SqsQueues queues;
  private QueueProducer producer;
  private QueueClient client;
  private dev.ordo.client.dlq.DeadLetters deadLetters;
  private dev.ordo.client.purge.TopicPurges purges;
  private SqsHttpServer server;
  private SqsActions actions;

  @Override
  public String name() {
    return "sqs";
  }

  @Override
  public void start(ServerContext ctx) {
    SqsConfig config = new SqsConfig(ctx.settings().ordo(SqsConfig.CONFIG));
    if (config.port() == 0) {
      LOG.info("No SQS endpoint ({} is 0)", SqsConfig.PORT_CONFIG);
      return;
    }
    queues = new SqsQueues(ctx.kafkaClientConfig(), ctx.topics().sqsQueues());
    queues.start();

    Map<String, Object> producerConfig = new HashMap<>(ctx.kafkaClientConfig());
    producerConfig.putAll(ctx.settings().ordo(QueueProducerConfig.configDef()));
    producerConfig.put(QueueProducerConfig.CLUSTER_CONFIG, ctx.topics().cluster());
    producer = new QueueProducer(producerConfig);

    URI http = ctx.httpAddress();
    Map<String, Object> clientConfig = new HashMap<>(ctx.kafkaClientConfig());
    clientConfig.putAll(ctx.settings().ordo(QueueClientConfig.configDef()));
    clientConfig.put(QueueClientConfig.CLUSTER_CONFIG, ctx.topics().cluster());
    clientConfig.put(QueueClientConfig.CLIENT_ID_CONFIG,
        ("ordo-sqs-" + http.getHost() + "-" + http.getPort()).replaceAll("[^A-Za-z0-9._-]", "-"));
    client = new QueueClient(clientConfig);

    // Message move tasks are redrive jobs of Ordo's dead letters (run by DlqJobsComponent).
    Map<String, Object> dlqConfig = ctx.kafkaClientConfig();
    dlqConfig.putAll(ctx.settings().ordo(QueueClientConfig.configDef()));
    deadLetters = new dev.ordo.client.dlq.DeadLetters(dlqConfig, ctx.topics().cluster());

    // PurgeQueue is a purge job of the queue's topic, run by the queue's partitions.
    purges = new dev.ordo.client.purge.TopicPurges(ctx.kafkaClientConfig(), ctx.topics().cluster());
    actions = new SqsActions(queues, producer, client, deadLetters, purges, config, Clock.systemUTC());
    dev.ordo.server.auth.AuditLog audit = ctx.audit();
    SqsHttpServer.Auditor auditor = audit == null ? SqsHttpServer.Auditor.NONE
        : (principal, action, request, status, outcome) -> audit.record(Clock.systemUTC().instant(), principal, "POST",
            "sqs:" + action, request, status, outcome);
    server = SqsHttpServer.start(ctx.httpHost(), config.port() < 0 ? 0 : config.port(), ctx.httpTls(), actions,
        authenticator(ctx.authMode(), ctx.principals()), auditor);
    io.micrometer.core.instrument.MeterRegistry meters = ctx.meters();
    server.observe((action, status, nanos) -> io.micrometer.core.instrument.Timer.builder("ordo.sqs.requests")
        .description("SQS requests answered, by action and HTTP status")
        .tags("action", action == null ? "none" : SqsActions.supported(action) ? action : "unsupported",
            "status", Integer.toString(status))
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(30))
        .register(meters)
        .record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS));
    LOG.info("SQS endpoint at {} (queues without a namespace go to '{}')", server.address(), config.namespace());
  }

  /** Anyone when authentication is off; else the principal whose SQS credential signed the request. */
  static SqsHttpServer.Authenticator authenticator(SecurityConfig.Mode mode, PrincipalStore principals) {
    if (mode == SecurityConfig.Mode.NONE || principals == null) {
      return request -> Caller.ANONYMOUS;
    }
    return request -> {
      String key = SigV4.verify(request, "sqs", id -> principals.sqsSecret(id), Clock.systemUTC().instant());
      return principals.bySqsKey(key).map(p -> p.caller()).orElseThrow(() ->
          dev.ordo.server.sqs.SqsError.INVALID_CLIENT_TOKEN_ID.with("no principal holds access key id " + key));
    };
  }

  /** The endpoint's address, once started with a port. */
  public Optional<URI> address() {
    return Optional.ofNullable(server).map(SqsHttpServer::address);
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
    if (actions != null) {
      actions.close(); // gives back what the receive prefetch holds, through the client closed below
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
    if (queues != null) {
      queues.close();
    }
  }
}
