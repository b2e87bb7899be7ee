package dev.ordo.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.testing.RealKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;

/**
 * A real Kafka Connect worker in distributed mode, Kafka's own runtime (connect-runtime) in this
 * JVM, with its REST API on a free port. The Ordo plugin is found only through {@code plugin.path}:
 * the packaged plugin directory (connectors/target/plugin), handed over by failsafe.
 * Tests talk to it over HTTP only.
 */
final class ConnectWorker implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  private final Connect<?> connect;
  private final URI url;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private ConnectWorker(Connect<?> connect) {
    this.connect = connect;
    this.url = connect.rest().serverUrl();
  }

  static ConnectWorker start(RealKafka kafka, String groupId) {
    String pluginPath = System.getProperty("ordo.connect.plugin.path");
    if (pluginPath == null || !Files.isDirectory(Path.of(pluginPath, "ordo-connect"))) {
      throw new IllegalStateException("no packaged plugin at " + pluginPath
          + "/ordo-connect: run this test with failsafe after package (mvn verify)");
    }
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", kafka.bootstrapServers());
    props.put("group.id", groupId);
    props.put("config.storage.topic", groupId + "-configs");
    props.put("offset.storage.topic", groupId + "-offsets");
    props.put("status.storage.topic", groupId + "-status");
    props.put("config.storage.replication.factor", "1");
    props.put("offset.storage.replication.factor", "1");
    props.put("status.storage.replication.factor", "1");
    props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    props.put("value.converter.schemas.enable", "false");
    props.put("offset.flush.interval.ms", "500");
    props.put("scheduled.rebalance.max.delay.ms", "0");
    props.put("listeners", "http://127.0.0.1:0");
    props.put("plugin.path", pluginPath);
    // Plugins found through their META-INF/services manifests (ours has one): no reflective scan of the whole test classpath.
    props.put("plugin.discovery", "service_load");
    return new ConnectWorker(new ConnectDistributed().startConnect(props));
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 404 ? null : JSON.readTree(r.body());
  }

  /** PUT /connectors/{name}/config: creates or updates a connector; returns the HTTP status. */
  int putConnector(String name, Map<String, String> config) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve("/connectors/" + name + "/config"))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IllegalStateException("PUT connector " + name + ": " + r.statusCode() + " " + r.body());
    }
    return r.statusCode();
  }

  /** POST a path (a restart); returns the HTTP status. */
  int post(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve(path))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode();
  }

  /** The state of a connector's task (RUNNING, FAILED...), or null while it has none. */
  String taskState(String connector, int task) throws IOException, InterruptedException {
    JsonNode status = get("/connectors/" + connector + "/status");
    if (status == null) {
      return null;
    }
    for (JsonNode t : status.path("tasks")) {
      if (t.path("id").asInt() == task) {
        return t.path("state").asText();
      }
    }
    return null;
  }

  /** The failure trace of a task, as the REST status shows it ("" when none). */
  String taskTrace(String connector, int task) throws IOException, InterruptedException {
    JsonNode status = get("/connectors/" + connector + "/status");
    for (JsonNode t : status.path("tasks")) {
      if (t.path("id").asInt() == task) {
        return t.path("trace").asText("");
      }
    }
    return "";
  }

  @Override
  public void close() {
    connect.stop();
    connect.awaitStop();
  }
}
