package dev.ordo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ordo server --bootstrap-servers ...} against a real broker: topics, configs, checks, /health. */
@KafkaCluster
class ServerCommandTest {
  @TempDir
  Path tmp;

  private final RealKafka kafka;

  ServerCommandTest(RealKafka kafka) {
    this.kafka = kafka;
  }

  private String[] args(String cluster, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("server", "--bootstrap-servers", kafka.bootstrapServers(),
        "--cluster", cluster, "--http-port", "0", "--state-dir", tmp.resolve(cluster).toString()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /**
   * The file sets the cluster and the queue's payload limit; the environment overrides the cluster;
   * a flag overrides both for the HTTP port. The settings reach the components: the HTTP API's
   * producer refuses what the file's limit refuses.
   */
  @Test
  void settingsComeFromTheFileThenTheEnvironmentThenTheFlagsAndReachTheComponents() throws Exception {
    Path file = tmp.resolve("ordo.properties");
    java.nio.file.Files.writeString(file, "ordo.cluster=fromfile\nordo.payload.max.bytes=100\n"
        + "ordo.server.http.port=1\nstreams.num.standby.replicas=0\nclient.dns.lookup=use_all_dns_ips\n");
    Cli.Running running = Cli.start(dev.ordo.server.Components::standard, Map.of("ORDO_CLUSTER", "fromenv"),
        "server", "--bootstrap-servers", kafka.bootstrapServers(), "--config", file.toString(), "--http-port", "0",
        "--state-dir", tmp.resolve("settings").toString());
    try {
      URI base = running.server().httpAddress();
      assertTrue(base.getPort() != 1, "the flag beat the file's port");
      HttpClient http = HttpClient.newHttpClient();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(90)).until(() -> http.send(
          HttpRequest.newBuilder(URI.create(base + "/health")).build(), HttpResponse.BodyHandlers.ofString())
          .statusCode() == 200);
      JsonNode health = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(URI.create(base + "/health"))
          .build(), HttpResponse.BodyHandlers.ofString()).body());
      assertEquals("fromenv", health.get("cluster").asText(), "the environment beat the file");

      HttpResponse<String> small = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/namespaces/s/topics/t/items"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"payload\": \"" + "x".repeat(50) + "\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(201, small.statusCode(), small.body());
      HttpResponse<String> big = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/namespaces/s/topics/t/items"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"payload\": \"" + "x".repeat(150) + "\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(413, big.statusCode(), "the file's ordo.payload.max.bytes=100 reached the producer: " + big.body());
      String out = running.out().toString();
      assertTrue(out.contains("ordo.payload.max.bytes=100") && out.contains("client.dns.lookup=use_all_dns_ips")
          && out.contains("streams.num.standby.replicas=0"), out);
    } finally {
      assertEquals(0, running.stop().exitCode());
    }
  }

  @Test
  void createsTheClusterTopicsWithTheirConfigs() throws Exception {
    Cli.Running running = Cli.start(args("made", "--partitions", "3", "--delay-tiers", "500ms,10s"));
    URI health = URI.create(running.server().httpAddress() + "/health");
    HttpResponse<String> response = HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(health).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    JsonNode body = new ObjectMapper().readTree(response.body());
    assertEquals("UP", body.get("status").asText());
    assertEquals("made", body.get("cluster").asText());
    assertEquals(kafka.bootstrapServers(), body.get("kafka").asText());
    Cli.Result result = running.stop();
    assertEquals(0, result.exitCode(), result.err());
    assertTrue(result.out().contains("Kafka:  " + kafka.bootstrapServers()), result.out());
    assertTrue(result.out().contains("HTTP:   http://127.0.0.1:"), result.out());

    List<String> names = List.of("made.items", "made.commands", "made.deliveries", "made.dlq", "made.topics",
        "made.delay.500ms", "made.delay.10s");
    try (Admin admin = kafka.admin()) {
      Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
      for (String name : names) {
        assertEquals(3, topics.get(name).partitions().size(), name);
      }
      Map<String, Config> configs = configs(admin, names);
      assertEquals("compact", configs.get("made.topics").get("cleanup.policy").value());
      assertEquals("delete", configs.get("made.items").get("cleanup.policy").value());
      for (String tier : List.of("made.delay.500ms", "made.delay.10s")) {
        assertEquals("LogAppendTime", configs.get(tier).get("message.timestamp.type").value(), tier);
      }
      assertEquals("CreateTime", configs.get("made.items").get("message.timestamp.type").value());
    }

    // Started again without --partitions it adopts the existing count and creates nothing.
    Cli.Running again = Cli.start(args("made", "--delay-tiers", "500ms,10s"));
    assertEquals(3, again.server().layout().partitions());
    assertEquals(List.of(), again.server().createdTopics());
    assertEquals(0, again.stop().exitCode());
  }

  @Test
  void refusesMismatchedPartitionCounts() throws Exception {
    try (Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic("skew.items", 2, (short) 1), new NewTopic("skew.commands", 3, (short) 1)))
          .all().get(30, TimeUnit.SECONDS);
    }
    kafka.awaitTopics("skew.items", "skew.commands");
    Cli.Result r = Cli.run(args("skew"));
    assertError(r, "must have the same number of partitions");
    assertTrue(r.errLines().get(0).contains("skew.items (2)") && r.errLines().get(0).contains("skew.commands (3)"), r.err());
    try (Admin admin = kafka.admin()) {
      assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("skew.deliveries"),
          "nothing is created when the check fails");
    }
  }

  @Test
  void refusesAPartitionsFlagThatDisagreesWithExistingTopics() throws Exception {
    kafka.createTopics(2, "two.items", "two.commands", "two.deliveries");
    Cli.Result r = Cli.run(args("two", "--partitions", "4"));
    assertError(r, "--partitions 4 does not match the existing topics");
  }

  @Test
  void refusesATierTopicWithoutLogAppendTime() throws Exception {
    kafka.createTopics(4, "tierless.delay.30s");
    assertError(Cli.run(args("tierless")), "tierless.delay.30s has message.timestamp.type=CreateTime");
  }

  @Test
  void refusesAStatsTopicThatIsNotCompacted() throws Exception {
    kafka.createTopics(4, "uncompacted.topics");
    assertError(Cli.run(args("uncompacted")), "uncompacted.topics has cleanup.policy=delete");
  }

  private static void assertError(Cli.Result r, String expected) {
    assertEquals(OrdoMain.EXIT_FAILURE, r.exitCode(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.errLines().get(0).startsWith("ordo server: "), r.err());
    assertTrue(r.errLines().get(0).contains(expected), () -> "want '" + expected + "' in: " + r.err());
  }

  private static Map<String, Config> configs(Admin admin, List<String> names) throws Exception {
    Map<ConfigResource, Config> byResource = admin.describeConfigs(names.stream()
        .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList()).all().get(30, TimeUnit.SECONDS);
    return byResource.entrySet().stream().collect(Collectors.toMap(e -> e.getKey().name(), Map.Entry::getValue));
  }
}
