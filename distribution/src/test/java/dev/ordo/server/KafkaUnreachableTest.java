package dev.ordo.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.api.ItemId;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka unreachable (issue 17): {@code ordo server}'s HTTP API and a Java {@link QueueProducer}
 * while the cluster's only broker is stopped, then started again.
 *
 * <ul>
 *   <li>Every HTTP request made while Kafka is away gets an answer within its own timeout (the
 *       server's: 30 s for an enqueue, the wait plus 15 s for a dequeue, 15 s for the rest), none
 *       hangs; a request sent once the server has had time to notice ({@link #NOTICE_MS}) and
 *       answered while Kafka is still away is answered 503 (Kafka unreachable, with
 *       {@code Retry-After}), never a success it could not know about and never a 504 (which would
 *       mean it may still apply); before that, 504 at a request's timeout. {@code /health} says 503
 *       while Kafka is away.</li>
 *   <li>The Java producer's {@code enqueue} calls return at once while Kafka is away, their items
 *       buffered, and every one of them is written once Kafka is back: no item lost.</li>
 *   <li>Without a restart of the server, {@code /health} is UP again, and every item known to be
 *       enqueued (the producer's, the HTTP 201s, the items leased before the outage and not acked)
 *       is then dequeued and acked over HTTP.</li>
 * </ul>
 *
 * <p>The outage lasts {@link #OUTAGE}, a minute as issue 17 asks: it outlasts every HTTP timeout
 * above (so each kind of request answers at least once while Kafka is away) and the 30 s Kafka
 * Streams and client request timeouts that matter here, and stays under the producer's
 * {@code delivery.timeout.ms} (2 min), past which Kafka itself gives buffered records up.
 */
@KafkaCluster
class KafkaUnreachableTest {
  static final Duration OUTAGE = Duration.ofSeconds(60);
  private static final String NS = "outage";
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * How long the server may take to notice that Kafka is away: it asks every second, waiting 3 s for
   * an answer (about 4 s), and a margin for a busy machine. Requests sent before that may still be
   * answered from what the server holds (an item look-up from its store, topic counts from its table,
   * an empty dequeue): correct, if stale; or 504 at their timeout (they may still apply). Requests
   * sent after it are answered 503 at once, before anything is sent (decisions D26).
   */
  private static final long NOTICE_MS = 8_000;
  /** Beyond a request's own timeout, what the test allows for scheduling on a busy 2-core machine. */
  private static final long MARGIN_MS = 5_000;

  @TempDir
  Path tmp;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  /** One HTTP exchange: what was asked, when, its status (or -1 when it never answered) and how long it took. */
  record Exchange(String what, long sentAt, long answeredAt, int status, String body, long boundMs) {
    long tookMs() {
      return answeredAt - sentAt;
    }

    @Override
    public String toString() {
      return what + " -> " + status + " in " + tookMs() + " ms" + (status >= 400 ? " " + body : "");
    }
  }

  @Test
  void httpAnswers503WhileKafkaIsAwayAndEverythingResumesWithNothingLost(RealKafka kafka) throws Exception {
    int brokerId = kafka.brokers().keySet().iterator().next();
    try (TestServer server = TestServer.start(kafka, "unreach", tmp.resolve("server"));
        QueueProducer producer = new QueueProducer(Map.of("bootstrap.servers", kafka.bootstrapServers(),
            QueueProducerConfig.CLUSTER_CONFIG, "unreach"))) {
      // Before the outage: items enqueued both ways, five leased over HTTP and held for the outage's commands.
      Set<String> mustEnd = ConcurrentHashMap.newKeySet(); // every item that must be acked in the end
      Set<String> mayEnd = ConcurrentHashMap.newKeySet(); // items an outage command may have acked or cancelled
      for (int i = 0; i < 20; i++) {
        mustEnd.add(producer.enqueue(item("before-java-" + i)).get(30, TimeUnit.SECONDS).toString());
      }
      for (int i = 0; i < 5; i++) {
        JsonNode r = json(call("POST", server, "/v1/namespaces/" + NS + "/topics/t/items",
            "{\"payload\": \"before-http-" + i + "\", \"leaseMs\": 5000}", 30_000));
        mustEnd.add(r.get("id").asText());
      }
      List<JsonNode> held = new ArrayList<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        Exchange e = call("POST", server, "/v1/namespaces/" + NS + "/dequeue",
            "{\"topics\": {\"t\": " + (5 - held.size()) + "}, \"waitMs\": 2000}", 20_000);
        assertEquals(200, e.status(), e::toString);
        JSON.readTree(e.body()).get("items").forEach(held::add);
        return held.size() >= 5;
      });
      String lookupId = held.get(0).get("id").asText();
      mayEnd.add(held.get(0).get("id").asText()); // acked during the outage (one by one and in a batch)
      mayEnd.add(held.get(4).get("id").asText()); // cancelled during the outage
      assertEquals(200, call("GET", server, "/health", null, 5_000).status());

      // The outage.
      long stoppedAt = System.currentTimeMillis();
      kafka.stopBroker(brokerId);
      List<CompletableFuture<Exchange>> exchanges = new ArrayList<>();
      List<CompletableFuture<ItemId>> buffered = new CopyOnWriteArrayList<>();
      List<Long> enqueueCallMs = new ArrayList<>();
      long restartAt = stoppedAt + OUTAGE.toMillis();
      int round = 0;
      while (System.currentTimeMillis() < restartAt) {
        // Every kind of request, once a round, concurrently; and a few items through the Java producer.
        exchanges.addAll(outageRound(server, held, lookupId, round));
        for (int i = 0; i < 5; i++) {
          long t0 = System.nanoTime();
          buffered.add(producer.enqueue(item("outage-java-" + round + "-" + i)));
          enqueueCallMs.add((System.nanoTime() - t0) / 1_000_000);
        }
        round++;
        // Paced: the next round at most a couple of seconds later (the rounds themselves answer asynchronously).
        long next = Math.min(stoppedAt + round * 2_000L, restartAt);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
            .until(() -> System.currentTimeMillis() >= next);
      }
      // Health while still away (the queue's stream thread has had the whole outage to notice).
      Exchange healthAway = call("GET", server, "/health", null, 5_000);
      long startedAt = System.currentTimeMillis();
      kafka.startBroker(brokerId);
      long backAt = System.currentTimeMillis();

      // Every request got an answer within its bound, and none claimed a success Kafka could not have given.
      List<Exchange> done = new ArrayList<>();
      for (CompletableFuture<Exchange> f : exchanges) {
        done.add(f.get(120, TimeUnit.SECONDS));
      }
      Map<String, Map<Integer, Integer>> byKind = new TreeMap<>();
      List<String> problems = new ArrayList<>();
      for (Exchange e : done) {
        byKind.computeIfAbsent(e.what(), k -> new TreeMap<>()).merge(e.status(), 1, Integer::sum);
        if (e.status() < 0 || e.tookMs() > e.boundMs() + MARGIN_MS) {
          problems.add("no answer within " + e.boundMs() + " ms: " + e);
        } else if (e.sentAt() >= stoppedAt + NOTICE_MS && e.answeredAt() < startedAt && e.status() != 503) {
          problems.add("sent after the server noticed that Kafka was away and answered while it was, not with 503: " + e);
        }
      }
      System.out.printf("KafkaUnreachableTest: %d requests over %d rounds while Kafka was away %d ms;"
              + " broker start took %d ms; statuses by request: %s%n",
          done.size(), round, startedAt - stoppedAt, backAt - startedAt, byKind);
      assertEquals(List.of(), problems);
      assertEquals(503, healthAway.status(), () -> "health while Kafka is away: " + healthAway);
      for (String kind : byKind.keySet()) {
        // Each kind answered 503 at least once: the outage outlasted the server's notice.
        Map<Integer, Integer> statuses = byKind.get(kind);
        assertTrue(statuses.containsKey(503), kind + " never said Kafka was away: " + statuses);
      }
      assertTrue(enqueueCallMs.stream().allMatch(ms -> ms < 2_000),
          "QueueProducer.enqueue returned at once while Kafka was away (ms): " + enqueueCallMs);

      // Kafka is back: the buffered items are written, the server is healthy again without a restart.
      for (CompletableFuture<ItemId> f : buffered) {
        mustEnd.add(f.get(90, TimeUnit.SECONDS).toString());
      }
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
          .until(() -> call("GET", server, "/health", null, 5_000).status() == 200);
      long healthyAt = System.currentTimeMillis();
      for (Exchange e : done) {
        if (e.what().equals("enqueue") && e.status() == 201) {
          mustEnd.add(json(e).get("id").asText());
        } else if (e.what().equals("enqueue-batch") && e.status() == 201) {
          mustEnd.add(json(e).get("results").get(0).get("id").asText());
        }
      }
      JsonNode after = json(call("POST", server, "/v1/namespaces/" + NS + "/topics/t/items",
          "{\"payload\": \"after\", \"leaseMs\": 5000}", 30_000));
      mustEnd.add(after.get("id").asText());
      mustEnd.removeAll(mayEnd); // an outage command (ack, cancel) may have ended these once Kafka was back

      // Nothing lost: every item known to be enqueued is dequeued and acked (items leased to requests
      // answered 504 come back when their 5 s leases run out).
      Set<String> acked = ConcurrentHashMap.newKeySet();
      Map<String, String> unexpected = new ConcurrentHashMap<>();
      Map<Integer, Integer> dequeueStatuses = new TreeMap<>();
      long drainDeadline = System.currentTimeMillis() + 90_000;
      while (!acked.containsAll(mustEnd)) {
        if (System.currentTimeMillis() > drainDeadline) {
          Set<String> missing = new java.util.TreeSet<>(mustEnd);
          missing.removeAll(acked);
          List<String> lookups = new ArrayList<>();
          for (String id : missing.stream().limit(5).toList()) {
            lookups.add(call("GET", server, "/v1/items/" + id, null, 15_000).toString() + " "
                + call("GET", server, "/v1/items/" + id, null, 15_000).body());
          }
          throw new AssertionError("items lost: " + missing.size() + " of " + mustEnd.size() + " never dequeued: "
              + missing + "; dequeue statuses " + dequeueStatuses + "; look-ups " + lookups
              + "; topics " + call("GET", server, "/v1/namespaces/" + NS + "/topics", null, 15_000).body());
        }
        Exchange e = call("POST", server, "/v1/namespaces/" + NS + "/dequeue",
            "{\"topics\": {\"*\": 100}, \"waitMs\": 1000}", 20_000);
        dequeueStatuses.merge(e.status(), 1, Integer::sum);
        if (e.status() != 200) {
          continue;
        }
        for (JsonNode item : json(e).get("items")) {
          String id = item.get("id").asText();
          String payload = item.get("payload").asText();
          if (!mustEnd.contains(id) && !mayEnd.contains(id) && !payload.startsWith("outage-http-")) {
            unexpected.put(id, payload); // an HTTP enqueue answered 504 may still have been written
          }
          Exchange ack = call("POST", server, "/v1/items/" + id + "/ack",
              "{\"lease\": \"" + item.get("lease").asText() + "\"}", 20_000);
          if (ack.status() == 200) {
            acked.add(id);
          }
        }
      }
      System.out.printf("KafkaUnreachableTest: healthy %d ms after the broker was back; %d items acked,"
          + " %d of them written from the producer's buffer%n", healthyAt - backAt, acked.size(), buffered.size());
      assertEquals(Map.of(), unexpected, "items dequeued that nobody enqueued");
      assertTrue(buffered.size() >= 20, "the producer buffered items during the outage: " + buffered.size());
    }
  }

  /** One round of every kind of request, sent concurrently; each future completes with its exchange. */
  private List<CompletableFuture<Exchange>> outageRound(TestServer server, List<JsonNode> held, String lookupId, int round) {
    List<CompletableFuture<Exchange>> out = new ArrayList<>();
    String ns = "/v1/namespaces/" + NS;
    out.add(async("health", "GET", server, "/health", null, 5_000));
    out.add(async("enqueue", "POST", server, ns + "/topics/t/items",
        "{\"payload\": \"outage-http-" + round + "\", \"leaseMs\": 5000}", 30_000));
    out.add(async("enqueue-batch", "POST", server, ns + "/items",
        "{\"items\": [{\"topic\": \"t\", \"payload\": \"outage-http-batch-" + round + "\", \"leaseMs\": 5000}]}", 15_000));
    out.add(async("dequeue", "POST", server, ns + "/dequeue", "{\"topics\": {\"t\": 1}, \"waitMs\": 1000}", 16_000));
    out.add(async("topics", "GET", server, ns + "/topics", null, 15_000));
    out.add(async("lookup", "GET", server, "/v1/items/" + lookupId, null, 15_000));
    out.add(async("policy-get", "GET", server, ns + "/policy", null, 30_000)); // NamespaceAdmin's 30 s
    out.add(async("schedule", "POST", server, "/v1/schedule",
        "{\"topic\": \"unreach.items\", \"value\": \"x\", \"delayMs\": 60000}", 30_000));
    String lease1 = held.get(1).get("lease").asText();
    out.add(async("ack", "POST", server, "/v1/items/" + held.get(0).get("id").asText() + "/ack",
        "{\"lease\": \"" + held.get(0).get("lease").asText() + "\"}", 15_000));
    out.add(async("nack", "POST", server, "/v1/items/" + held.get(1).get("id").asText() + "/nack",
        "{\"lease\": \"" + lease1 + "\", \"delayMs\": 100}", 15_000));
    out.add(async("extend", "POST", server, "/v1/items/" + held.get(2).get("id").asText() + "/extend",
        "{\"lease\": \"" + held.get(2).get("lease").asText() + "\", \"leaseMs\": 5000}", 15_000));
    out.add(async("release", "POST", server, "/v1/items/" + held.get(3).get("id").asText() + "/release",
        "{\"lease\": \"" + held.get(3).get("lease").asText() + "\"}", 15_000));
    out.add(async("cancel", "POST", server, "/v1/items/" + held.get(4).get("id").asText() + "/cancel", "", 15_000));
    out.add(async("ack-batch", "POST", server, "/v1/items/ack",
        "{\"items\": [{\"id\": \"" + held.get(0).get("id").asText() + "\", \"lease\": \""
            + held.get(0).get("lease").asText() + "\"}]}", 15_000));
    return out;
  }

  private CompletableFuture<Exchange> async(String what, String method, TestServer server, String path, String body,
      long boundMs) {
    HttpRequest request = request(method, server, path, body);
    long sentAt = System.currentTimeMillis();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
        .handle((r, e) -> new Exchange(what, sentAt, System.currentTimeMillis(), r == null ? -1 : status(what, r),
            r == null ? String.valueOf(e) : r.body(), boundMs));
  }

  /** The HTTP status; for a batch of one entry (answered 200 as a whole), the entry's status. */
  private static int status(String what, HttpResponse<String> r) {
    if (!what.endsWith("-batch") || r.statusCode() != 200) {
      return r.statusCode();
    }
    try {
      return JSON.readTree(r.body()).get("results").get(0).get("status").asInt();
    } catch (Exception e) {
      return -2;
    }
  }

  private Exchange call(String method, TestServer server, String path, String body, long boundMs) throws Exception {
    return async(method + " " + path, method, server, path, body, boundMs).get(90, TimeUnit.SECONDS);
  }

  private HttpRequest request(String method, TestServer server, String path, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.address() + path))
        .timeout(Duration.ofSeconds(60)) // longer than every server-side timeout: a hang shows as status -1
        .header("Content-Type", "application/json");
    return switch (method) {
      case "GET" -> b.GET().build();
      case "POST" -> b.POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body)).build();
      default -> throw new IllegalArgumentException(method);
    };
  }

  private static JsonNode json(Exchange e) throws Exception {
    assertTrue(e.status() >= 200 && e.status() < 300 || e.what().endsWith("-batch"), e::toString);
    return JSON.readTree(e.body());
  }

  private static EnqueueRequest item(String payload) {
    return EnqueueRequest.builder(NS, "t", payload.getBytes(StandardCharsets.UTF_8)).lease(Duration.ofSeconds(5)).build();
  }
}
