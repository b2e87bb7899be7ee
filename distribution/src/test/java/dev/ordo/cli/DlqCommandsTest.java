package dev.ordo.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.Components;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** {@code ordo dlq list|show|redrive|purge|job|cancel} against {@code ordo server} (standard components) on a real Kafka cluster. */
@KafkaCluster
class DlqCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path tmp;

  private static Cli.Running running;
  private static String server;

  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    running = Cli.start(Components::standard, "server", "--bootstrap-servers", kafka.bootstrapServers(),
        "--cluster", "clidlq", "--state-dir", tmp.resolve("server").toString(), "--http-port", "0");
    server = running.server().httpAddress().toString();
    HttpClient http = HttpClient.newHttpClient();
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() ->
        http.send(HttpRequest.newBuilder(URI.create(server + "/health")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
  }

  @AfterAll
  static void stop() throws Exception {
    if (running != null) {
      assertEquals(0, running.stop().exitCode());
    }
  }

  private static Cli.Result ordo(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--server");
    all.add(server);
    return Cli.run(all.toArray(String[]::new));
  }

  private static List<JsonNode> lines(Cli.Result r) {
    assertEquals(0, r.exitCode(), () -> "exit code; stderr: " + r.err());
    return r.out().lines().filter(l -> !l.isBlank()).map(l -> {
      try {
        return JSON.readTree(l);
      } catch (Exception e) {
        throw new AssertionError("not a JSON line: " + l, e);
      }
    }).toList();
  }

  private static void assertRefused(Cli.Result r, int code, String expected) {
    assertEquals(code, r.exitCode(), () -> "exit code; out: " + r.out() + " err: " + r.err());
    assertEquals(1, r.errLines().size(), () -> "one line on stderr: " + r.err());
    assertTrue(r.errLines().get(0).contains(expected), () -> "want '" + expected + "' in " + r.err());
  }

  @Test
  void deadLettersAreListedShownRedrivenAndPurged() {
    for (int i = 0; i < 3; i++) {
      assertEquals(0, ordo("enqueue", "--namespace", "cli-dlq", "--topic", "jobs", "--max-attempts", "1", "p" + i)
          .exitCode());
    }
    List<JsonNode> leased = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      leased.addAll(lines(ordo("dequeue", "--namespace", "cli-dlq", "--topic", "jobs", "--count",
          "" + (3 - leased.size()), "--wait", "2s")));
      return leased.size() >= 3;
    });
    for (JsonNode item : leased) {
      assertEquals(0, ordo("nack", item.get("id").asText(), item.get("lease").asText(), "--error", "bad input",
          "--dead-letter").exitCode());
    }
    await().atMost(Duration.ofSeconds(30)).until(() ->
        lines(ordo("dlq", "list", "--namespace", "cli-dlq")).size() == 3);

    List<JsonNode> page = lines(ordo("dlq", "list", "--namespace", "cli-dlq", "--reason", "REJECTED", "--limit", "2"));
    assertEquals(3, page.size(), "two dead letters and the cursor: " + page);
    assertTrue(page.get(2).has("nextCursor"), page::toString);
    List<JsonNode> rest = lines(ordo("dlq", "list", "--namespace", "cli-dlq", "--limit", "2", "--cursor",
        page.get(2).get("nextCursor").asText()));
    assertEquals(1, rest.stream().filter(d -> d.has("id")).count(), rest::toString);
    assertEquals(3, lines(ordo("dlq", "list", "--namespace", "cli-dlq", "--limit", "2", "--all-pages")).size());

    String id = page.get(0).get("id").asText();
    JsonNode shown = lines(ordo("dlq", "show", id)).get(0);
    assertEquals("REJECTED", shown.get("reason").asText());
    assertEquals("bad input", shown.get("lastError").asText());
    assertRefused(ordo("dlq", "show", "0-99999999"), OrdoMain.EXIT_UNKNOWN_ITEM, "unknown dead letter 0-99999999");

    List<JsonNode> redrive = lines(ordo("dlq", "redrive", id, "--to-topic", "jobs-fixed", "--rate", "10", "--wait"));
    JsonNode last = redrive.get(redrive.size() - 1);
    assertEquals("DONE", last.get("status").asText(), redrive::toString);
    assertEquals(1, last.get("redriven").asInt());
    assertEquals("DONE", lines(ordo("dlq", "job", last.get("job").asText())).get(0).get("status").asText());
    JsonNode back = lines(ordo("dequeue", "--namespace", "cli-dlq", "--topic", "jobs-fixed", "--wait", "5s")).get(0);
    assertEquals(shown.get("payload").asText(), back.get("payload").asText());

    assertRefused(ordo("dlq", "cancel", last.get("job").asText()), OrdoMain.EXIT_STALE_LEASE, "is DONE");

    // One a hundred seconds: the first goes at once, the second would wait; the cancel stops it there.
    JsonNode slow = lines(ordo("dlq", "redrive", "--namespace", "cli-dlq", "--rate", "0.01")).get(0);
    String slowJob = slow.get("job").asText();
    await().atMost(Duration.ofSeconds(60)).until(() ->
        lines(ordo("dlq", "job", slowJob)).get(0).get("redriven").asInt() == 1);
    List<JsonNode> cancel = lines(ordo("dlq", "cancel", slowJob, "--wait"));
    assertTrue(Set.of("CANCELLING", "CANCELLED").contains(cancel.get(0).get("status").asText()), cancel::toString);
    JsonNode cancelled = cancel.get(cancel.size() - 1);
    assertEquals("CANCELLED", cancelled.get("status").asText(), cancel::toString);
    assertEquals(1, cancelled.get("redriven").asInt(), cancel::toString);
    assertEquals(1, lines(ordo("dlq", "list", "--namespace", "cli-dlq")).size(), "the other one is still dead");

    List<JsonNode> purge = lines(ordo("dlq", "purge", "--namespace", "cli-dlq", "--wait"));
    assertEquals(1, purge.get(purge.size() - 1).get("purged").asInt(), purge::toString);
    assertEquals(0, lines(ordo("dlq", "list", "--namespace", "cli-dlq")).size());
    assertEquals(3, lines(ordo("dlq", "list", "--namespace", "cli-dlq", "--status", "all")).size());
  }

  @Test
  void badInputExits2NamingIt() {
    assertRefused(ordo("dlq", "redrive"), OrdoMain.EXIT_USAGE, "select the dead letters");
    assertRefused(ordo("dlq", "purge", "0-1", "--all"), OrdoMain.EXIT_USAGE, "not several");
    assertRefused(ordo("dlq", "list", "--reason", "LOST"), OrdoMain.EXIT_USAGE, "reason");
    assertRefused(ordo("dlq", "redrive", "--all", "--rate", "0"), OrdoMain.EXIT_USAGE, "ratePerSecond");
    assertRefused(ordo("dlq", "show", "zero"), OrdoMain.EXIT_USAGE, "dead-letter ID");
    assertRefused(ordo("dlq", "job", "r-none"), OrdoMain.EXIT_UNKNOWN_ITEM, "unknown redrive job r-none");
    assertRefused(ordo("dlq", "cancel", "r-none"), OrdoMain.EXIT_UNKNOWN_ITEM, "unknown redrive job r-none");
    assertRefused(ordo("dlq", "cancel", "p-none"), OrdoMain.EXIT_UNKNOWN_ITEM, "unknown purge job p-none");
  }

  @ParameterizedTest
  @ValueSource(strings = {"list", "show", "redrive", "purge", "job", "cancel"})
  void everyDlqCommandHasHelp(String command) {
    Cli.Result r = Cli.run("dlq", command, "--help");
    assertEquals(0, r.exitCode(), r::err);
    assertTrue(r.out().contains("Usage: ordo dlq " + command), r::out);
    assertFalse(r.out().isBlank());
  }
}
