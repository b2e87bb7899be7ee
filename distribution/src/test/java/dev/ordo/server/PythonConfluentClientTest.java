package dev.ordo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.api.ClusterTopics;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.testing.SchemaRegistryServer;
import dev.ordo.topology.QueueConfig;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client no one here wrote: confluent-kafka for Python (Debian's, with its own Avro serializer and
 * deserializer and a real schema registry) enqueues items to an Ordo server configured with the
 * registry, then asks for them on the commands topic, reads them from its reply partition of the
 * deliveries topic and acks them over HTTP: docs/examples/python/ordo_avro.py, as docs/clients.md
 * shows it.
 */
@KafkaCluster
class PythonConfluentClientTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PYTHON = "/usr/bin/python3";
  private static final int COUNT = 6;

  @Test
  void itemsEnqueuedFromPythonAreDeliveredToAPythonConsumerWithTheirFieldsAndAcked(RealKafka kafka, @TempDir Path state)
      throws Exception {
    install();
    Path program = repoRoot().resolve("docs/examples/python/ordo_avro.py");
    try (SchemaRegistryServer registry = SchemaRegistryServer.start();
        TestServer server = TestServer.startWithSettings(kafka, "py", state,
            Map.of(QueueConfig.SCHEMA_REGISTRY_URL_CONFIG, registry.url()))) {
      List<String> common = List.of("--bootstrap", kafka.bootstrapServers(), "--registry", registry.url(),
          "--cluster", "py", "--namespace", "pyns", "--topic", "jobs", "--count", String.valueOf(COUNT));
      List<JsonNode> enqueued = run(program, "enqueue", common, List.of());
      assertEquals(COUNT, enqueued.size());

      ClusterTopics topics = new ClusterTopics("py");
      assertEquals(COUNT, framedRecordsOn(kafka, topics.items()),
          "every item Python wrote is Confluent-framed (magic byte 0)");

      List<JsonNode> got = run(program, "consume", common,
          List.of("--http", server.address().toString().replaceAll("/$", ""), "--timeout", "60"));
      assertEquals(COUNT, got.size(), "every item delivered once: " + got);
      Set<String> payloads = new TreeSet<>();
      for (JsonNode item : got) {
        String payload = item.get("payload").asText();
        payloads.add(payload);
        int i = Integer.parseInt(payload.substring("py-".length()));
        assertEquals(i % 3, item.get("priority").asInt(), "priority of " + payload);
        assertEquals("trace-" + i, item.get("traceId").asText(), "trace id of " + payload);
        assertEquals(String.format("00-%032x-%016x-01", i + 1, i + 1), item.path("headers").path("traceparent").asText(),
            "the Kafka header Python put on the record, delivered with the item: " + item);
        assertEquals("pyns", item.get("namespace").asText());
        assertEquals("jobs", item.get("topic").asText());
        assertEquals(200, item.get("ack").asInt(), "acked over HTTP: " + item);
        TestServer.Reply again = server.post("/v1/items/" + item.get("itemId").asText() + "/ack",
            Map.of("lease", "any"));
        assertEquals(404, again.status(), "the item is gone once acked: " + again.text());
      }
      assertEquals(COUNT, payloads.size(), "no item twice: " + payloads);
    }
  }

  private static void install() throws Exception {
    Path script = repoRoot().resolve(".ci/install-python-kafka.sh");
    Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.MINUTES) && p.exitValue() == 0, "could not install with " + script + ":\n" + out);
  }

  /** Runs the Python program, checks it exits 0, and returns the JSON lines it printed. */
  private static List<JsonNode> run(Path program, String command, List<String> common, List<String> more)
      throws Exception {
    List<String> cmd = new ArrayList<>(List.of(PYTHON, program.toString(), command));
    cmd.addAll(common);
    cmd.addAll(more);
    Path err = Files.createTempFile("python-" + command, ".err");
    Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    boolean done = p.waitFor(2, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    assertTrue(done && p.exitValue() == 0, "python " + command + " failed:\n" + out + "\n" + Files.readString(err));
    List<JsonNode> lines = new ArrayList<>();
    for (String line : out.split("\n")) {
      if (!line.isBlank()) {
        lines.add(JSON.readTree(line));
      }
    }
    return lines;
  }

  private static int framedRecordsOn(RealKafka kafka, String topic) {
    var cp = kafka.clientProperties();
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = c.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      int framed = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          assertEquals(0, r.value()[0], "record " + r.partition() + "@" + r.offset() + " is not Confluent-framed");
          framed++;
        }
      }
      return framed;
    }
  }

  private static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !new File(dir.toFile(), ".ci/install-python-kafka.sh").isFile()) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new AssertionError(".ci/install-python-kafka.sh not found above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
