package dev.ordo.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus server (Debian's package, installed by {@code .ci/install-prometheus.sh} when
 * missing) scrapes {@code GET /metrics} of an {@code ordo server} and is asked, through its own HTTP
 * API, for the age of the oldest ready item of a topic the test made old: items enqueued and left
 * for over two seconds. Also checks the endpoint's text as Prometheus reads it (the scrape is "up").
 */
@KafkaCluster
class PrometheusScrapeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  Path tmp;

  @Test
  void prometheusSeesTheOldestReadyAgeOfATopicLeftUnworked(RealKafka kafka) throws Exception {
    String prometheus = ensurePrometheus();
    try (TestServer server = TestServer.start(kafka, "prom", tmp.resolve("ordo"))) {
      for (int i = 0; i < 3; i++) {
        Reply r = server.post("/v1/namespaces/aging/topics/reports/items", Map.of("payload", "r" + i));
        assertEquals(201, r.status(), r::text);
      }
      Reply metrics = server.get("/metrics");
      assertEquals(200, metrics.status(), metrics::text);
      assertTrue(metrics.text().contains("kafka_producer_record_send_total{client_id=\"ordo-http-"),
          "the HTTP API's own Kafka producer's metrics are exported");
      assertTrue(metrics.text().contains("kafka_stream_thread_commit_latency_avg"), "Kafka Streams' metrics too");

      int port = freePort();
      Path config = tmp.resolve("prometheus.yml");
      URI target = server.address();
      Files.writeString(config, String.join("\n",
          "global:",
          "  scrape_interval: 1s",
          "  evaluation_interval: 1s",
          "scrape_configs:",
          "  - job_name: ordo",
          "    metrics_path: /metrics",
          "    static_configs:",
          "      - targets: ['" + target.getHost() + ":" + target.getPort() + "']",
          ""));
      Process p = new ProcessBuilder(prometheus, "--config.file=" + config,
          "--storage.tsdb.path=" + tmp.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + port)
          .redirectErrorStream(true)
          .redirectOutput(tmp.resolve("prometheus.log").toFile())
          .start();
      try {
        String api = "http://127.0.0.1:" + port;
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
            .until(() -> value(api, "up{job=\"ordo\"}") == 1.0);
        String oldest = "ordo_oldest_ready_age_seconds{namespace=\"aging\",topic=\"reports\"}";
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
            .until(() -> value(api, oldest) >= 2.0);
        double ready = value(api, "ordo_items{namespace=\"aging\",topic=\"reports\",state=\"ready\"}");
        assertEquals(3.0, ready, "three items ready, as Prometheus scraped them");
        assertTrue(value(api, "ordo_enqueued_total{namespace=\"aging\",topic=\"reports\"}") >= 3.0);
      } finally {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  /** The single value of an instant query, or NaN when it has none yet. */
  private static double value(String api, String query) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(api + "/api/v1/query?query="
        + URLEncoder.encode(query, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
    JsonNode result = JSON.readTree(r.body()).path("data").path("result");
    if (result.size() != 1) {
      return Double.NaN;
    }
    return Double.parseDouble(result.get(0).path("value").get(1).asText());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The prometheus binary (Debian's), installed with the project's script when missing. */
  static String ensurePrometheus() throws Exception {
    ProjectTools.ensure("install-prometheus.sh", Duration.ofMinutes(10), "/usr/bin/prometheus");
    return "/usr/bin/prometheus";
  }
}
