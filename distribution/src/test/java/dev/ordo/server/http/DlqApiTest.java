package dev.ordo.server.http;

import static dev.ordo.server.http.DeadLetterFixtures.awaitJob;
import static dev.ordo.server.http.DeadLetterFixtures.deadLetters;
import static dev.ordo.server.http.DeadLetterFixtures.drain;
import static dev.ordo.server.http.DeadLetterFixtures.redrivenItems;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dead letters over HTTP: list, show, redrive, purge, against a server (with its job runner) on a real Kafka cluster. */
@KafkaCluster
class DlqApiTest {
  private static final String CLUSTER = "dlqapi";

  @TempDir
  static Path tmp;

  private static RealKafka kafka;
  private static TestServer server;

  @BeforeAll
  static void start(RealKafka k) {
    kafka = k;
    server = TestServer.startWithDlqJobs(kafka, CLUSTER, tmp.resolve("server"));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void deadLettersAreListedInPagesFilteredAndShownWithTheirHistory() {
    Instant before = Instant.now().minusSeconds(1);
    // The two namespaces' dead letters are made at once: each waits on its own items and listing.
    CompletableFuture<List<String>> rejecting =
        CompletableFuture.supplyAsync(() -> deadLetters(server, "list-b", "sms", "text", 3, true));
    List<String> maxed = deadLetters(server, "list-a", "emails", "mail", 6, false);
    List<String> rejected = rejecting.join();

    // Pages of 4: every dead letter of the namespace once, the last page without a cursor.
    Set<String> seen = new HashSet<>();
    String cursor = null;
    int pages = 0;
    do {
      Reply page = server.get("/v1/dlq?namespace=list-a&limit=4" + (cursor == null ? "" : "&cursor=" + cursor));
      assertEquals(200, page.status(), page::text);
      assertTrue(page.json().get("deadLetters").size() <= 4, page::text);
      page.json().get("deadLetters").forEach(d -> assertTrue(seen.add(d.get("id").asText()), "listed twice: " + d));
      cursor = page.json().get("nextCursor").isNull() ? null : page.json().get("nextCursor").asText();
      pages++;
    } while (cursor != null);
    assertEquals(new TreeSet<>(maxed), new TreeSet<>(seen));
    assertTrue(pages >= 2, "6 dead letters in pages of 4: " + pages);

    JsonNode byReason = server.get("/v1/dlq?reason=REJECTED&limit=1000").json().get("deadLetters");
    Set<String> rejectedIds = new HashSet<>();
    byReason.forEach(d -> {
      assertEquals("REJECTED", d.get("reason").asText());
      rejectedIds.add(d.get("id").asText());
    });
    assertTrue(rejectedIds.containsAll(rejected) && !rejectedIds.removeAll(maxed), byReason::toString);
    assertEquals(3, server.get("/v1/dlq?namespace=list-b&topic=sms&reason=rejected,MAX_ATTEMPTS").json()
        .get("deadLetters").size());
    assertEquals(0, server.get("/v1/dlq?namespace=list-b&topic=emails").json().get("deadLetters").size());
    assertEquals(6, server.get("/v1/dlq?namespace=list-a&from=" + before + "&to=" + Instant.now().plusSeconds(60))
        .json().get("deadLetters").size());
    assertEquals(0, server.get("/v1/dlq?namespace=list-a&from=" + Instant.now().plusSeconds(60)).json()
        .get("deadLetters").size());
    assertEquals(0, server.get("/v1/dlq?namespace=list-a&to=" + before).json().get("deadLetters").size());

    Reply shown = server.get("/v1/dlq/" + maxed.get(0));
    assertEquals(200, shown.status(), shown::text);
    JsonNode d = shown.json();
    assertEquals("DEAD", d.get("status").asText());
    assertEquals("MAX_ATTEMPTS", d.get("reason").asText());
    assertEquals("list-a", d.get("namespace").asText());
    assertEquals("emails", d.get("topic").asText());
    assertTrue(d.get("payload").asText().startsWith("mail-"), d::toString);
    String n = d.get("payload").asText().substring("mail-".length());
    assertEquals("m-" + n, d.get("metadata").asText());
    assertEquals("boom mail-" + n, d.get("lastError").asText());
    assertEquals(1, d.get("attempts").asInt());
    assertEquals(1, d.get("history").size());
    assertEquals("boom mail-" + n, d.get("history").get(0).get("error").asText());
    assertEquals(CLUSTER + ".items", d.get("source").get("topic").asText());
    assertEquals(d.get("itemId").asText(), d.get("source").get("partition").asInt() + "-" + d.get("source").get("offset").asLong());
    assertTrue(d.get("redrivable").asBoolean());
  }

  @Test
  void aRedriveByIdSendsEachBackOnceWithANewIdAndTheOverrides() {
    List<String> ids = deadLetters(server, "redrive-c", "jobs", "job", 3, false);
    List<String> chosen = ids.subList(0, 2);
    Reply started = server.post("/v1/dlq/redrive", Map.of("ids", chosen, "topic", "jobs-fixed", "priority", 7));
    assertEquals(202, started.status(), started::text);
    String job = started.json().get("job").asText();
    assertEquals("/v1/dlq/redrives/" + job, started.header("Location"));
    JsonNode done = awaitJob(server, "/v1/dlq/redrives/" + job);
    assertEquals(2, done.get("redriven").asInt(), done::toString);
    assertEquals(0, done.get("skipped").asInt(), done::toString);

    Set<String> payloads = new HashSet<>();
    for (String id : chosen) {
      JsonNode d = server.get("/v1/dlq/" + id).json();
      assertEquals("REDRIVEN", d.get("status").asText(), d::toString);
      assertEquals(job, d.get("job").asText());
      String newId = d.get("redrivenTo").asText();
      assertNotEquals(d.get("itemId").asText(), newId, "a new item ID");
      JsonNode item = server.get("/v1/items/" + newId).json();
      assertEquals("redrive-c", item.get("namespace").asText(), item::toString);
      assertEquals("jobs-fixed", item.get("topic").asText());
      assertEquals(7, item.get("priority").asInt());
      assertEquals(0, item.get("attempts").asInt(), "attempts start again");
      assertEquals(d.get("payload").asText(), item.get("payload").asText());
      assertEquals(d.get("metadata").asText(), item.get("metadata").asText());
      payloads.add(d.get("payload").asText());
    }
    assertEquals(List.of(chosen.get(0), chosen.get(1)).stream().sorted().toList(),
        redrivenItems(kafka, CLUSTER, "read_committed").keySet().stream().filter(chosen::contains).sorted().toList());

    // Listed as dead: only the third; redriving the same IDs again sends nothing.
    JsonNode dead = server.get("/v1/dlq?namespace=redrive-c").json().get("deadLetters");
    assertEquals(1, dead.size(), dead::toString);
    assertEquals(ids.get(2), dead.get(0).get("id").asText());
    assertEquals(2, server.get("/v1/dlq?namespace=redrive-c&status=redriven").json().get("deadLetters").size());
    JsonNode again = awaitJob(server, "/v1/dlq/redrives/"
        + server.post("/v1/dlq/redrive", Map.of("ids", chosen)).json().get("job").asText());
    assertEquals(0, again.get("redriven").asInt(), again::toString);
    assertEquals(2, again.get("skipped").asInt(), again::toString);
    redrivenItems(kafka, CLUSTER, "read_committed").forEach((from, to) ->
        assertEquals(1, to.size(), "dead letter " + from + " sent back once, not " + to));

    List<String> got = drain(server, "redrive-c", "jobs-fixed", 2);
    assertEquals(payloads, new HashSet<>(got));
    assertEquals(2, got.size(), got::toString);
  }

  @Test
  void aPurgedDeadLetterIsNotListedAndNeverRedriven() {
    List<String> ids = deadLetters(server, "purge-d", "jobs", "junk", 3, true);
    Reply started = server.post("/v1/dlq/purge", "{\"filter\": {\"namespace\": \"purge-d\", \"reason\": [\"REJECTED\"]}}");
    assertEquals(202, started.status(), started::text);
    JsonNode done = awaitJob(server, "/v1/dlq/purges/" + started.json().get("job").asText());
    assertEquals(3, done.get("purged").asInt(), done::toString);

    assertEquals(0, server.get("/v1/dlq?namespace=purge-d").json().get("deadLetters").size());
    assertEquals(3, server.get("/v1/dlq?namespace=purge-d&status=purged").json().get("deadLetters").size());
    assertEquals("PURGED", server.get("/v1/dlq/" + ids.get(0)).json().get("status").asText());

    JsonNode redrive = awaitJob(server, "/v1/dlq/redrives/" + server.post("/v1/dlq/redrive",
        "{\"filter\": {\"namespace\": \"purge-d\"}}").json().get("job").asText());
    assertEquals(0, redrive.get("redriven").asInt(), redrive::toString);
    assertEquals(3, redrive.get("skipped").asInt(), redrive::toString);
    Map<String, List<String>> sentBack = redrivenItems(kafka, CLUSTER, "read_uncommitted");
    ids.forEach(id -> assertFalse(sentBack.containsKey(id), id));
  }

  @Test
  void aRateLimitSpreadsARedriveOutAndADelayHoldsTheItems() {
    deadLetters(server, "rate-e", "jobs", "slow", 6, false);
    Reply started = server.post("/v1/dlq/redrive", "{\"filter\": {\"namespace\": \"rate-e\"}, \"ratePerSecond\": 5,"
        + " \"delayMs\": 600000}");
    assertEquals(202, started.status(), started::text);
    JsonNode done = awaitJob(server, "/v1/dlq/redrives/" + started.json().get("job").asText());
    assertEquals(6, done.get("redriven").asInt(), done::toString);
    long tookMs = Instant.parse(done.get("finishedAt").asText()).toEpochMilli()
        - Instant.parse(done.get("createdAt").asText()).toEpochMilli();
    assertTrue(tookMs >= 1000, "6 at 5 a second (the first at once) take at least a second, took " + tookMs);

    JsonNode d = server.get("/v1/dlq?namespace=rate-e&status=redriven").json().get("deadLetters").get(0);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode item = server.get("/v1/items/" + d.get("redrivenTo").asText()).json();
      assertTrue(Set.of("DELAYED", "PARKED").contains(item.get("state").asText()), item::toString);
      long dueIn = Instant.parse(item.get("readyAt").asText()).toEpochMilli()
          - Instant.parse(item.get("enqueuedAt").asText()).toEpochMilli();
      assertTrue(dueIn >= 590_000 && dueIn <= 600_000, "due the delay after it was sent back: " + item);
    });
    assertEquals(0, server.post("/v1/namespaces/rate-e/dequeue", Map.of("topics", Map.of("jobs", 10), "waitMs", 500))
        .json().get("items").size(), "not before the delay");
  }

  /**
   * A slow redrive (1 a second) cancelled once it moved some: it stops before its next batch,
   * CANCELLED with what it moved, which stays moved (each once); the rest stay dead and a new
   * redrive sends exactly those back. A finished job cannot be cancelled (409).
   */
  @Test
  void aRedriveCancelledMidwayKeepsWhatItMovedAndLeavesTheRestDead() {
    List<String> ids = deadLetters(server, "cancel-e", "jobs", "c", 30, false);
    Reply started = server.post("/v1/dlq/redrive", "{\"filter\": {\"namespace\": \"cancel-e\"}, \"ratePerSecond\": 1}");
    assertEquals(202, started.status(), started::text);
    String job = started.json().get("job").asText();
    String path = "/v1/dlq/redrives/" + job;
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> server.get(path).json().get("redriven").asInt() >= 1);

    Reply cancel = server.post(path + "/cancel", "");
    assertEquals(202, cancel.status(), cancel::text);
    assertEquals(path, cancel.header("Location"));
    assertTrue(Set.of("CANCELLING", "CANCELLED").contains(cancel.json().get("status").asText()), cancel::text);
    assertTrue(cancel.json().hasNonNull("cancelRequestedAt"), cancel::text);
    Reply again = server.post(path + "/cancel", "{}");
    assertTrue(again.status() == 202 || again.status() == 409, "asked twice: no harm (" + again.text() + ")");
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
      last[0] = server.get(path).json();
      return Set.of("DONE", "FAILED", "CANCELLED").contains(last[0].get("status").asText());
    });
    JsonNode end = last[0];
    assertEquals("CANCELLED", end.get("status").asText(), end::toString);
    int moved = end.get("redriven").asInt();
    assertTrue(moved >= 1 && moved < 30, "stopped midway: " + end);
    assertTrue(end.hasNonNull("finishedAt"), end::toString);

    Reply finished = server.post(path + "/cancel", "{}");
    assertEquals(409, finished.status(), finished::text);
    assertTrue(finished.error().contains("CANCELLED") && finished.error().contains("PENDING or RUNNING"), finished::text);

    // Jobs run one at a time, oldest first: once a later one is done, the runner has long left this one.
    Reply later = server.post("/v1/dlq/purge", "{\"filter\": {\"namespace\": \"nobody-cancels\"}}");
    JsonNode laterDone = awaitJob(server, "/v1/dlq/purges/" + later.json().get("job").asText());
    assertEquals(0, laterDone.get("purged").asInt());
    Reply doneCancel = server.post("/v1/dlq/purges/" + later.json().get("job").asText() + "/cancel", "");
    assertEquals(409, doneCancel.status(), doneCancel::text);
    assertTrue(doneCancel.error().contains("DONE"), doneCancel::text);
    JsonNode after = server.get(path).json();
    assertEquals(moved, after.get("redriven").asInt(), "nothing moved after the cancel: " + after);
    assertEquals("CANCELLED", after.get("status").asText());

    Map<String, List<String>> sent = redrivenItems(kafka, CLUSTER, "read_committed");
    List<String> sentOfThese = ids.stream().filter(sent::containsKey).toList();
    assertEquals(moved, sentOfThese.size(), "the queue holds exactly what the job counts as moved");
    sentOfThese.forEach(id -> assertEquals(1, sent.get(id).size(), id + " sent once: " + sent.get(id)));
    assertEquals(30 - moved, server.get("/v1/dlq?namespace=cancel-e&limit=1000").json().get("deadLetters").size(),
        "the rest are still dead letters");

    Reply rest = server.post("/v1/dlq/redrive", "{\"filter\": {\"namespace\": \"cancel-e\"}}");
    JsonNode restDone = awaitJob(server, "/v1/dlq/redrives/" + rest.json().get("job").asText());
    assertEquals(30 - moved, restDone.get("redriven").asInt(), restDone::toString);
    assertEquals(moved, restDone.get("skipped").asInt(), "the ones the cancelled job moved stay moved");
    List<String> payloads = drain(server, "cancel-e", "jobs", 30);
    assertEquals(30, payloads.size(), payloads::toString);
    assertEquals(30, new TreeSet<>(payloads).size(), "each once: " + payloads);
  }

  @Test
  void cancellingAnUnknownJobIs404AndABadBody400() {
    Reply unknown = server.post("/v1/dlq/redrives/r-nope/cancel", "");
    assertEquals(404, unknown.status(), unknown::text);
    assertTrue(unknown.error().contains("r-nope"), unknown::text);
    Reply purgeJob = server.post("/v1/dlq/purge", "{\"filter\": {\"namespace\": \"nobody-at-all\"}}");
    String id = purgeJob.json().get("job").asText();
    assertEquals(404, server.post("/v1/dlq/redrives/" + id + "/cancel", "").status(), "a purge is not a redrive");
    Reply bad = server.post("/v1/dlq/purges/" + id + "/cancel", "{\"now\": true}");
    assertEquals(400, bad.status(), bad::text);
    assertTrue(bad.error().contains("now"), bad::text);
    Reply notJson = server.post("/v1/dlq/purges/" + id + "/cancel", "stop");
    assertEquals(400, notJson.status(), notJson::text);
  }

  @Test
  void badRequestsAnswer400NamingTheFieldAndUnknownIds404() {
    for (String[] c : new String[][] {
        {"/v1/dlq?limit=0", "limit"}, {"/v1/dlq?limit=x", "limit"}, {"/v1/dlq?reason=LOST", "reason"},
        {"/v1/dlq?from=yesterday", "from"}, {"/v1/dlq?to=2026-13-01T00:00:00Z", "to"},
        {"/v1/dlq?status=gone", "status"}, {"/v1/dlq?cursor=abc", "cursor"}, {"/v1/dlq?namspace=a", "namspace"},
        {"/v1/dlq?namespace=a%2Fb", "namespace"}, {"/v1/dlq/nope", "dead-letter ID"},
        {"/v1/dlq?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from must be before to"}}) {
      Reply r = server.get(c[0]);
      assertEquals(400, r.status(), c[0] + ": " + r.text());
      assertTrue(r.error().contains(c[1]), c[0] + ": " + r.text());
    }
    for (String[] c : new String[][] {
        {"{}", "ids"}, {"{\"all\": true, \"ids\": [\"0-1\"]}", "not several"}, {"{\"filter\": {}}", "filter is empty"},
        {"{\"ids\": [\"x\"]}", "ids"}, {"{\"ids\": []}", "ids"}, {"{\"ids\": [5]}", "ids"},
        {"{\"all\": true, \"ratePerSecond\": 0}", "ratePerSecond"}, {"{\"all\": true, \"ratePerSecond\": \"fast\"}", "ratePerSecond"},
        {"{\"all\": true, \"delayMs\": -1}", "delayMs"}, {"{\"all\": true, \"priority\": \"high\"}", "priority"},
        {"{\"all\": true, \"namespace\": \"a/b\"}", "namespace"}, {"{\"all\": true, \"topic\": \"*\"}", "topic"},
        {"{\"all\": true, \"prio\": 1}", "prio"}, {"{\"filter\": {\"reason\": \"LOST\"}}", "filter.reason"},
        {"{\"filter\": {\"from\": \"now\"}}", "filter.from"}, {"{\"filter\": {\"name\": \"a\"}}", "name"},
        {"{\"filter\": 3}", "filter"}}) {
      Reply r = server.post("/v1/dlq/redrive", c[0]);
      assertEquals(400, r.status(), c[0] + ": " + r.text());
      assertTrue(r.error().contains(c[1]), c[0] + ": " + r.text());
    }
    Reply purge = server.post("/v1/dlq/purge", "{\"all\": true, \"ratePerSecond\": 5}");
    assertEquals(400, purge.status(), purge::text);
    assertTrue(purge.error().contains("ratePerSecond"), purge::text);

    Reply unknown = server.get("/v1/dlq/0-99999999");
    assertEquals(404, unknown.status(), unknown::text);
    assertTrue(unknown.error().contains("unknown dead letter 0-99999999"), unknown::text);
    assertEquals(404, server.get("/v1/dlq/999-0").status());
    Reply unknownIds = server.post("/v1/dlq/redrive", Map.of("ids", List.of("0-99999999", "77-1")));
    assertEquals(404, unknownIds.status(), unknownIds::text);
    assertTrue(unknownIds.error().contains("0-99999999") && unknownIds.error().contains("77-1"), unknownIds::text);
    assertEquals(404, server.get("/v1/dlq/redrives/r-nope").status());
    Reply purgeJob = server.post("/v1/dlq/purge", "{\"filter\": {\"namespace\": \"nobody-here\"}}");
    assertEquals(202, purgeJob.status(), purgeJob::text);
    assertEquals(404, server.get("/v1/dlq/redrives/" + purgeJob.json().get("job").asText()).status(),
        "a purge is not a redrive");
    assertNull(server.get("/v1/dlq?namespace=nobody-here").json().get("nextCursor").textValue());
  }
}
