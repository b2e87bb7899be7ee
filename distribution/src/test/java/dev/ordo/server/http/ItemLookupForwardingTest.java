package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two servers of one cluster share its partitions; either answers {@code GET /v1/items/{id}} for
 * any item, reading its own store or forwarding to the instance that owns the item's partition, and
 * {@code GET .../peek} for a topic's head over all partitions (its own and the other's, forwarded).
 */
@KafkaCluster
class ItemLookupForwardingTest {
  private static final int PARTITIONS = 4;

  @TempDir
  static Path tmp;

  private static TestServer a;
  private static TestServer b;

  @BeforeAll
  static void start(RealKafka kafka) {
    a = TestServer.start(kafka, "fwd", tmp.resolve("a"));
    b = TestServer.start(kafka, "fwd", tmp.resolve("b"));
    // Both running, each owning some of the partitions.
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
        running(a) && running(b) && owned(a) > 0 && owned(b) > 0 && owned(a) + owned(b) == PARTITIONS);
  }

  @AfterAll
  static void stop() {
    if (b != null) {
      b.close();
    }
    if (a != null) {
      a.close();
    }
  }

  private static boolean running(TestServer s) {
    return s.queue().service().streams().state() == KafkaStreams.State.RUNNING;
  }

  /** Partitions of the queue this server's instance runs (active tasks). */
  private static int owned(TestServer s) {
    KafkaStreams streams = s.queue().service().streams();
    return streams.metadataForAllStreamsClients().stream()
        .filter(m -> m.hostInfo().port() == s.address().getPort())
        .mapToInt(m -> m.topicPartitions().stream().filter(tp -> tp.topic().endsWith(".items"))
            .collect(Collectors.toSet()).size())
        .sum();
  }

  private static String address(TestServer s) {
    return s.address().getHost() + ":" + s.address().getPort();
  }

  /** A group key that the producer sends to {@code partition}. */
  private static String keyFor(int partition) {
    return keyFor(partition, 0);
  }

  /** The {@code skip}-th group key (from 0) that the producer sends to {@code partition}. */
  private static String keyFor(int partition, int skip) {
    for (int i = 0; ; i++) {
      String key = "k" + i;
      if (Utils.toPositive(Utils.murmur2(key.getBytes(java.nio.charset.StandardCharsets.UTF_8))) % PARTITIONS
          == partition && skip-- == 0) {
        return key;
      }
    }
  }

  private static String enqueue(String ns, int priority, String groupKey, String payload) {
    Reply r = a.post("/v1/namespaces/" + ns + "/topics/jobs/items",
        Map.of("payload", payload, "groupKey", groupKey, "priority", priority));
    assertEquals(201, r.status(), r::text);
    return r.json().get("id").asText();
  }

  /** GET /v1/cluster (the console's cluster page): either server names both instances and which runs each partition. */
  @Test
  void eitherServerNamesBothInstancesAndTheInstanceOfEachPartition() {
    for (TestServer s : List.of(a, b)) {
      Reply r = s.get("/v1/cluster");
      assertEquals(200, r.status(), r::text);
      JsonNode c = r.json();
      assertEquals(address(s), c.get("self").asText());
      assertEquals(PARTITIONS, c.get("partitionCount").asInt());
      assertEquals(2, c.get("instances").size(), r::text);
      Map<Integer, String> owners = new java.util.TreeMap<>();
      for (JsonNode i : c.get("instances")) {
        String at = i.get("address").asText();
        assertEquals(at.equals(address(s)), i.get("self").asBoolean(), r::text);
        i.get("activePartitions").forEach(p -> assertNull(owners.put(p.asInt(), at), "one active per partition"));
      }
      assertEquals(Set.of(address(a), address(b)), Set.copyOf(owners.values()), r::text);
      assertEquals(PARTITIONS, owners.size(), r::text);
      for (JsonNode p : c.get("partitions")) {
        assertEquals(owners.get(p.get("partition").asInt()), p.get("active").asText(), r::text);
      }
    }
  }

  private static List<String> peekIds(TestServer s, String ns, String query) {
    Reply r = s.get("/v1/namespaces/" + ns + "/topics/jobs/peek" + query);
    assertEquals(200, r.status(), r::text);
    assertEquals(0, r.json().get("unavailable").size(), r::text);
    List<String> ids = new java.util.ArrayList<>();
    r.json().get("items").forEach(i -> ids.add(i.get("id").asText()));
    return ids;
  }

  @Test
  void peekShowsTheHeadOfEveryPartitionInPriorityOrderAndLeasesNothing() {
    List<String> urgent = new java.util.ArrayList<>();
    List<String> later = new java.util.ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      later.add(enqueue("peek", 5, keyFor(p), "later " + p));
      urgent.add(enqueue("peek", 1, keyFor(p, 1), "urgent " + p));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> peekIds(a, "peek", "?n=100").size() == 2 * PARTITIONS);
    List<String> viaA = peekIds(a, "peek", "?n=100");
    List<String> viaB = peekIds(b, "peek", "?n=100");
    assertEquals(viaA, viaB, "the same head through either server");
    assertEquals(Set.copyOf(urgent), Set.copyOf(viaA.subList(0, PARTITIONS)), "every partition's priority 1 first: " + viaA);
    assertEquals(Set.copyOf(later), Set.copyOf(viaA.subList(PARTITIONS, 2 * PARTITIONS)), "then priority 5: " + viaA);
    assertEquals(viaA.subList(0, 3), peekIds(b, "peek", "?n=3"), "n=3 is the first three");
    for (String id : viaA) {
      assertEquals("READY", a.get("/v1/items/" + id).json().get("state").asText(), "peeking leased nothing: " + id);
    }
  }

  @Test
  void peekAtAPartitionFollowsTheFairQueueingOrder() {
    // Bob's three items, then Alice's one, same priority and partition: dispatch alternates groups.
    String bob = keyFor(2, 2);
    String alice = keyFor(2, 3);
    String b1 = enqueue("fair", 0, bob, "b1");
    String b2 = enqueue("fair", 0, bob, "b2");
    String b3 = enqueue("fair", 0, bob, "b3");
    String a1 = enqueue("fair", 0, alice, "a1");
    await().atMost(Duration.ofSeconds(30)).until(() -> peekIds(b, "fair", "?partitions=2").size() == 4);
    assertEquals(List.of(b1, a1, b2, b3), peekIds(b, "fair", "?partitions=2"));
    assertEquals(List.of(b1, a1, b2, b3), peekIds(a, "fair", ""));
  }

  @Test
  void badPeekParametersAre400NamingTheParameter() {
    Reply r = a.get("/v1/namespaces/peek/topics/jobs/peek?n=0");
    assertEquals(400, r.status(), r::text);
    assertTrue(r.error().startsWith("n:"), r::text);
    r = a.get("/v1/namespaces/peek/topics/jobs/peek?partitions=" + PARTITIONS);
    assertEquals(400, r.status(), r::text);
    assertTrue(r.error().startsWith("partitions:"), r::text);
  }

  @Test
  void eitherServerAnswersForAnItemOnAnyPartition() {
    Map<String, Integer> ids = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      Reply r = a.post("/v1/namespaces/fwd/topics/jobs/items",
          Map.of("payload", "on partition " + p, "groupKey", keyFor(p)));
      assertEquals(201, r.status(), r::text);
      ids.put(r.json().get("id").asText(), p);
    }
    Set<String> servedBy = new HashSet<>();
    for (Map.Entry<String, Integer> e : ids.entrySet()) {
      String id = e.getKey();
      assertTrue(id.startsWith(e.getValue() + "-"), id);
      await().atMost(Duration.ofSeconds(30)).until(() -> a.get("/v1/items/" + id).status() == 200);
      Reply viaA = a.get("/v1/items/" + id);
      Reply viaB = b.get("/v1/items/" + id);
      assertEquals(200, viaA.status(), viaA::text);
      assertEquals(200, viaB.status(), viaB::text);
      assertEquals(viaA.json(), viaB.json(), "the same state through either server");
      assertEquals("on partition " + e.getValue(), viaA.json().get("payload").asText());
      String owner = viaA.header("ordo-served-by");
      assertEquals(owner, viaB.header("ordo-served-by"), "the owner's store answered both");
      servedBy.add(owner);
    }
    assertEquals(Set.of(address(a), address(b)), servedBy,
        "each server read its own partitions and forwarded the others'");
  }

  @Test
  void anUnknownItemIs404FromTheOwnerWhicheverServerIsAsked() {
    for (int p = 0; p < PARTITIONS; p++) {
      for (TestServer s : List.of(a, b)) {
        Reply r = s.get("/v1/items/" + p + "-987654321");
        assertEquals(404, r.status(), r::text);
        assertTrue(r.error().startsWith("unknown item"), r::text);
      }
    }
  }

  @Test
  void aForwardedLookUpIsNotForwardedAgain() {
    // A request that claims to be forwarded, for a partition this server does not own, must not
    // bounce on (two instances disagreeing during a rebalance would otherwise loop).
    KafkaStreams streams = a.queue().service().streams();
    StreamsMetadata other = streams.metadataForAllStreamsClients().stream()
        .filter(m -> m.hostInfo().port() != a.address().getPort())
        .findFirst().orElseThrow();
    int foreign = other.topicPartitions().stream().filter(tp -> tp.topic().endsWith(".items"))
        .findFirst().orElseThrow().partition();
    java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(a.address() + "/v1/items/" + foreign + "-1"))
        .header(ItemLookup.FORWARDED_FROM, "somewhere:1")
        .GET().build();
    java.net.http.HttpResponse<String> r;
    try {
      r = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertEquals(503, r.statusCode(), r.body());
    assertTrue(r.body().contains("moved"), r.body());
    assertEquals("1", r.headers().firstValue("retry-after").orElse(null));
    assertNull(r.headers().firstValue("ordo-served-by").orElse(null));
  }
}
