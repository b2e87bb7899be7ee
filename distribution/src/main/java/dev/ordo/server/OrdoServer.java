package dev.ordo.server;

import dev.ordo.api.ClusterTopics;
import dev.ordo.server.auth.AuditLog;
import dev.ordo.server.auth.AuthApi;
import dev.ordo.server.auth.HttpGuard;
import dev.ordo.server.auth.PrincipalStore;
import dev.ordo.server.auth.SecurityConfig;
import dev.ordo.server.auth.TlsContexts;
import dev.ordo.server.internal.EmbeddedKafka;
import dev.ordo.server.internal.KafkaReachability;
import dev.ordo.server.internal.Messages;
import dev.ordo.server.internal.RoutingHttpServer;
import dev.ordo.server.internal.ServerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import dev.ordo.server.internal.StateDir;
import dev.ordo.server.internal.TopicProvisioner;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Ordo server: the state directory, the HTTP server, Kafka (embedded or external), the
 * cluster's topics, then the {@link ServerComponent}s in order.
 *
 * <pre>{@code
 * try (OrdoServer server = new OrdoServer(config, Components.standard())) {
 *   server.start();                 // StartupException: one-line reason
 *   server.bootstrapServers(); server.httpAddress();
 *   server.awaitClosed();
 * }
 * }</pre>
 */
public final class OrdoServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OrdoServer.class);
  private static final Duration KAFKA_CONNECT_TIMEOUT = Duration.ofSeconds(30);
  /** How often the server asks whether Kafka answers, and how long it waits for the answer (D26). */
  static final Duration KAFKA_PROBE_INTERVAL = Duration.ofSeconds(1);
  static final Duration KAFKA_PROBE_TIMEOUT = Duration.ofSeconds(3);

  private enum State { NEW, STARTING, RUNNING, STOPPING, CLOSED }

  private final ServerConfig config;
  private final List<ServerComponent> components;
  private final List<ServerComponent> started = new ArrayList<>();
  private final CountDownLatch closedLatch = new CountDownLatch(1);

  private final Object lock = new Object();
  private volatile State state = State.NEW;
  private volatile boolean closeRequested;
  private Thread startingThread;
  private boolean interruptible;
  private StateDir stateDir;
  private volatile RoutingHttpServer http;
  private HttpGuard guard;
  private javax.net.ssl.SSLContext tls;
  private PrincipalStore principals;
  private SecurityConfig.Mode authMode = SecurityConfig.Mode.NONE;
  private AuditLog audit;
  /** Every component's meters, served at GET /metrics. */
  private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  /** Whether Kafka answers: the HTTP API's 503s and /health (decisions D26); null until Kafka was reached. */
  private volatile KafkaReachability kafkaProbe;
  private EmbeddedKafka embedded;
  private String bootstrapServers;
  private ClusterLayout layout;
  private List<String> createdTopics = List.of();
  private Duration startDuration;

  public OrdoServer(ServerConfig config, List<ServerComponent> components) {
    this.config = config;
    this.components = List.copyOf(components);
  }

  /**
   * Starts everything, or fails with a {@link StartupException} whose message is one line for the
   * user, having released whatever it had started.
   */
  public void start() {
    synchronized (lock) {
      if (state != State.NEW) {
        throw new IllegalStateException("server was already started");
      }
      state = State.STARTING;
      startingThread = Thread.currentThread();
    }
    long t0 = System.nanoTime();
    try {
      stateDir = StateDir.open(config.stateDir());
      SecurityConfig security = security();
      try {
        tls = security.tls() ? TlsContexts.server(security) : null;
      } catch (IllegalArgumentException e) {
        throw new StartupException(e.getMessage(), e);
      }
      http = RoutingHttpServer.start(config.httpHost(), config.httpPort(), HttpServerConfig.limits(config.settings()),
          tls, security.mode() == SecurityConfig.Mode.MTLS);
      authMode = security.mode();
      guard = new HttpGuard(security, java.time.Clock.systemUTC());
      http.guard(guard);
      http.starting(true);
      http.get("/health", request -> health());
      ServerMetrics.register(meters, http);
      checkNotClosing();
      if (config.embeddedKafka()) {
        embedded = EmbeddedKafka.start(stateDir.path().resolve("kafka"), config.kafkaPort());
        bootstrapServers = embedded.bootstrapServers();
      } else {
        bootstrapServers = config.bootstrapServers().orElseThrow();
      }
      checkNotClosing();
      ClusterLayout base = new ClusterLayout(config.topics(),
          config.partitions().orElse(ServerConfig.DEFAULT_PARTITIONS), config.delayTiers());
      // Only waits on Kafka clients may be interrupted by close(): an interrupt inside the broker's
      // own start-up closes its file channels (ClosedByInterruptException) and halts the JVM.
      setInterruptible(true);
      try (Admin admin = Admin.create(adminProperties())) {
        awaitKafka(admin);
        TopicProvisioner.Result result = new TopicProvisioner(admin).ensure(base, config.partitions());
        layout = result.layout();
        createdTopics = result.created();
      } finally {
        setInterruptible(false);
      }
      principals = new PrincipalStore(kafkaClientConfig(), layout.topics().principals());
      principals.start();
      audit = new AuditLog(kafkaClientConfig(), layout.topics().audit());
      guard.ready(principals, audit);
      new AuthApi(principals, audit, security.mode(), java.time.Clock.systemUTC()).register(http);
      kafkaProbe = new KafkaReachability(kafkaClientConfig(), KAFKA_PROBE_INTERVAL, KAFKA_PROBE_TIMEOUT).start();
      http.gate(path -> path.startsWith("/v1/") ? kafkaUnreachable() : null);
      ServerContext ctx = new Context();
      for (ServerComponent component : components) {
        checkNotClosing();
        LOG.info("Starting {}", component.name());
        started.add(component);
        try {
          component.start(ctx);
        } catch (StartupException e) {
          throw new StartupException(component.name() + ": " + e.getMessage(), e);
        } catch (Exception e) {
          throw new StartupException(component.name() + " failed to start: " + Messages.oneLine(e), e);
        }
      }
      synchronized (lock) {
        checkNotClosing();
        startDuration = Duration.ofNanos(System.nanoTime() - t0);
        state = State.RUNNING;
        startingThread = null;
      }
      http.starting(false);
      LOG.info("Ordo started in {} ms", startDuration.toMillis());
    } catch (RuntimeException e) {
      LOG.debug("Start failed", e);
      boolean interrupted = Thread.interrupted();
      stopAll();
      synchronized (lock) {
        state = State.CLOSED;
        startingThread = null;
      }
      closedLatch.countDown();
      if (interrupted && !closeRequested) {
        Thread.currentThread().interrupt();
      }
      if (closeRequested) {
        throw new StartupException("stopped while starting", e);
      }
      if (e instanceof StartupException) {
        throw e;
      }
      throw new StartupException("unexpected error while starting: " + Messages.oneLine(e), e);
    }
  }

  /**
   * The HTTP port's security settings, checked: without authentication the server binds only a
   * loopback address unless told it may (--insecure-http), and says so in one line.
   */
  private SecurityConfig security() {
    SecurityConfig security;
    try {
      security = new SecurityConfig(config.settings().ordo(SecurityConfig.CONFIG));
      security.bootstrapToken(); // a missing file or a short token stops the start
    } catch (org.apache.kafka.common.config.ConfigException e) {
      throw new StartupException(Messages.oneLine(e));
    }
    boolean loopback = loopback(config.httpHost());
    String problem = security.problem(loopback);
    if (problem != null) {
      throw new StartupException(problem);
    }
    if (security.mode() == SecurityConfig.Mode.NONE) {
      if (loopback) {
        LOG.info("The HTTP API has no authentication (ordo.http.auth=none): it listens on {} only", config.httpHost());
      } else {
        LOG.warn("The HTTP API has no authentication and listens on {} (--insecure-http): anyone who reaches the port"
            + " may enqueue, drain, purge and re-police every namespace", config.httpHost());
      }
    } else {
      LOG.info("The HTTP API authenticates callers by {} ({}TLS)", security.mode().name().toLowerCase(java.util.Locale.ROOT),
          security.tls() ? "" : "no ");
    }
    return security;
  }

  static boolean loopback(String host) {
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  private void setInterruptible(boolean value) {
    synchronized (lock) {
      interruptible = value;
      if (!value && !closeRequested) {
        Thread.interrupted();
      }
    }
  }

  private void checkNotClosing() {
    if (closeRequested) {
      throw new StartupException("stopped while starting");
    }
  }

  private Properties adminProperties() {
    Properties props = new Properties();
    props.putAll(kafkaClientConfig());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) KAFKA_CONNECT_TIMEOUT.toMillis());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    return props;
  }

  /** The Kafka client settings of {@code --config}, and the bootstrap servers in use. */
  private Map<String, Object> kafkaClientConfig() {
    Map<String, Object> c = new HashMap<>(config.settings().kafkaClient());
    c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return c;
  }

  private void awaitKafka(Admin admin) {
    try {
      admin.describeCluster().nodes().get(KAFKA_CONNECT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new StartupException("cannot reach Kafka at " + bootstrapServers + " within "
          + KAFKA_CONNECT_TIMEOUT.toSeconds() + " s; check --bootstrap-servers"
          + (e instanceof ExecutionException && !(e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException)
              ? " (" + Messages.oneLine(e) + ")" : ""));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while connecting to Kafka at " + bootstrapServers);
    }
  }

  /** 503 with Retry-After while the last probe of Kafka failed; else null (the request goes on). */
  private HttpResponse kafkaUnreachable() {
    KafkaReachability probe = kafkaProbe;
    if (probe == null || probe.reachable()) {
      return null;
    }
    return HttpResponse.error(503, "Kafka is unreachable: " + probe.describe() + "; retry")
        .withHeader("Retry-After", "1");
  }

  private HttpResponse health() {
    Map<String, Object> body = new LinkedHashMap<>();
    State s = state;
    Map<String, String> componentStatus = new LinkedHashMap<>();
    boolean up = s == State.RUNNING;
    for (ServerComponent c : s == State.RUNNING ? components : List.<ServerComponent>of()) {
      String status;
      try {
        status = c.status();
      } catch (RuntimeException e) {
        status = "DOWN";
      }
      componentStatus.put(c.name(), status);
      up &= "UP".equals(status);
    }
    KafkaReachability probe = kafkaProbe;
    boolean kafkaUp = probe == null || probe.reachable();
    up &= kafkaUp;
    body.put("status", up ? "UP" : s == State.RUNNING ? "DEGRADED" : s.name());
    body.put("cluster", config.topics().cluster());
    body.put("kafka", bootstrapServers);
    body.put("embeddedKafka", config.embeddedKafka());
    if (!kafkaUp) {
      body.put("kafkaUnreachable", probe.describe());
    }
    if (layout != null) {
      body.put("partitions", layout.partitions());
    }
    body.put("components", componentStatus);
    return HttpResponse.json(up ? 200 : 503, body);
  }

  /** True once the server is closed, or its start failed. */
  public boolean isClosed() {
    return state == State.CLOSED;
  }

  /** Blocks until {@link #close()} has finished (or a start failed). */
  public void awaitClosed() throws InterruptedException {
    closedLatch.await();
  }

  public boolean awaitClosed(Duration timeout) throws InterruptedException {
    return closedLatch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Stops the components in reverse order, then HTTP, then the embedded broker. Idempotent and
   * thread-safe. During {@link #start()} it makes the start give up at its next step (at once if
   * it is waiting for an external Kafka), which then releases what it had started. Returns once
   * the server is closed.
   */
  @Override
  public void close() {
    boolean stopHere = false;
    synchronized (lock) {
      switch (state) {
        case NEW -> {
          state = State.CLOSED;
          closedLatch.countDown();
          return;
        }
        case STARTING -> {
          closeRequested = true;
          if (interruptible && startingThread != null) {
            startingThread.interrupt();
          }
        }
        case RUNNING -> {
          state = State.STOPPING;
          stopHere = true;
        }
        default -> {
          // STOPPING or CLOSED: wait below for whoever is stopping it
        }
      }
    }
    if (stopHere) {
      long t0 = System.nanoTime();
      stopAll();
      synchronized (lock) {
        state = State.CLOSED;
      }
      closedLatch.countDown();
      LOG.info("Ordo stopped in {} ms", Duration.ofNanos(System.nanoTime() - t0).toMillis());
      return;
    }
    boolean interrupted = false;
    while (true) {
      try {
        closedLatch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void stopAll() {
    for (int i = started.size() - 1; i >= 0; i--) {
      ServerComponent c = started.get(i);
      try {
        LOG.info("Stopping {}", c.name());
        c.close();
      } catch (RuntimeException e) {
        LOG.warn("{} did not close cleanly: {}", c.name(), e.toString());
      }
    }
    started.clear();
    if (kafkaProbe != null) {
      kafkaProbe.close();
    }
    if (principals != null) {
      principals.close();
    }
    if (audit != null) {
      audit.close();
    }
    if (http != null) {
      http.close();
    }
    if (embedded != null) {
      embedded.close();
    }
    if (stateDir != null) {
      stateDir.close();
    }
  }

  public ServerConfig config() {
    return config;
  }

  /** The Kafka address in use: the embedded broker's, or {@code --bootstrap-servers}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  public boolean embeddedKafka() {
    return embedded != null;
  }

  /** The embedded broker's data directory, if one runs. */
  public Optional<Path> kafkaDataDir() {
    return Optional.ofNullable(embedded).map(EmbeddedKafka::dataDir);
  }

  /** The HTTP address; bound early in {@link #start()}, before Kafka. */
  public URI httpAddress() {
    RoutingHttpServer h = http;
    if (h == null) {
      throw new IllegalStateException("the HTTP server is not bound yet");
    }
    return h.address();
  }

  /** The components this server runs, in start order. */
  public List<ServerComponent> components() {
    return components;
  }

  /** Every HTTP route registered, as {@code "METHOD pattern"}. */
  public List<String> routes() {
    RoutingHttpServer h = http;
    return h == null ? List.of() : h.routes();
  }

  /** The HTTP server's limits in force (docs/http-api.md, "Limits"). */
  public dev.ordo.server.internal.HttpLimits httpLimits() {
    RoutingHttpServer h = http;
    if (h == null) {
      throw new IllegalStateException("the HTTP server is not bound yet");
    }
    return h.limits();
  }

  public ClusterLayout layout() {
    return layout;
  }

  public List<String> createdTopics() {
    return createdTopics;
  }

  public Path stateDir() {
    return stateDir.path();
  }

  public Duration startDuration() {
    return startDuration;
  }

  private final class Context implements ServerContext {
    @Override
    public String bootstrapServers() {
      return bootstrapServers;
    }

    @Override
    public Map<String, Object> kafkaClientConfig() {
      return OrdoServer.this.kafkaClientConfig();
    }

    @Override
    public ServerSettings settings() {
      return config.settings();
    }

    @Override
    public ClusterTopics topics() {
      return layout.topics();
    }

    @Override
    public ClusterLayout layout() {
      return layout;
    }

    @Override
    public int partitions() {
      return layout.partitions();
    }

    @Override
    public List<Duration> delayTiers() {
      return layout.delayTiers();
    }

    @Override
    public Path stateDir() {
      return stateDir.path();
    }

    @Override
    public HttpRouter http() {
      return http;
    }

    @Override
    public URI httpAddress() {
      return http.advertisedAddress();
    }

    @Override
    public MeterRegistry meters() {
      return meters;
    }

    @Override
    public javax.net.ssl.SSLContext httpTls() {
      return tls;
    }

    @Override
    public String httpHost() {
      return config.httpHost();
    }

    @Override
    public SecurityConfig.Mode authMode() {
      return authMode;
    }

    @Override
    public PrincipalStore principals() {
      return principals;
    }

    @Override
    public AuditLog audit() {
      return audit;
    }
  }
}
