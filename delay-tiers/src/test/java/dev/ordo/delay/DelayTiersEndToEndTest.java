package dev.ordo.delay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The delay service on a real cluster with shortened tiers: 1,000 records with delays from 0 to 12 s,
 * across every tier and combination of tiers, scheduled through {@link DelayClient} and carried by
 * {@link DelayTiers}.
 */
@KafkaCluster
class DelayTiersEndToEndTest {
  static final String TIERS = "200ms,500ms,2s,5s";

  @Test
  void thousandRecordsOverEveryTierCombinationArriveOnceAndNeverEarly(RealKafka kafka) throws Exception {
    Map<String, Object> props = Clusters.config(kafka, "e2e", TIERS, "e2e-1");
    DelayTiersConfig config = new DelayTiersConfig(props);
    String target = "e2e.target";
    Clusters.createTopics(kafka, config, target);

    try (DelayTiers tiers = new DelayTiers(config);
         DelayClient client = DelayClient.create(props);
         Arrivals arrivals = new Arrivals(kafka.bootstrapServers(), target)) {
      tiers.start();
      Clusters.awaitForwarders(kafka, config, config.tiers());
      await().atMost(Duration.ofSeconds(30)).until(arrivals::ready);
      Workload.warmUp(client, arrivals, target, config.tiers());

      Workload work = new Workload(target).schedule(client, 1000, Duration.ofSeconds(12), 7);
      Map<String, Long> paths = work.paths(config.router());
      System.out.println("[delay-tiers] paths through the tiers " + TIERS + " (" + paths.size() + "): " + paths);
      for (String tier : TIERS.split(",")) {
        assertTrue(paths.keySet().stream().anyMatch(p -> p.contains(tier)), "no record goes through " + tier);
      }
      assertTrue(paths.size() >= 20, "only " + paths.size() + " combinations of tiers");

      work.awaitWritten(client, Duration.ofSeconds(90));
      await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100))
          .until(() -> arrivals.count() >= 1000);
      // Nothing more comes: a duplicate would arrive within a forwarder's transaction or two.
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> arrivals.count() == 1000);

      Lateness lateness = work.verify(arrivals.all());
      System.out.println("[delay-tiers] lateness of 1000 records (arrival - dueAt), tiers " + TIERS + ": " + lateness
          + " (load average " + Workload.loadAverage() + ", " + Runtime.getRuntime().availableProcessors() + " cores)");
      work.latenessByDelaySecond().forEach((second, l) ->
          System.out.println("[delay-tiers]   delay " + second + "-" + (second + 1) + " s: " + l));
      Map<Duration, ForwarderStats> stats = tiers.stats();
      System.out.println("[delay-tiers] forwarders: " + stats);
      assertEquals(0, stats.values().stream().mapToLong(ForwarderStats::deadLettered).sum());
    }
  }

  /**
   * In one partition of the 3s tier: X due 900 ms after it leaves the tier (less than the shortest tier
   * to go: it waits for its due time), then Y due when it leaves. Y must not wait behind X.
   */
  @Test
  void aRecordWaitingForItsDueTimeDoesNotHoldUpTheRecordsBehindIt(RealKafka kafka) throws Exception {
    Map<String, Object> props = Clusters.config(kafka, "aside", "1s,3s", "aside-1");
    props.put(DelayTiersConfig.ROUTE_SLACK_CONFIG, "0");
    DelayTiersConfig config = new DelayTiersConfig(props);
    String target = "aside.target";
    Clusters.createTopics(kafka, config, target);
    String tier = config.topics().delayTier(Duration.ofSeconds(3));
    try (DelayTiers tiers = new DelayTiers(config);
         Arrivals arrivals = new Arrivals(kafka.bootstrapServers(), target);
         org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> raw =
             new org.apache.kafka.clients.producer.KafkaProducer<>(config.clientProducerConfigs())) {
      tiers.start();
      Clusters.awaitForwarders(kafka, config, config.tiers());
      await().atMost(Duration.ofSeconds(30)).until(arrivals::ready);
      long now = System.currentTimeMillis();
      long dueX = now + 3900;
      long dueY = now + 3000;
      for (long due : new long[] {dueX, dueY}) {
        byte[] value = dev.ordo.serde.OrdoSerdes.DELAYED_RECORD.encode(DelayedRecords.envelope(target, 0, null,
            String.valueOf(due).getBytes(java.nio.charset.StandardCharsets.UTF_8), null, due, now));
        raw.send(new org.apache.kafka.clients.producer.ProducerRecord<>(tier, 0, null, value)).get();
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> arrivals.count() >= 2);
      java.util.List<Arrivals.Arrival> got = arrivals.all();
      assertEquals(String.valueOf(dueY), new String(got.get(0).record().value(), java.nio.charset.StandardCharsets.UTF_8),
          "Y, due first, arrives first");
      assertTrue(got.get(0).arrivedAt() >= dueY, "Y early");
      assertTrue(got.get(0).arrivedAt() < dueX, "Y waited behind X: arrived " + (got.get(0).arrivedAt() - dueY)
          + " ms after its due time");
      assertTrue(got.get(1).arrivedAt() >= dueX && got.get(1).record().timestamp() >= dueX, "X early");
      System.out.println("[delay-tiers] held aside: Y late by " + (got.get(0).arrivedAt() - dueY) + " ms, X late by "
          + (got.get(1).arrivedAt() - dueX) + " ms");
    }
  }
}
