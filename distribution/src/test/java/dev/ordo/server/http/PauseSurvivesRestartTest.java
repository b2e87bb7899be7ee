package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.NamespaceAdmin;
import dev.ordo.client.NamespacePause;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A paused topic on a real cluster: enqueues go on and nothing is leased, the pause outlives the
 * server that set it (another instance, with a fresh state directory, still leases nothing), and a
 * resume serves every item, to a dequeue that was already waiting too.
 */
@KafkaCluster
class PauseSurvivesRestartTest {
  @TempDir
  static Path tmp;

  private static final String NS = "/v1/namespaces/shop";

  private static Reply enqueue(TestServer s, String topic, String payload) {
    Reply r = s.post(NS + "/topics/" + topic + "/items", Map.of("payload", payload));
    assertEquals(201, r.status(), r::text);
    return r;
  }

  private static List<String> dequeue(TestServer s, String topic, int n, int waitMs) {
    Reply r = s.post(NS + "/dequeue", Map.of("topics", Map.of(topic, n), "waitMs", waitMs));
    assertEquals(200, r.status(), r::text);
    List<String> payloads = new ArrayList<>();
    r.json().get("items").forEach(i -> payloads.add(i.get("payload").asText()));
    return payloads;
  }

  private static JsonNode topic(TestServer s, String topic) {
    for (JsonNode t : s.get(NS + "/topics").json().get("topics")) {
      if (t.get("topic").asText().equals(topic)) {
        return t;
      }
    }
    return null;
  }

  @Test
  void aPausedTopicTakesItemsLeasesNoneKeepsItsPauseAcrossARestartAndServesEverythingOnResume(RealKafka kafka) {
    String cluster = "paused";
    try (TestServer first = TestServer.start(kafka, cluster, tmp.resolve("first"))) {
      enqueue(first, "emails", "e1");
      enqueue(first, "emails", "e2");
      await().atMost(Duration.ofSeconds(30)).until(() -> topic(first, "emails") != null);

      Reply misspelt = first.post(NS + "/topics/emials/pause", "");
      assertEquals(404, misspelt.status(), misspelt::text);
      assertTrue(misspelt.error().contains("emails"), "names the topics that have items: " + misspelt.text());
      assertEquals(400, first.post(NS + "/topics/emails/pause", "{\"until\": 1}").status(), "no fields are known");

      Reply paused = first.post(NS + "/topics/emails/pause", "");
      assertEquals(200, paused.status(), paused::text);
      assertTrue(paused.json().get("paused").asBoolean(), paused::text);
      assertTrue(paused.json().get("pausedTopics").has("emails"), paused::text);
      assertTrue(topic(first, "emails").get("paused").asBoolean(), "the listing shows it at once");

      enqueue(first, "emails", "e3"); // enqueues go on
      enqueue(first, "sms", "s1");
      await().atMost(Duration.ofSeconds(30)).until(() -> topic(first, "emails").get("ready").asLong() == 3);
      assertEquals(List.of("s1"), dequeue(first, "sms", 5, 5_000), "the topic beside it is served");
      assertEquals(List.of(), dequeue(first, "emails", 5, 1_500), "nothing of the paused topic is leased");
      assertFalse(topic(first, "sms").get("paused").asBoolean());
      assertTrue(first.get("/metrics").text().contains("ordo_topic_paused{namespace=\"shop\",topic=\"emails\"} 1"),
          "the gauge is on /metrics");
    }

    // Another instance, with nothing of the first one's state: the pause is on <cluster>.namespaces.
    try (TestServer second = TestServer.start(kafka, cluster, tmp.resolve("second"));
        NamespaceAdmin admin = new NamespaceAdmin(Map.of("bootstrap.servers", kafka.bootstrapServers()), cluster)) {
      NamespacePause pause = admin.pauses("shop");
      assertTrue(pause.paused("emails") && !pause.namespacePaused(), pause::toString);
      enqueue(second, "sms", "s2");
      await().atMost(Duration.ofSeconds(60)).until(() -> dequeue(second, "sms", 5, 2_000).equals(List.of("s2")));
      assertEquals(List.of(), dequeue(second, "emails", 5, 1_500), "still paused after the restart");
      assertTrue(topic(second, "emails").get("paused").asBoolean());

      CompletableFuture<List<String>> waiting = CompletableFuture.supplyAsync(() -> dequeue(second, "emails", 1, 15_000));
      Reply resumed = second.post(NS + "/topics/emails/resume", "{}");
      assertEquals(200, resumed.status(), resumed::text);
      assertFalse(resumed.json().get("paused").asBoolean(), resumed::text);
      assertFalse(topic(second, "emails").get("paused").asBoolean());
      assertFalse(second.get("/metrics").text().contains("ordo_topic_paused{"), "the gauge is gone with the pause");

      List<String> served = new ArrayList<>(waiting.join());
      assertEquals(1, served.size(), "the dequeue that waited is served after the resume: " + served);
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        served.addAll(dequeue(second, "emails", 5, 1_000));
        return served.size() >= 3;
      });
      assertEquals(new TreeSet<>(List.of("e1", "e2", "e3")), new TreeSet<>(served));
      assertEquals(3, served.size(), served::toString);
      assertTrue(admin.pauses("shop").isEmpty());
      assertTrue(admin.get("shop").isEmpty(), "a pause alone is no policy");
    }
  }

  @Test
  void aPausedNamespaceKeepsItsPolicyAndAResumeOfTheNamespaceLeavesAPausedTopicPaused(RealKafka kafka) {
    try (TestServer s = TestServer.start(kafka, "nspause", tmp.resolve("ns"))) {
      assertEquals(404, s.post(NS + "/pause", "").status(), "a namespace nobody uses");
      assertEquals(200, s.put(NS + "/policy", "{\"maxBacklog\": 1000}").status());
      Reply paused = s.post(NS + "/pause", "");
      assertEquals(200, paused.status(), paused::text);
      assertTrue(paused.json().get("paused").asBoolean(), paused::text);
      enqueue(s, "a", "a1");
      enqueue(s, "b", "b1");
      await().atMost(Duration.ofSeconds(30)).until(() -> topic(s, "b") != null);
      assertEquals(200, s.post(NS + "/topics/b/pause", "").status());
      assertEquals(List.of(), dequeue(s, "*", 5, 1_500), "nothing of a paused namespace");
      assertEquals(200, s.put(NS + "/policy", "{\"maxBacklog\": 2000}").status(), "a policy change keeps the pause");
      assertEquals(List.of(), dequeue(s, "*", 5, 1_500));
      JsonNode ns = s.get("/v1/namespaces").json().get("namespaces").get(0);
      assertTrue(ns.get("paused").asBoolean(), ns::toString);

      Reply resumed = s.post(NS + "/resume", "");
      assertFalse(resumed.json().get("paused").asBoolean(), resumed::text);
      assertTrue(resumed.json().get("pausedTopics").has("b"), "the topic paused on its own stays paused");
      await().atMost(Duration.ofSeconds(30)).until(() -> dequeue(s, "*", 5, 1_000).equals(List.of("a1")));
      assertEquals(List.of(), dequeue(s, "*", 5, 1_000));
      assertEquals(2000, s.get(NS + "/policy").json().get("maxBacklog").asLong(), "the policy as set");
      assertEquals(200, s.post(NS + "/topics/b/resume", "").status());
      await().atMost(Duration.ofSeconds(30)).until(() -> dequeue(s, "*", 5, 1_000).equals(List.of("b1")));
    }
  }
}
