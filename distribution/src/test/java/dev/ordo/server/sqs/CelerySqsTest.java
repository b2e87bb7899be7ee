package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Celery app (Debian's Celery 5.2, kombu's SQS transport over pycurl) with the SQS endpoint as its
 * broker: docs/examples/sqs/celery_app.py. A worker runs plain tasks, one with a countdown and flaky
 * ones that retry twice with countdowns; every task runs exactly as often as it should (once, or once
 * per retry) and every result comes back.
 */
@KafkaCluster
class CelerySqsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void celeryTasksWithRetriesAndCountdownsEachRunOnceWithTheirResults(RealKafka kafka, @TempDir Path state)
      throws Exception {
    SqsClientPrograms.install();
    Path app = SqsClientPrograms.repoRoot().resolve("docs/examples/sqs");
    Path runDir = Files.createDirectories(state.resolve("celery"));
    try (TestServer server = TestServer.startWithSqs(kafka, "celery", state.resolve("server"), Map.of(),
        OptionalInt.empty())) {
      Map<String, String> env = Map.of("ORDO_SQS", server.sqsAddress().toString(), "CELERY_RUN_DIR",
          runDir.toString(), "PYTHONPATH", app.toString(), "HOME", runDir.toString(), "PYTHONDONTWRITEBYTECODE", "1");
      Path workerLog = runDir.resolve("worker.log");
      ProcessBuilder wb = new ProcessBuilder(SqsClientPrograms.PYTHON, "-m", "celery", "-A", "celery_app", "worker",
          "--pool=solo", "--loglevel=INFO", "--without-mingle", "--without-gossip", "--without-heartbeat")
          .directory(app.toFile()).redirectErrorStream(true).redirectOutput(workerLog.toFile());
      wb.environment().put("PATH", "/usr/bin:/bin");
      wb.environment().putAll(env);
      Process worker = wb.start();
      try {
        SqsClientPrograms.Run client = SqsClientPrograms.run(List.of(SqsClientPrograms.PYTHON,
            app.resolve("celery_app.py").toString()), env, app, Duration.ofMinutes(3));
        assertTrue(client.ok(), () -> client + "\n--- worker\n" + read(workerLog));
        JsonNode out = JSON.readTree(client.out().lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
            .orElseThrow(() -> new AssertionError(client.toString())));
        List<Integer> adds = new ArrayList<>();
        out.get("adds").forEach(n -> adds.add(n.asInt()));
        assertEquals(List.of(0, 2, 4, 6, 8, 10, 12, 14, 16, 18), adds);
        assertEquals(101, out.get("later").asInt());
        for (int i = 0; i < 3; i++) {
          assertEquals("f" + i + " done after 2 retries", out.get("flaky").get(i).asText());
        }
        Map<String, Integer> runs = new TreeMap<>();
        double laterRanAt = 0;
        for (JsonNode run : out.get("runs")) {
          List<String> parts = new ArrayList<>();
          run.forEach(p -> parts.add(p.asText()));
          runs.merge(String.join(" ", parts.subList(0, parts.size() - 1)), 1, Integer::sum);
          if (parts.get(0).equals("add") && parts.get(1).equals("100")) {
            laterRanAt = Double.parseDouble(parts.get(parts.size() - 1));
          }
        }
        Map<String, Integer> expected = new TreeMap<>();
        for (int i = 0; i < 10; i++) {
          expected.put("add " + i + " " + i, 1);
        }
        expected.put("add 100 1", 1);
        for (int i = 0; i < 3; i++) {
          for (int retry = 0; retry <= 2; retry++) {
            expected.put("flaky f" + i + " " + retry, 1);
          }
        }
        assertEquals(expected, runs, "every task ran once, each flaky one once per retry");
        assertTrue(laterRanAt - out.get("sentAt").asDouble() >= 1.9, "the countdown of 2 s was kept");
      } finally {
        worker.destroy();
        if (!worker.waitFor(15, TimeUnit.SECONDS)) {
          worker.destroyForcibly();
        }
      }
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
