package dev.ordo.server;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.components.HttpApiComponent;
import dev.ordo.server.components.QueueComponent;
import dev.ordo.testing.RealKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * An {@link OrdoServer} for a test class, on the class's Kafka cluster, on a free HTTP port: the
 * queue and the HTTP API (the delay-tier forwarders are left out, to spare the CPU), started and
 * waited for until {@code /health} says UP. Also a small JSON client of its HTTP API.
 */
public final class TestServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OrdoServer server;
  private final QueueComponent queue;
  private final dev.ordo.server.components.SqsComponent sqs;
  private final HttpClient http;
  /** What the tests' own HTTP client reaches an HTTPS server with (null: the JDK's defaults). */
  private static final ThreadLocal<javax.net.ssl.SSLContext> CLIENT_TLS = new ThreadLocal<>();

  private TestServer(OrdoServer server, QueueComponent queue, dev.ordo.server.components.SqsComponent sqs) {
    this.server = server;
    this.queue = queue;
    this.sqs = sqs;
    HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
    if (CLIENT_TLS.get() != null) {
      b.sslContext(CLIENT_TLS.get());
    }
    this.http = b.build();
  }

  /** A server on HTTPS: the tests' client reaches it with {@code clientTls} (trust, and a client certificate). */
  public static TestServer startWithSettings(RealKafka kafka, String cluster, Path stateDir,
      java.util.Map<String, String> settings, javax.net.ssl.SSLContext clientTls) {
    CLIENT_TLS.set(clientTls);
    try {
      return startWithSettings(kafka, cluster, stateDir, settings);
    } finally {
      CLIENT_TLS.remove();
    }
  }

  /** A JSON answer: status, body (null when empty or not JSON) and headers. */
  public record Reply(int status, JsonNode json, HttpHeaders headers, String text) {
    public String error() {
      return json == null || !json.has("error") ? null : json.get("error").asText();
    }

    public String header(String name) {
      return headers.firstValue(name).orElse(null);
    }
  }

  public static TestServer start(RealKafka kafka, String cluster, Path stateDir) {
    return start(kafka, cluster, stateDir, null);
  }

  /** With {@code delayTiers} (e.g. "200ms,500ms"): the delay-tier forwarders run too, on those tiers. */
  public static TestServer start(RealKafka kafka, String cluster, Path stateDir, String delayTiers) {
    return start(kafka, cluster, stateDir, delayTiers, java.util.Map.of(), false, false);
  }

  /** The queue and the HTTP API with these {@code --config} settings. */
  public static TestServer startWithSettings(RealKafka kafka, String cluster, Path stateDir,
      java.util.Map<String, String> settings) {
    return start(kafka, cluster, stateDir, null, settings, false, false);
  }

  /**
   * With the SQS endpoint too ({@code SqsComponent}, on any free port), the dead-letter job runner (its
   * message move tasks are redrive jobs) and these {@code --config} settings; {@link #sqsAddress()} is
   * its URL.
   */
  public static TestServer startWithSqs(RealKafka kafka, String cluster, Path stateDir,
      java.util.Map<String, String> settings, java.util.OptionalInt partitions) {
    java.util.Map<String, String> all = new java.util.HashMap<>(settings);
    all.putIfAbsent(dev.ordo.server.sqs.SqsConfig.PORT_CONFIG, "-1");
    return start(kafka, cluster, stateDir, null, all, true, false, partitions, true);
  }

  /** The SQS endpoint's URL (a server started with {@link #startWithSqs}). */
  public URI sqsAddress() {
    return sqs.address().orElseThrow(() -> new IllegalStateException("this test server runs no SQS endpoint"));
  }

  /** With the dead-letter job runner too, which runs redrive and purge jobs. */
  public static TestServer startWithDlqJobs(RealKafka kafka, String cluster, Path stateDir) {
    return start(kafka, cluster, stateDir, null, java.util.Map.of(), true, false);
  }

  /** With the dead-letter job runner and these {@code --config} settings. */
  public static TestServer startWithDlqJobs(RealKafka kafka, String cluster, Path stateDir,
      java.util.Map<String, String> settings) {
    return start(kafka, cluster, stateDir, null, settings, true, false);
  }

  /**
   * With the web console too ({@code ConsoleComponent}, after the HTTP API), the dead-letter job
   * runner (the console redrives), and these {@code --config} settings.
   */
  public static TestServer startWithConsole(RealKafka kafka, String cluster, Path stateDir,
      java.util.Map<String, String> settings) {
    return start(kafka, cluster, stateDir, null, settings, true, true);
  }

  /** The queue and the HTTP API of a cluster whose topics, when this server creates them, get {@code partitions}. */
  public static TestServer startWithPartitions(RealKafka kafka, String cluster, Path stateDir, int partitions) {
    return start(kafka, cluster, stateDir, null, java.util.Map.of(), false, false, java.util.OptionalInt.of(partitions));
  }

  private static TestServer start(RealKafka kafka, String cluster, Path stateDir, String delayTiers,
      java.util.Map<String, String> settings, boolean dlqJobs, boolean console) {
    return start(kafka, cluster, stateDir, delayTiers, settings, dlqJobs, console, java.util.OptionalInt.empty());
  }

  private static TestServer start(RealKafka kafka, String cluster, Path stateDir, String delayTiers,
      java.util.Map<String, String> settings, boolean dlqJobs, boolean console, java.util.OptionalInt partitions) {
    return start(kafka, cluster, stateDir, delayTiers, settings, dlqJobs, console, partitions, false);
  }

  private static TestServer start(RealKafka kafka, String cluster, Path stateDir, String delayTiers,
      java.util.Map<String, String> settings, boolean dlqJobs, boolean console, java.util.OptionalInt partitions,
      boolean withSqs) {
    QueueComponent queue = new QueueComponent();
    ServerConfig.Builder builder = ServerConfig.builder()
        .partitions(partitions)
        .bootstrapServers(kafka.bootstrapServers())
        .cluster(cluster)
        .stateDir(stateDir)
        .settings(ServerSettings.of(settings, "the test"))
        .httpPort(0);
    List<dev.ordo.server.ServerComponent> components = new java.util.ArrayList<>(List.of(queue));
    if (delayTiers != null) {
      builder.delayTiers(dev.ordo.api.Durations.parseList(delayTiers));
      components.add(new dev.ordo.server.components.DelayTiersComponent());
    }
    if (dlqJobs) {
      components.add(new dev.ordo.server.components.DlqJobsComponent());
    }
    components.add(new HttpApiComponent(queue::service));
    if (console) {
      components.add(new dev.ordo.server.console.ConsoleComponent());
    }
    dev.ordo.server.components.SqsComponent sqs = new dev.ordo.server.components.SqsComponent();
    if (withSqs) {
      components.add(sqs);
    }
    ServerConfig config = builder.build();
    OrdoServer server = new OrdoServer(config, components);
    server.start();
    TestServer s = new TestServer(server, queue, sqs);
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
        .until(() -> s.get("/health").status() == 200);
    return s;
  }

  public OrdoServer server() {
    return server;
  }

  public QueueComponent queue() {
    return queue;
  }

  public URI address() {
    return server.httpAddress();
  }

  public Reply get(String path) {
    return send(HttpRequest.newBuilder(URI.create(address() + path)).GET());
  }

  public Reply post(String path, String body) {
    return send(HttpRequest.newBuilder(URI.create(address() + path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Reply put(String path, String body) {
    return send(HttpRequest.newBuilder(URI.create(address() + path))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Reply delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(address() + path)).DELETE());
  }

  /** {@code method path} with {@code body} (null: none) and, if not null, {@code Authorization: Bearer token}. */
  public Reply call(String method, String path, String body, String token) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(address() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return send(b);
  }

  public Reply post(String path, Object body) {
    try {
      return post(path, JSON.writeValueAsString(body));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Reply send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> r = http.send(request.timeout(Duration.ofSeconds(60)).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      if (!r.body().isEmpty()) {
        try {
          json = JSON.readTree(r.body());
        } catch (IOException e) {
          json = null;
        }
      }
      return new Reply(r.statusCode(), json, r.headers(), r.body());
    } catch (IOException e) {
      throw new IllegalStateException("HTTP request failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
