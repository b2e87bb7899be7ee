package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.api.ItemId;
import dev.ordo.api.Shards;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueItem;
import dev.ordo.server.ServerConfig;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.server.TestServer;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Namespace policies over HTTP, against a running server on a real Kafka cluster. */
@KafkaCluster
class NamespaceApiTest {
  @TempDir
  static Path tmp;

  private static TestServer server;

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.start(kafka, "nspol", tmp.resolve("server"));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aPolicyIsSetReadAppliedToNewItemsAndDeleted() {
    assertEquals(404, server.get("/v1/namespaces/tenant-a/policy").status(), "no policy yet");

    Reply put = server.put("/v1/namespaces/tenant-a/policy",
        "{\"defaults\": {\"leaseMs\": 120000, \"maxAttempts\": 2, \"maxPayloadBytes\": 8}}");
    assertEquals(200, put.status(), put::text);
    Reply got = server.get("/v1/namespaces/tenant-a/policy");
    assertEquals(200, got.status(), got::text);
    assertEquals(120_000, got.json().get("defaults").get("leaseMs").asLong());
    assertEquals(2, got.json().get("defaults").get("maxAttempts").asInt());
    assertFalse(got.json().get("defaults").has("ttlMs"), "fields not set stay unset");

    // Every partition's processor reads the policy from its global store, soon after the write.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Reply r = server.post("/v1/namespaces/tenant-a/topics/jobs/items", Map.of("payload", "x"));
      assertEquals(201, r.status(), r::text);
      JsonNode item = server.post("/v1/namespaces/tenant-a/dequeue", Map.of("topics", Map.of("jobs", 1), "waitMs", 5000))
          .json().get("items").get(0);
      long leaseLeft = Instant.parse(item.get("leaseExpiresAt").asText()).toEpochMilli() - System.currentTimeMillis();
      assertEquals(200, server.post("/v1/items/" + item.get("id").asText() + "/ack",
          Map.of("lease", item.get("lease").asText())).status());
      assertTrue(leaseLeft > 60_000, "the policy's lease of 120 s, not the server's 30 s: " + leaseLeft);
    });

    // The namespace's payload limit: a larger item is dead-lettered by the queue, never delivered.
    assertEquals(201, server.post("/v1/namespaces/tenant-a/topics/big/items", Map.of("payload", "123456789")).status());
    assertEquals(0, server.post("/v1/namespaces/tenant-a/dequeue", Map.of("topics", Map.of("big", 1), "waitMs", 1000))
        .json().get("items").size());

    Reply groups = server.put("/v1/namespaces/tenant-a/policy", "{\"groupConcurrency\": 4, "
        + "\"groupConcurrencyOverrides\": {\"bob\": 1}, \"groupWeights\": {\"alice\": 3, \"bob\": 0.5}, "
        + "\"topicWeights\": {\"emails\": 3, \"sms\": 1}}");
    assertEquals(200, groups.status(), groups::text);
    JsonNode g = server.get("/v1/namespaces/tenant-a/policy").json();
    assertEquals(4, g.get("groupConcurrency").asInt());
    assertEquals(1, g.get("groupConcurrencyOverrides").get("bob").asInt());
    assertEquals(3.0, g.get("groupWeights").get("alice").asDouble());
    assertEquals(0.5, g.get("groupWeights").get("bob").asDouble());
    assertEquals(3.0, g.get("topicWeights").get("emails").asDouble());
    assertEquals(1.0, g.get("topicWeights").get("sms").asDouble());
    assertFalse(g.has("defaults"), "a PUT replaces the whole policy");
    assertFalse(g.has("ordered"), "not ordered unless said");

    Reply rates = server.put("/v1/namespaces/tenant-a/policy", "{\"groupRate\": {\"perSecond\": 2, \"burst\": 5}, "
        + "\"groupRateOverrides\": {\"big\": {\"perSecond\": 50}, \"tiny\": {\"perSecond\": 0.5, \"burst\": 1}}}");
    assertEquals(200, rates.status(), rates::text);
    JsonNode gr = server.get("/v1/namespaces/tenant-a/policy").json();
    assertEquals(2.0, gr.get("groupRate").get("perSecond").asDouble(), gr::toString);
    assertEquals(5, gr.get("groupRate").get("burst").asLong(), gr::toString);
    assertEquals(50, gr.get("groupRateOverrides").get("big").get("burst").asLong(), "one second's worth by default");
    assertEquals(0.5, gr.get("groupRateOverrides").get("tiny").get("perSecond").asDouble(), gr::toString);
    assertFalse(gr.has("groupConcurrency"), gr::toString);

    Reply ordered = server.put("/v1/namespaces/tenant-a/policy",
        "{\"ordered\": true, \"orderedTopics\": {\"free\": false, \"fifo\": true}}");
    assertEquals(200, ordered.status(), ordered::text);
    JsonNode o = server.get("/v1/namespaces/tenant-a/policy").json();
    assertTrue(o.get("ordered").asBoolean(), o::toString);
    assertFalse(o.get("orderedTopics").get("free").asBoolean(), o::toString);
    assertTrue(o.get("orderedTopics").get("fifo").asBoolean(), o::toString);
    assertFalse(o.has("shards"), "one partition per group key unless said");

    Reply sharded = server.put("/v1/namespaces/tenant-a/policy", "{\"shards\": 2, \"groupConcurrency\": 3}");
    assertEquals(200, sharded.status(), sharded::text);
    JsonNode s = server.get("/v1/namespaces/tenant-a/policy").json();
    assertEquals(2, s.get("shards").asInt(), s::toString);
    assertEquals(3, s.get("groupConcurrency").asInt(), s::toString);

    Reply deleted = server.delete("/v1/namespaces/tenant-a/policy");
    assertEquals(200, deleted.status(), deleted::text);
    assertEquals(404, server.get("/v1/namespaces/tenant-a/policy").status());
  }

  /**
   * Topic weights (docs/queue.md, "Topic weights") on a real cluster: a namespace-wide dequeue shares
   * its items 3:1 between topics of weights 3 and 1, over HTTP and over a {@link QueueClient}, and the
   * turns outlive a dequeue. All items share a group key, so they sit on one partition, where the share
   * is exact. The weight-1 topic's items are the older; without the weights the ready order (each
   * topic's group slots) takes one of each topic in turn: 20 and 20 of 40, not 30 and 10 (measured with
   * the planner's weights switched off).
   */
  @Test
  void aDequeueOverEveryTopicSharesItsItemsByTopicWeight(RealKafka kafka) throws Exception {
    Reply put = server.put("/v1/namespaces/tenant-w/policy", "{\"topicWeights\": {\"a\": 3}}");
    assertEquals(200, put.status(), put::text);
    assertEquals(3.0, put.json().get("topicWeights").get("a").asDouble(), put::text);
    await().atMost(Duration.ofSeconds(30))
        .until(() -> server.get("/v1/namespaces/tenant-w/policy").json().path("topicWeights").has("a"));

    List<Map<String, Object>> entries = new ArrayList<>();
    for (String topic : List.of("b", "a")) { // b first: the older items
      for (int i = 0; i < 50; i++) {
        entries.add(Map.of("topic", topic, "payload", topic + i, "groupKey", "one-partition"));
      }
    }
    Reply enqueued = server.post("/v1/namespaces/tenant-w/items", Map.of("items", entries));
    assertEquals(200, enqueued.status(), enqueued::text);
    for (JsonNode r : enqueued.json().get("results")) {
      assertEquals(201, r.get("status").asInt(), r::toString);
    }
    // The dequeue asks the partitions the stats show items on: wait until they show all hundred.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      JsonNode topics = server.get("/v1/namespaces/tenant-w/topics").json().get("topics");
      assertEquals(2, topics.size(), topics::toString);
      for (JsonNode t : topics) {
        assertEquals(50, t.get("ready").asLong(), topics::toString);
      }
    });

    List<Map<String, String>> leases = new ArrayList<>();
    JsonNode got = server.post("/v1/namespaces/tenant-w/dequeue", Map.of("topics", Map.of("*", 40), "waitMs", 5000))
        .json().get("items");
    Map<String, Integer> http = new java.util.TreeMap<>();
    List<String> payloads = new ArrayList<>();
    for (JsonNode item : got) {
      http.merge(item.get("topic").asText(), 1, Integer::sum);
      payloads.add(item.get("payload").asText());
      leases.add(Map.of("id", item.get("id").asText(), "lease", item.get("lease").asText()));
    }
    assertEquals(Map.of("a", 30, "b", 10), http, "3:1 over HTTP: " + payloads);

    // The Java path, a client of its own on the same partition: the turns outlive a dequeue, 3:1 again.
    try (QueueClient client = new QueueClient(Map.of("bootstrap.servers", kafka.bootstrapServers(),
        QueueClientConfig.CLUSTER_CONFIG, "nspol"))) {
      List<QueueItem> items = client.dequeue("tenant-w", Map.of("*", 20), Duration.ofSeconds(5))
          .get(30, TimeUnit.SECONDS);
      Map<String, Integer> java = new java.util.TreeMap<>();
      for (QueueItem item : items) {
        java.merge(item.topic(), 1, Integer::sum);
      }
      assertEquals(Map.of("a", 15, "b", 5), java, "3:1 over QueueClient, the turns going on: "
          + items.stream().map(QueueItem::topic).toList());
      for (QueueItem item : items) {
        client.ack(item).get(30, TimeUnit.SECONDS);
      }
    }
    Reply acked = server.post("/v1/items/ack", Map.of("items", leases));
    assertEquals(200, acked.status(), acked::text);
    for (JsonNode r : acked.json().get("results")) {
      assertEquals(200, r.get("status").asInt(), r::toString);
    }
  }

  /**
   * Shuffle sharding and deduplication IDs (docs/queue.md, "Shuffle sharding"; decisions D62) on a real
   * cluster: under {@code shards: 2} a grouped item with a dedupId goes to the shard of the group's two
   * that its ID hashes to, never the less loaded, so the same (group, dedupId) sent again meets the first
   * on its partition: 200, {@code "duplicate": true} and the first item's ID. Two IDs, one on each shard;
   * a choice by backlog would send each duplicate to the other shard (the first item's makes its own the
   * more loaded), where it would be taken in as new.
   */
  @Test
  void aGroupedItemWithADedupIdUnderShardsMeetsItsDuplicate() {
    Reply put = server.put("/v1/namespaces/tenant-s/policy", "{\"shards\": 2}");
    assertEquals(200, put.status(), put::text);
    String group = "acme";
    int[] shards = Shards.of(group, 2, ServerConfig.DEFAULT_PARTITIONS);
    int[] next = {0};
    // The server's producer shards once it has read the policy; until then a grouped item goes to its
    // group key's own partition, the first shard. An item whose ID picks the second lands there from then on.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
      Reply r = server.post("/v1/namespaces/tenant-s/topics/warm/items",
          Map.of("payload", "w", "groupKey", group, "dedupId", dedupIdOn(shards, 1, "tenant-s", "warm", next)));
      assertEquals(201, r.status(), r::text);
      return ItemId.parse(r.json().get("id").asText()).partition() == shards[1];
    });
    for (int shard = 0; shard < 2; shard++) {
      String dedupId = dedupIdOn(shards, shard, "tenant-s", "orders", next);
      Reply first = server.post("/v1/namespaces/tenant-s/topics/orders/items",
          Map.of("payload", "first", "groupKey", group, "dedupId", dedupId));
      assertEquals(201, first.status(), first::text);
      assertFalse(first.json().get("duplicate").asBoolean(), first::text);
      String firstId = first.json().get("id").asText();
      assertEquals(shards[shard], ItemId.parse(firstId).partition(), "the shard its ID hashes to: " + first.text());
      Reply again = server.post("/v1/namespaces/tenant-s/topics/orders/items",
          Map.of("payload", "again", "groupKey", group, "dedupId", dedupId));
      assertEquals(200, again.status(), again::text);
      assertTrue(again.json().get("duplicate").asBoolean(), again::text);
      assertEquals(firstId, again.json().get("id").asText(), "the first item's ID: " + again.text());
    }
  }

  /** A new dedup ID ({@code id-<n>}) that {@link Shards#forDedup} puts on {@code shards[index]}. */
  private static String dedupIdOn(int[] shards, int index, String namespace, String topic, int[] next) {
    while (true) {
      String id = "id-" + next[0]++;
      if (Shards.forDedup(shards, namespace, topic, id) == shards[index]) {
        return id;
      }
    }
  }

  @Test
  void badValuesAnswer400NamingTheFieldAndChangeNothing() {
    assertEquals(200, server.put("/v1/namespaces/tenant-b/policy", "{\"defaults\": {\"ttlMs\": 60000}}").status());
    for (String[] c : new String[][] {
        {"{\"defaults\": {\"leaseMs\": 0}}", "defaults.leaseMs"},
        {"{\"defaults\": {\"maxAttempts\": 0}}", "defaults.maxAttempts"},
        {"{\"defaults\": {\"ttlMs\": 0}}", "defaults.ttlMs"},
        {"{\"defaults\": {\"maxPayloadBytes\": -1}}", "defaults.maxPayloadBytes"},
        {"{\"defaults\": {\"atMostOnce\": \"yes\"}}", "defaults.atMostOnce"},
        {"{\"defaults\": {\"leasems\": 5}}", "leasems"},
        {"{\"defaultz\": {}}", "defaultz"},
        {"{\"admissionRate\": {\"perSecond\": 0}}", "admissionRate.perSecond"},
        {"{\"admissionRate\": {\"perSecond\": \"fast\"}}", "admissionRate.perSecond"},
        {"{\"admissionRate\": {\"burst\": 5}}", "admissionRate.perSecond is missing"},
        {"{\"admissionRate\": {\"perSecond\": 10, \"burst\": 0}}", "admissionRate.burst"},
        {"{\"admissionRate\": {\"perSecond\": 10, \"bursts\": 3}}", "bursts"},
        {"{\"maxBacklog\": 0}", "maxBacklog"},
        {"{\"maxBacklog\": 1.5}", "maxBacklog"},
        {"{\"dispatchRate\": {\"perSecond\": -1}}", "dispatchRate.perSecond"},
        {"{\"dispatchRate\": {\"perSecond\": 10, \"burst\": 0}}", "dispatchRate.burst"},
        {"{\"sidelineAfterMs\": 0}", "sidelineAfterMs"},
        {"{\"groupWeights\": {\"a\": 0}}", "groupWeights.a"},
        {"{\"groupWeights\": [2]}", "groupWeights must be an object"},
        {"{\"groupConcurrency\": 0}", "groupConcurrency"},
        {"{\"groupRate\": {\"perSecond\": 0}}", "groupRate.perSecond"},
        {"{\"groupRate\": {\"perSecond\": 2, \"burst\": 0}}", "groupRate.burst"},
        {"{\"groupRate\": 2}", "groupRate."},
        {"{\"groupRateOverrides\": {\"big\": {\"perSecond\": -1}}}", "groupRateOverrides.big.perSecond"},
        {"{\"groupRateOverrides\": {\"big\": {\"burst\": 3}}}", "groupRateOverrides.big.perSecond is missing"},
        {"{\"groupRateOverrides\": [1]}", "groupRateOverrides must be an object"},
        {"{\"topicWeights\": {\"emails\": 0}}", "topicWeights.emails"},
        {"{\"topicWeights\": [2]}", "topicWeights must be an object"},
        {"{\"groupConcurrencyOverrides\": {\"bob\": 1.5}}", "groupConcurrencyOverrides.bob"},
        {"{\"ordered\": \"yes\"}", "ordered must be true or false"},
        {"{\"ordered\": 1}", "ordered must be true or false"},
        {"{\"orderedTopics\": [\"t\"]}", "orderedTopics must be an object"},
        {"{\"orderedTopics\": {\"t\": \"on\"}}", "orderedTopics.t must be true or false"},
        {"{\"orderedTopics\": {\"t\": null}}", "orderedTopics.t must be true or false"},
        {"{\"orderedTopics\": {\"a/b\": true}}", "orderedTopics"},
        {"{\"shards\": 0}", "shards"},
        {"{\"shards\": 40}", "shards must be between 1 and 32"}}) {
      Reply r = server.put("/v1/namespaces/tenant-b/policy", c[0]);
      assertEquals(400, r.status(), c[0] + ": " + r.text());
      assertTrue(r.json().get("error").asText().contains(c[1]), c[0] + ": " + r.text());
    }
    Reply bad = server.put("/v1/namespaces/bad%01name/policy", "{}");
    assertEquals(400, bad.status(), bad::text);
    assertTrue(bad.json().get("error").asText().contains("namespace"), bad::text);
    assertEquals(60_000, server.get("/v1/namespaces/tenant-b/policy").json().get("defaults").get("ttlMs").asLong(),
        "the refused PUTs left the policy as it was");
    assertFalse(server.get("/v1/namespaces/tenant-b/policy").json().has("admissionRate"));
  }

  @Test
  void itemsOverTheAdmissionRateWaitInOverflowAndAreAllAdmitted() {
    Reply put = server.put("/v1/namespaces/tenant-c/policy", "{\"admissionRate\": {\"perSecond\": 4, \"burst\": 1}}");
    assertEquals(200, put.status(), put::text);
    assertEquals(4.0, put.json().get("admissionRate").get("perSecond").asDouble());
    assertEquals(1, put.json().get("admissionRate").get("burst").asLong());
    await().atMost(Duration.ofSeconds(30)).until(() -> server.get("/v1/namespaces/tenant-c/policy").status() == 200);
    String last = null;
    for (int i = 0; i < 12; i++) {
      Reply r = server.post("/v1/namespaces/tenant-c/topics/surge/items", Map.of("payload", "s" + i));
      assertEquals(201, r.status(), r::text);
      last = r.json().get("id").asText();
    }
    // An item look-up shows the state of the last one, which waits longest (about 3 s at 4/s, burst 1).
    String lastId = last;
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
      Reply item = server.get("/v1/items/" + lastId);
      assertEquals(200, item.status(), item::text);
      assertEquals("OVERFLOW", item.json().get("state").asText(), item::text);
    });
    // The topic's stats show what waits.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode topic = server.get("/v1/namespaces/tenant-c/topics").json().get("topics").get(0);
      assertEquals(12, topic.get("ready").asLong() + topic.get("overflow").asLong(), topic::toString);
      assertTrue(topic.get("overflow").asLong() > 0, topic::toString);
    });
    // At 4/s every item comes in within a few seconds, none lost, none twice.
    java.util.Set<String> payloads = new java.util.HashSet<>();
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      for (JsonNode item : server.post("/v1/namespaces/tenant-c/dequeue",
          Map.of("topics", Map.of("surge", 12), "waitMs", 500)).json().get("items")) {
        assertTrue(payloads.add(item.get("payload").asText()), "delivered twice: " + item);
        server.post("/v1/items/" + item.get("id").asText() + "/ack", Map.of("lease", item.get("lease").asText()));
      }
      assertEquals(12, payloads.size());
    });
  }

  @Test
  void aFullBacklogAnswers429WithRetryAfterAndTheQueueKeepsWhatArrives() {
    Reply put = server.put("/v1/namespaces/tenant-d/policy", "{\"maxBacklog\": 3}");
    assertEquals(200, put.status(), put::text);
    assertEquals(3, put.json().get("maxBacklog").asLong());
    int accepted = 0;
    Reply refused = null;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (refused == null && System.nanoTime() < deadline) {
      Reply r = server.post("/v1/namespaces/tenant-d/topics/jobs/items", Map.of("payload", "j" + accepted));
      if (r.status() == 429) {
        refused = r;
      } else {
        assertEquals(201, r.status(), r::text);
        accepted++;
        if (accepted >= 3) {
          // The producer learns the counts from the stats, published every second.
          await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(200))
              .until(() -> server.get("/v1/namespaces/tenant-d/topics").json().get("topics").size() > 0);
        }
      }
    }
    assertTrue(refused != null, "no 429 after " + accepted + " items with a maxBacklog of 3");
    assertEquals("1", refused.header("Retry-After"));
    assertTrue(refused.json().get("error").asText().contains("tenant-d"), refused::text);
    assertTrue(accepted >= 3, "the backlog filled first: " + accepted);
    // Every accepted item is kept: READY up to the limit, the rest in OVERFLOW until room frees.
    int kept = accepted;
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode topic = server.get("/v1/namespaces/tenant-d/topics").json().get("topics").get(0);
      assertEquals(kept, topic.get("ready").asLong() + topic.get("overflow").asLong(), topic::toString);
    });
  }
}
