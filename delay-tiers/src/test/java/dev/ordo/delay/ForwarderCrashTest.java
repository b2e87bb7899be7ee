package dev.ordo.delay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Forwarders that die in the middle of a transaction (records sent, offsets sent, no commit, no abort)
 * or leave their group mid-way: every record still arrives exactly once, never early (read_committed).
 */
@KafkaCluster
class ForwarderCrashTest {
  static final String TIERS = "200ms,500ms,2s,5s";

  @Test
  void aForwarderKilledMidTransactionAndRestartedLosesAndDoublesNothing(RealKafka kafka) throws Exception {
    Map<String, Object> props = Clusters.config(kafka, "crash", TIERS, "node-1");
    DelayTiersConfig config = new DelayTiersConfig(props);
    String target = "crash.target";
    Clusters.createTopics(kafka, config, target);
    Duration victim = Duration.ofMillis(500);

    try (Forwarders forwarders = new Forwarders();
         DelayClient client = DelayClient.create(props);
         Arrivals arrivals = new Arrivals(kafka.bootstrapServers(), target)) {
      Forwarders.Crashing crashing = new Forwarders.Crashing(40);
      Forwarders.Running doomed = forwarders.start(config, victim, crashing);
      for (Duration tier : config.tiers()) {
        if (!tier.equals(victim)) {
          forwarders.start(config, tier);
        }
      }
      Clusters.awaitForwarders(kafka, config, config.tiers());
      await().atMost(Duration.ofSeconds(30)).until(arrivals::ready);

      Workload work = new Workload(target).schedule(client, 1000, Duration.ofSeconds(10), 11);
      work.awaitWritten(client, Duration.ofSeconds(90));

      assertTrue(crashing.crashed.await(30, TimeUnit.SECONDS), "the 500ms forwarder did not crash");
      doomed.thread().join(30_000);
      assertFalse(doomed.thread().isAlive());
      assertTrue(crashing.producer.sendsInCrashedTransaction > 0, "the crashed transaction held no records");
      System.out.println("[delay-tiers] crashed the 500ms forwarder with " + crashing.producer.sendsInCrashedTransaction
          + " records in its open transaction after " + arrivals.count() + " arrivals; restarting it");
      // The same instance id: the new producer fences the dead one and aborts its open transaction at once.
      forwarders.start(config, victim);

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> arrivals.count() >= 1000);
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> arrivals.count() == 1000);
      Lateness lateness = work.verify(arrivals.all());
      System.out.println("[delay-tiers] across a crashed forwarder: " + lateness);
    }
  }

  @Test
  void aCrashedForwardersPartitionsMoveToAnotherInstanceWithoutLossOrDuplicates(RealKafka kafka) throws Exception {
    Map<String, Object> props = Clusters.config(kafka, "takeover", TIERS, "node-a");
    // The dead instance never comes back: its open transaction is aborted by the broker after this.
    props.put(DelayTiersConfig.TRANSACTION_TIMEOUT_CONFIG, "3000");
    DelayTiersConfig a = new DelayTiersConfig(props);
    Map<String, Object> propsB = new java.util.HashMap<>(props);
    propsB.put(DelayTiersConfig.INSTANCE_ID_CONFIG, "node-b");
    DelayTiersConfig b = new DelayTiersConfig(propsB);
    String target = "takeover.target";
    Clusters.createTopics(kafka, a, target);
    Duration victim = Duration.ofMillis(200);

    try (Forwarders forwarders = new Forwarders();
         DelayClient client = DelayClient.create(props);
         Arrivals arrivals = new Arrivals(kafka.bootstrapServers(), target)) {
      Forwarders.Crashing crashing = new Forwarders.Crashing(25);
      forwarders.start(a, victim, crashing);
      for (Duration tier : a.tiers()) {
        forwarders.start(b, tier);
        if (!tier.equals(victim)) {
          forwarders.start(a, tier);
        }
      }
      await().atMost(Duration.ofSeconds(30)).until(arrivals::ready);
      Clusters.awaitForwarders(kafka, a, a.tiers());

      Workload work = new Workload(target).schedule(client, 400, Duration.ofSeconds(8), 13);
      work.awaitWritten(client, Duration.ofSeconds(90));
      assertTrue(crashing.crashed.await(30, TimeUnit.SECONDS), "the 200ms forwarder of node-a did not crash");
      assertTrue(crashing.producer.sendsInCrashedTransaction > 0, "the crashed transaction held no records");
      System.out.println("[delay-tiers] node-a's 200ms forwarder crashed with "
          + crashing.producer.sendsInCrashedTransaction + " records in its open transaction; node-b takes over");

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> arrivals.count() >= 400);
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> arrivals.count() == 400);
      System.out.println("[delay-tiers] across a takeover by another instance: " + work.verify(arrivals.all()));
    }
  }

  @Test
  void forwardersLeavingAndJoiningMidWayLoseAndDoubleNothing(RealKafka kafka) throws Exception {
    Map<String, Object> props = Clusters.config(kafka, "rebalance", TIERS, "node-1");
    DelayTiersConfig one = new DelayTiersConfig(props);
    Map<String, Object> propsTwo = new java.util.HashMap<>(props);
    propsTwo.put(DelayTiersConfig.INSTANCE_ID_CONFIG, "node-2");
    DelayTiersConfig two = new DelayTiersConfig(propsTwo);
    String target = "rebalance.target";
    Clusters.createTopics(kafka, one, target);

    try (Forwarders forwarders = new Forwarders();
         DelayClient client = DelayClient.create(props);
         Arrivals arrivals = new Arrivals(kafka.bootstrapServers(), target)) {
      java.util.List<Forwarders.Running> second = new java.util.ArrayList<>();
      for (Duration tier : one.tiers()) {
        forwarders.start(one, tier);
        second.add(forwarders.start(two, tier));
      }
      await().atMost(Duration.ofSeconds(30)).until(arrivals::ready);
      Clusters.awaitForwarders(kafka, one, one.tiers());

      Workload work = new Workload(target).schedule(client, 400, Duration.ofSeconds(8), 17);
      await().atMost(Duration.ofSeconds(30)).until(() -> arrivals.count() >= 100);
      for (Forwarders.Running r : second) {
        r.forwarder().close();  // leaves the group: its partitions move to node-1's forwarders
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> arrivals.count() >= 200);
      for (Duration tier : one.tiers()) {
        forwarders.start(two, tier);  // joins again: partitions move back
      }
      work.awaitWritten(client, Duration.ofSeconds(90));
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> arrivals.count() >= 400);
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> arrivals.count() == 400);
      System.out.println("[delay-tiers] across forwarders leaving and joining: " + work.verify(arrivals.all()));
    }
  }
}
