package dev.ordo.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.LeaseConsumerStats;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueItem;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.ReturnReason;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several instances and every kind of requester, and no fault of any kind (issue 44): three servers
 * of one cluster on a topic of 6 partitions, 600 items, half at-most-once and half at-least-once
 * (lease 4 s), worked by six HTTP workers (two per server, each dequeuing 20 with a 500 ms wait and
 * acking one by one), a {@link QueueClient} with two callers and a {@link LeaseConsumer}, all at once.
 * Before decisions D50 a quarter of the at-most-once items were taken off the queue and never
 * delivered (leased to dequeues that had ended or already had enough, then released, which drops an
 * at-most-once item). Asserts that every at-most-once item is delivered exactly once, every
 * at-least-once item once with attempt 1, no ack is refused, nothing is dropped, released or given
 * back for lack of capacity; prints the leases given back for other reasons (the waste).
 */
@KafkaCluster
class SeveralInstancesNoFaultTest {
  private static final String CLUSTER = "nofault";
  private static final String NS = "shop";
  private static final int ITEMS = 600;

  @TempDir
  static Path tmp;

  /** Every delivery an application saw, by item payload: "<requester kind> attempt <n>". */
  private final Map<String, List<String>> deliveries = new ConcurrentHashMap<>();
  private final List<String> refusedAcks = new CopyOnWriteArrayList<>();
  private final AtomicBoolean working = new AtomicBoolean(true);

  @Test
  void everyItemIsDeliveredOnceWithNothingLostOrWastedWhenNothingFails(RealKafka kafka) throws Exception {
    List<TestServer> servers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try {
      for (String name : List.of("a", "b", "c")) {
        servers.add(TestServer.startWithPartitions(kafka, CLUSTER, tmp.resolve(name), 6));
      }
      TestServer first = servers.get(0);
      Map<String, DeliverySemantics> semantics = new HashMap<>();
      for (int i = 0; i < ITEMS; i++) {
        boolean amo = i % 2 == 0;
        String payload = "item-" + i;
        TestServer.Reply r = first.post("/v1/namespaces/" + NS + "/topics/jobs/items",
            Map.of("payload", payload, "atMostOnce", amo, "leaseMs", 4_000));
        assertEquals(201, r.status(), r::text);
        semantics.put(payload, amo ? DeliverySemantics.AT_MOST_ONCE : DeliverySemantics.AT_LEAST_ONCE);
      }

      try (QueueClient client = new QueueClient(Map.of("bootstrap.servers", kafka.bootstrapServers(),
              QueueClientConfig.CLUSTER_CONFIG, CLUSTER));
          LeaseConsumer consumer = new LeaseConsumer(consumerConfig(kafka))) {
        consumer.start(item -> saw(new String(item.payload(), StandardCharsets.UTF_8), "consumer", item.attempt()));
        for (TestServer s : servers) {
          for (int w = 0; w < 2; w++) {
            threads.add(start(() -> httpWorker(s)));
          }
        }
        for (int w = 0; w < 2; w++) {
          threads.add(start(() -> clientWorker(client)));
        }
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
            .until(() -> deliveries.size() >= ITEMS);
        // For a second more no item is delivered a second time.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
            .until(() -> deliveries.values().stream().allMatch(d -> d.size() == 1));
        working.set(false);
        for (Thread t : threads) {
          t.join(30_000);
        }
        LeaseConsumerStats stats = consumer.stats();
        consumer.close();

        Map<String, Long> counts = new TreeMap<>();
        for (String event : List.of(QueueMetrics.AT_MOST_ONCE_DROPPED, QueueMetrics.RELEASED, QueueMetrics.STALE_LEASE,
            QueueMetrics.LEASE_EXPIRED, QueueMetrics.returned(ReturnReason.OVER_CAPACITY),
            QueueMetrics.returned(ReturnReason.SURPLUS), QueueMetrics.returned(ReturnReason.LATE),
            QueueMetrics.returned(ReturnReason.CLOSING), QueueMetrics.returned(ReturnReason.CANCELLED))) {
          counts.put(event, servers.stream().mapToLong(s -> s.queue().service().metrics().get(event)).sum());
        }
        System.out.printf("600 items over 3 instances: %s; lease consumer %s; handed over by the client %d%n",
            counts, stats, client.handedOver());

        List<String> problems = new ArrayList<>();
        semantics.forEach((payload, sem) -> {
          List<String> seen = deliveries.getOrDefault(payload, List.of());
          if (seen.size() != 1) {
            problems.add(payload + " (" + sem + ") delivered " + seen.size() + " times: " + seen);
          } else if (sem == DeliverySemantics.AT_LEAST_ONCE && !seen.get(0).endsWith("attempt 1")) {
            problems.add(payload + " delivered on " + seen.get(0) + ", not its first attempt");
          }
        });
        assertTrue(problems.isEmpty(), problems.size() + " items not delivered exactly once: "
            + problems.subList(0, Math.min(10, problems.size())));
        assertEquals(List.of(), refusedAcks, "no ack refused");
        assertEquals(0, stats.ackRefused(), "no ack of the lease consumer refused");
        assertEquals(0, counts.get(QueueMetrics.AT_MOST_ONCE_DROPPED), "no at-most-once item dropped");
        assertEquals(0, counts.get(QueueMetrics.STALE_LEASE), "no command refused as a stale lease");
        assertEquals(0, counts.get(QueueMetrics.RELEASED), "no lease released");
        assertEquals(0, counts.get(QueueMetrics.returned(ReturnReason.OVER_CAPACITY)),
            "nothing given back for lack of capacity");
        assertEquals(0, stats.released(), "the lease consumer gave nothing back");
        assertEquals(0, counts.get(QueueMetrics.LEASE_EXPIRED), "no lease ran out");
        // What an operator watches for this waste, by reason, on /metrics.
        String metrics = first.get("/metrics").text();
        for (ReturnReason reason : ReturnReason.values()) {
          assertTrue(metrics.contains("ordo_queue_events_total{event=\"" + QueueMetrics.returned(reason) + "\"}"),
              "/metrics shows " + QueueMetrics.returned(reason));
        }
        assertTrue(metrics.contains("ordo_queue_events_total{event=\"lease.expired.unextended\"}"));
      }
    } finally {
      working.set(false);
      servers.forEach(TestServer::close);
    }
  }

  private void saw(String payload, String who, int attempt) {
    deliveries.computeIfAbsent(payload, p -> new CopyOnWriteArrayList<>()).add(who + " attempt " + attempt);
  }

  /** Loops a dequeue of 20 with a 500 ms wait and acks what it got one by one, as a first HTTP client does. */
  private void httpWorker(TestServer server) {
    while (working.get()) {
      TestServer.Reply r = server.post("/v1/namespaces/" + NS + "/dequeue",
          Map.of("topics", Map.of("jobs", 20), "waitMs", 500));
      if (r.status() != 200) {
        refusedAcks.add("dequeue answered " + r.status() + ": " + r.text());
        continue;
      }
      for (JsonNode item : r.json().get("items")) {
        saw(item.get("payload").asText(), "http", item.get("attempt").asInt());
        TestServer.Reply ack = server.post("/v1/items/" + item.get("id").asText() + "/ack",
            Map.of("lease", item.get("lease").asText()));
        if (ack.status() != 200) {
          refusedAcks.add("http ack of " + item.get("id").asText() + ": " + ack.status() + " " + ack.text());
        }
      }
    }
  }

  private void clientWorker(QueueClient client) {
    while (working.get()) {
      try {
        for (QueueItem item : client.dequeue(NS, "jobs", 10, Duration.ofMillis(500)).get(30, TimeUnit.SECONDS)) {
          saw(new String(item.payload(), StandardCharsets.UTF_8), "client", item.attempt());
          var outcome = client.ack(item).get(30, TimeUnit.SECONDS);
          if (outcome.result() != CommandOutcome.Result.APPLIED) {
            refusedAcks.add("client ack of " + item.id().toString() + ": " + outcome.result());
          }
        }
      } catch (Exception e) {
        refusedAcks.add("client dequeue or ack failed: " + e);
      }
    }
  }

  private static Thread start(Runnable r) {
    Thread t = new Thread(r);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static Map<String, Object> consumerConfig(RealKafka kafka) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueClientConfig.CLUSTER_CONFIG, CLUSTER);
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, "nofault-workers");
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, NS);
    c.put(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 20);
    return c;
  }
}
