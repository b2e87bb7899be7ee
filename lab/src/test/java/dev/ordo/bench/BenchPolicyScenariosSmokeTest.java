package dev.ordo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the namespace-policy scenarios of issue 13 ({@code surge}, {@code cost}) and issue 48's
 * {@code tenants} end to end with tiny
 * sizes against a real in-JVM Kafka: both sides of each ran, every item of tenant A reached a
 * worker, the policies took effect (B's items went to OVERFLOW only with them), and the table and
 * the JSON carry the figures. No figure is compared with a target: timings prove nothing here.
 */
@KafkaCluster
class BenchPolicyScenariosSmokeTest {

  @Test
  void surgeAndCostReportBothSidesInTheTableAndTheJson(RealKafka kafka, @TempDir Path dir) throws Exception {
    Path json = dir.resolve("bench.json");
    BenchOptions options = BenchOptions.parse("--quick", "--rounds", "1", "--scenarios", "surge,cost,tenants",
        "--surge-rate", "20", "--surge-seconds", "1", "--surge-calm-seconds", "1", "--items", "300",
        "--latency-seconds", "1", "--partitions", "2", "--max-in-flight", "20", "--warm-up-seconds", "0", "--fair-keys", "20",
        "--json", json.toString());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    BenchReport report = Bench.run(kafka.bootstrapServers(), options, new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertTrue(report.notes().stream().noneMatch(n -> n.contains("failed")), () -> "notes: " + report.notes());
    assertNull(report.exactlyOnce(), "only the named scenarios ran");
    BenchReport.Surge surge = report.surge();
    for (BenchReport.SurgeRun run : new BenchReport.SurgeRun[] {surge.withoutPolicies(), surge.withPolicies()}) {
      assertTrue(run.tenantAEnqueued() > 0, "A enqueued");
      assertEquals(run.tenantAEnqueued(), run.tenantADelivered(), "every item of A reached a worker");
      assertEquals(0, run.tenantARefused(), "A is never refused");
      assertTrue(run.before().tenantAItems() + run.during().tenantAItems() + run.after().tenantAItems() > 0);
      assertTrue(run.before().tenantAItems() + run.during().tenantAItems() + run.after().tenantAItems()
          <= run.tenantAEnqueued(), "the phases hold A's items at most once");
      assertTrue(run.tenantBEnqueued() > 0, "B enqueued");
      assertTrue(run.tenantBDelivered() <= run.tenantBEnqueued());
      assertEquals(1, run.roundRatios().size());
    }
    assertEquals(0, surge.withoutPolicies().overflowed(), "nothing overflows without policies");
    assertEquals(0, surge.withoutPolicies().tenantBRefused(), "nobody is refused without policies");
    assertTrue(surge.withPolicies().overflowed() > 0, "B's admission rate sent items to OVERFLOW");
    assertEquals(10 * surge.capacity(), surge.tenantBRate(), 1e-9);

    BenchReport.Cost cost = report.cost();
    for (BenchReport.Ordo side : new BenchReport.Ordo[] {cost.withoutPolicies(), cost.withPolicies()}) {
      assertEquals("at_least_once", side.guarantee());
      assertTrue(side.itemsPerSec().median() > 0);
      assertEquals(1, side.itemsPerSec().rounds().size());
    }
    assertFalse(Double.isNaN(cost.throughputWithOverWithout()));

    BenchReport.Tenants tenants = report.tenants();
    for (BenchReport.Ordo side : new BenchReport.Ordo[] {tenants.off(), tenants.on()}) {
      assertEquals("at_least_once", side.guarantee());
      assertTrue(side.itemsPerSec().median() > 0);
      assertTrue(side.cpuUsPerItem().median() > 0);
    }
    assertEquals(20, tenants.groupKeys());
    assertEquals("shards 2, groupRate 1,000,000,000/s (burst 1,000,000,000)", tenants.policy());
    assertFalse(Double.isNaN(tenants.throughputOnOverOff()));
    assertFalse(Double.isNaN(tenants.cpuOnOverOff()));

    String table = printed.toString(StandardCharsets.UTF_8);
    for (String row : new String[] {"Surge: A 20 items/s", "no policies, A before", "policies, A during B's surge",
        "policies, B enqueued / refused", "Ordo e2e at_least_once, no policies",
        "Ordo e2e at_least_once, with policies", "surge: A p99 during / before, policies",
        "cost: e2e with policies / without", "Ordo e2e at_least_once, 20 group keys, tenant policy",
        "tenants: e2e with shards and group rates / without"}) {
      assertTrue(table.contains(row), () -> "the table lacks '" + row + "':\n" + table);
    }

    JsonNode root = new ObjectMapper().readTree(Files.readString(json));
    for (String side : new String[] {"withoutPolicies", "withPolicies"}) {
      JsonNode run = root.path("surge").path(side);
      for (String phase : new String[] {"before", "during", "after"}) {
        assertTrue(run.path("phases").path(phase).path("tenantBDelivered").isNumber(), () -> side + " " + phase);
        assertTrue(run.path("phases").path(phase).has("tenantAMs"), () -> side + " " + phase);
      }
      assertTrue(run.path("tenantADelivered").isNumber(), () -> side + ".tenantADelivered in " + root);
      assertTrue(root.path("cost").path(side).path("itemsPerSec").isNumber(), () -> "cost." + side + " in " + root);
    }
    assertTrue(root.path("ratios").path("policyCostThroughput").isNumber());
    assertTrue(root.path("ratios").path("tenantCostCpu").isNumber());
    assertTrue(root.path("tenants").path("on").path("cpuUsPerItem").isNumber(), () -> "tenants.on in " + root);
    assertTrue(root.path("ratios").has("surgeP99DuringOverBeforeWithPolicies"));
  }
}
