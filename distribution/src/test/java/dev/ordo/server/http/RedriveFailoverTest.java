package dev.ordo.server.http;

import static dev.ordo.server.http.DeadLetterFixtures.awaitJob;
import static dev.ordo.server.http.DeadLetterFixtures.deadLetters;
import static dev.ordo.server.http.DeadLetterFixtures.drain;
import static dev.ordo.server.http.DeadLetterFixtures.redrivenItems;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.dlq.DeadLetters;
import dev.ordo.client.dlq.DlqJobRunner;
import dev.ordo.client.dlq.DlqJobView;
import dev.ordo.client.dlq.UnknownDlqJobException;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A redrive whose runner dies half-way: every selected dead letter reaches the queue exactly once.
 * One runner hangs inside a batch's transaction (its items written, not committed) and another takes
 * over; a server is stopped in the middle of a job and another one finishes it.
 */
@KafkaCluster
class RedriveFailoverTest {
  @TempDir
  static Path tmp;

  @Test
  void aRunnerHungMidTransactionIsFencedAndEveryDeadLetterIsRedrivenOnce(RealKafka kafka) throws Exception {
    String cluster = "hung";
    // The server runs the queue and the HTTP API but no job runner: the test runs two of its own.
    try (TestServer server = TestServer.start(kafka, cluster, tmp.resolve("hung"))) {
      List<String> ids = deadLetters(server, "crash", "jobs", "work", 20, false);
      Map<String, Object> config = new HashMap<>();
      config.put("bootstrap.servers", kafka.bootstrapServers());
      // A runner that stops polling loses the job partition after this long (the default is 5 minutes).
      config.put("consumer.max.poll.interval.ms", 4000);

      CountDownLatch hung = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger batches = new AtomicInteger();
      DlqJobRunner a = new DlqJobRunner(config, cluster, (job, sent) -> {
        if (sent > 0 && batches.incrementAndGet() == 3) {
          hung.countDown();
          release.await(); // as a process stopped in a GC pause or by SIGSTOP, its transaction open
        }
      });
      DlqJobRunner b = new DlqJobRunner(config, cluster);
      try {
        a.start();
        await().atMost(Duration.ofSeconds(60)).until(a::isWorking);
        Reply started = server.post("/v1/dlq/redrive", "{\"filter\": {\"namespace\": \"crash\"}, \"ratePerSecond\": 20}");
        assertEquals(202, started.status(), started::text);
        String job = started.json().get("job").asText();
        await().atMost(Duration.ofSeconds(60)).until(() -> hung.getCount() == 0);
        JsonNode midway = server.get("/v1/dlq/redrives/" + job).json();
        assertEquals("RUNNING", midway.get("status").asText(), midway::toString);
        assertTrue(midway.get("redriven").asInt() > 0 && midway.get("redriven").asInt() < 20, midway::toString);

        b.start(); // takes the job partition once A is out of the group, fences A, resumes from the committed progress
        JsonNode done = awaitJob(server, "/v1/dlq/redrives/" + job);
        assertEquals(20, done.get("redriven").asInt(), done::toString);
        assertEquals(0, done.get("skipped").asInt(), done::toString);

        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> a.timesFenced() == 1);
        assertTrue(b.batchesCommitted() > 0);

        Map<String, List<String>> committed = redrivenItems(kafka, cluster, "read_committed");
        assertEquals(new TreeSet<>(ids), new TreeSet<>(committed.keySet()));
        committed.forEach((from, to) -> assertEquals(1, to.size(), "dead letter " + from + " is in the queue as " + to));
        int written = redrivenItems(kafka, cluster, "read_uncommitted").values().stream().mapToInt(List::size).sum();
        assertTrue(written > 20, "A's aborted batch is in the log (" + written + " records), invisible to the queue");

        List<String> payloads = drain(server, "crash", "jobs", 20);
        assertEquals(20, payloads.size(), payloads::toString);
        assertEquals(20, new TreeSet<>(payloads).size(), payloads::toString);
      } finally {
        release.countDown();
        a.close();
        b.close();
      }
    }
  }

  @Test
  void aRedriveJobSurvivesAServerRestart(RealKafka kafka) {
    String cluster = "restart";
    List<String> ids;
    String job;
    try (TestServer first = TestServer.startWithDlqJobs(kafka, cluster, tmp.resolve("first"))) {
      ids = deadLetters(first, "again", "jobs", "work", 15, false);
      Reply started = first.post("/v1/dlq/redrive", "{\"all\": true, \"ratePerSecond\": 4}");
      assertEquals(202, started.status(), started::text);
      job = started.json().get("job").asText();
      await().atMost(Duration.ofSeconds(60)).until(() ->
          first.get("/v1/dlq/redrives/" + job).json().get("redriven").asInt() >= 2);
    }
    Map<String, Object> config = Map.of("bootstrap.servers", kafka.bootstrapServers());
    try (DeadLetters dl = new DeadLetters(config, cluster)) {
      DlqJobView stopped = dl.job(job).orElseThrow();
      assertEquals(DlqJobView.Status.RUNNING, stopped.status(), stopped::toString);
      assertTrue(stopped.handled() < 15, stopped::toString);
    }
    try (TestServer second = TestServer.startWithDlqJobs(kafka, cluster, tmp.resolve("second"))) {
      JsonNode done = awaitJob(second, "/v1/dlq/redrives/" + job);
      assertEquals(15, done.get("redriven").asInt(), done::toString);
      Map<String, List<String>> committed = redrivenItems(kafka, cluster, "read_committed");
      assertEquals(new TreeSet<>(ids), new TreeSet<>(committed.keySet()));
      committed.forEach((from, to) -> assertEquals(1, to.size(), "dead letter " + from + " is in the queue as " + to));
      List<String> payloads = drain(second, "again", "jobs", 15);
      assertEquals(15, new TreeSet<>(payloads).size(), payloads::toString);
      assertEquals(15, payloads.size(), payloads::toString);
    }
  }

  /**
   * A cancel made while no runner works (the server running the job was stopped) is durable: the
   * server that takes the job over stops it, CANCELLED with the progress the first one committed,
   * instead of resuming it; the rest stay dead letters.
   */
  @Test
  void aJobCancelledWhileItsRunnerIsDownIsStoppedNotResumedByTheNext(RealKafka kafka) {
    String cluster = "cancelled";
    List<String> ids;
    String job;
    try (TestServer first = TestServer.startWithDlqJobs(kafka, cluster, tmp.resolve("cancel-first"))) {
      ids = deadLetters(first, "halt", "jobs", "work", 15, false);
      Reply started = first.post("/v1/dlq/redrive", "{\"all\": true, \"ratePerSecond\": 2}");
      assertEquals(202, started.status(), started::text);
      job = started.json().get("job").asText();
      await().atMost(Duration.ofSeconds(60)).until(() ->
          first.get("/v1/dlq/redrives/" + job).json().get("redriven").asInt() >= 2);
    }
    Map<String, Object> config = Map.of("bootstrap.servers", kafka.bootstrapServers());
    long moved;
    try (DeadLetters dl = new DeadLetters(config, cluster)) {
      DlqJobView cancelling = dl.cancel(job);
      assertEquals(DlqJobView.Status.CANCELLING, cancelling.status(), "no runner works: it cannot have stopped yet");
      assertTrue(cancelling.handled() >= 2 && cancelling.handled() < 15, cancelling::toString);
      moved = cancelling.handled();
      assertEquals(DlqJobView.Status.CANCELLING, dl.cancel(job).status(), "asked again: the same, nothing more written");
      assertThrows(UnknownDlqJobException.class, () -> dl.cancel("r-000000000000"));
    }
    try (TestServer second = TestServer.startWithDlqJobs(kafka, cluster, tmp.resolve("cancel-second"))) {
      JsonNode[] last = new JsonNode[1];
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
        last[0] = second.get("/v1/dlq/redrives/" + job).json();
        return Set.of("DONE", "FAILED", "CANCELLED").contains(last[0].get("status").asText());
      });
      assertEquals("CANCELLED", last[0].get("status").asText(), last[0]::toString);
      assertEquals(moved, last[0].get("redriven").asLong(), "not resumed: " + last[0]);
      // A later job is done only after the runner passed the cancelled one (one at a time, oldest first).
      Reply later = second.post("/v1/dlq/purge", "{\"filter\": {\"namespace\": \"nobody\"}}");
      awaitJob(second, "/v1/dlq/purges/" + later.json().get("job").asText());
      assertEquals(moved, second.get("/v1/dlq/redrives/" + job).json().get("redriven").asLong());
      Reply refused = second.post("/v1/dlq/redrives/" + job + "/cancel", "");
      assertEquals(409, refused.status(), refused::text);

      Map<String, List<String>> committed = redrivenItems(kafka, cluster, "read_committed");
      assertEquals(moved, ids.stream().filter(committed::containsKey).count());
      committed.forEach((from, to) -> assertEquals(1, to.size(), "dead letter " + from + " is in the queue as " + to));
      assertEquals(15 - moved, second.get("/v1/dlq?namespace=halt&limit=1000").json().get("deadLetters").size());
      List<String> payloads = drain(second, "halt", "jobs", (int) moved);
      assertEquals(moved, payloads.size(), payloads::toString);
    }
  }
}
