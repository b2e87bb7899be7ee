package dev.ordo.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.Components;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ordo server} against a broker that requires SASL/PLAIN, with the credentials given only
 * in {@code --config}: every Kafka client the server makes (admin, Kafka Streams, forwarders, the
 * HTTP API's producer, client and delay client) must authenticate, or nothing works.
 */
class SaslClusterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static RealKafka kafka;

  @TempDir
  static Path tmp;

  @BeforeAll
  static void startBroker() {
    kafka = RealKafka.startSaslPlain();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void theBrokerRefusesAClientWithoutCredentials() {
    Properties plain = new Properties();
    plain.put("bootstrap.servers", kafka.bootstrapServers());
    plain.put("request.timeout.ms", 2_000);
    plain.put("default.api.timeout.ms", 3_000);
    try (Admin admin = Admin.create(plain)) {
      assertThrows(Exception.class, () -> admin.describeCluster().nodes().get(5, TimeUnit.SECONDS),
          "a client that speaks PLAINTEXT to the SASL listener gets nowhere");
    }
  }

  @Test
  void aServerConfiguredOnlyByItsFileWorksThroughASaslCluster() throws Exception {
    Path file = tmp.resolve("ordo.properties");
    StringBuilder props = new StringBuilder("# credentials only here\n");
    RealKafka.saslClientSettings().forEach((k, v) -> props.append(k).append('=').append(v.replace("\\", "\\\\"))
        .append('\n'));
    props.append("ordo.server.http.port=0\nordo.delay.tiers=200ms,1s\n");
    Files.writeString(file, props, StandardCharsets.UTF_8);

    Cli.Running running = Cli.start(Components::standard, "server", "--bootstrap-servers", kafka.bootstrapServers(),
        "--config", file.toString(), "--cluster", "secured", "--state-dir", tmp.resolve("state").toString());
    try {
      String base = running.server().httpAddress().toString();
      HttpClient http = HttpClient.newHttpClient();
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
          .until(() -> send(http, base, "GET", "/health", null).statusCode() == 200);
      assertTrue(running.out().toString().contains("sasl.jaas.config=[hidden]"), running.out()::toString);
      assertFalse(running.out().toString().contains(RealKafka.SASL_PASSWORD), "the password is never printed");

      HttpResponse<String> enqueued = send(http, base, "POST", "/v1/namespaces/sec/topics/t/items",
          "{\"payload\": \"through SASL\", \"delayMs\": 1500}");
      assertEquals(201, enqueued.statusCode(), enqueued.body());
      String id = JSON.readTree(enqueued.body()).get("id").asText();

      // Delayed past the first tier: the item travels the tier topics (forwarders) and comes back.
      JsonNode[] item = new JsonNode[1];
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        HttpResponse<String> r = send(http, base, "POST", "/v1/namespaces/sec/dequeue",
            "{\"topics\": {\"t\": 1}, \"waitMs\": 2000}");
        JsonNode items = JSON.readTree(r.body()).get("items");
        item[0] = items.isEmpty() ? null : items.get(0);
        return item[0] != null;
      });
      assertEquals(id, item[0].get("id").asText());
      assertEquals("through SASL", item[0].get("payload").asText());
      HttpResponse<String> acked = send(http, base, "POST", "/v1/items/" + id + "/ack",
          "{\"lease\": \"" + item[0].get("lease").asText() + "\"}");
      assertEquals(200, acked.statusCode(), acked.body());
      // The answers' own producer (decisions D39) reached the secured broker too: answers went early.
      String metrics = send(http, base, "GET", "/metrics", null).body();
      java.util.regex.Matcher early = java.util.regex.Pattern
          .compile("ordo_queue_events_total\\{event=\"answers.early\"} ([0-9.]+)").matcher(metrics);
      assertTrue(early.find() && Double.parseDouble(early.group(1)) >= 1, "answers.early in /metrics");

      kafka.createTopics(1, "secured-target");
      HttpResponse<String> scheduled = send(http, base, "POST", "/v1/schedule",
          "{\"topic\": \"secured-target\", \"value\": \"v\", \"delayMs\": 10}");
      assertEquals(202, scheduled.statusCode(), scheduled.body());
    } finally {
      assertEquals(0, running.stop().exitCode());
    }
  }

  private static HttpResponse<String> send(HttpClient http, String base, String method, String path, String body)
      throws Exception {
    HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body);
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).method(method, publisher)
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
