package dev.ordo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.bench.BenchOptions.Scenario;
import dev.ordo.bench.BenchOptions.Size;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

  @Test
  void noFlagsMeanTheFullRunWithEveryScenarioButThePolicyOnes() {
    BenchOptions o = BenchOptions.parse();
    assertEquals(Size.FULL, o.size());
    assertEquals(1_000_000, o.backlogItems());
    assertEquals(EnumSet.complementOf(EnumSet.of(Scenario.SURGE, Scenario.COST, Scenario.FAIRNESS, Scenario.SQS,
        Scenario.TENANTS)),
        o.scenarios());
    assertEquals(200, o.payloadBytes());
    assertNull(o.json());
  }

  @Test
  void sizeFlagsPickTheBacklogAndOtherFlagsOverrideThemInAnyOrder() {
    assertEquals(100_000, BenchOptions.parse("--quick").backlogItems());
    assertEquals(10_000_000, BenchOptions.parse("--large").backlogItems());
    BenchOptions o = BenchOptions.parse("--rounds", "7", "--quick", "--items=50k", "--partitions", "8",
        "--json", "out/b.json", "--scenarios", "raw,EOS", "--backlog", "1m", "--keep-topics");
    assertEquals(Size.QUICK, o.size());
    assertEquals(7, o.rounds());
    assertEquals(50_000, o.items());
    assertEquals(8, o.partitions());
    assertEquals(1_000_000, o.backlogItems());
    assertEquals(Path.of("out/b.json"), o.json());
    assertEquals(EnumSet.of(Scenario.RAW, Scenario.EOS), o.scenarios());
    assertTrue(o.keepTopics());
    assertEquals(15, o.warmUpSeconds(), "--quick's warm-up budget");
    assertEquals(120, BenchOptions.parse().warmUpSeconds(), "--full's warm-up budget");
    assertEquals(0, BenchOptions.parse("--quick", "--warm-up-seconds", "0").warmUpSeconds());
  }

  @Test
  void aSchemaRegistryIsTheConfluentFramingSideOfTheAbAndIsKeptByTheOtherFlags() {
    assertNull(BenchOptions.parse("--scenarios", "eos").schemaRegistryUrl(), "single-object without the flag");
    BenchOptions o = BenchOptions.parse("--schema-registry-url", "http://r:8081", "--scenarios", "eos,alos", "--quick",
        "--rounds", "2");
    assertEquals("http://r:8081", o.schemaRegistryUrl());
    assertEquals("http://r:8081", o.withItems(5).withSurge(o.surge()).withFairness(o.fairness()).withKeepTopics(true)
        .schemaRegistryUrl(), "kept by the withers");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BenchOptions.parse("--schema-registry-url", "http://r:8081"));
    assertTrue(e.getMessage().contains("http scenario"), e.getMessage());
  }

  @Test
  void thePolicyScenariosRunWhenNamedWithTheirOwnSizes() {
    assertEquals(EnumSet.of(Scenario.SURGE, Scenario.COST), BenchOptions.parse("--scenarios", "surge,cost").scenarios());
    assertEquals(EnumSet.allOf(Scenario.class), BenchOptions.parse("--scenarios", "all").scenarios());
    assertEquals(new BenchOptions.Surge(1_000, 30, 20), BenchOptions.parse().surge(), "--full's surge");
    assertEquals(new BenchOptions.Surge(200, 5, 5), BenchOptions.parse("--quick").surge(), "--quick's surge");
    BenchOptions o = BenchOptions.parse("--surge-seconds", "7", "--quick", "--surge-rate=1k", "--surge-calm-seconds", "3");
    assertEquals(new BenchOptions.Surge(1_000, 7, 3), o.surge());
    assertEquals(o.surge(), o.withRounds(2).withScenarios(EnumSet.of(Scenario.COST)).surge(), "kept by the other withers");
    assertEquals(10, o.surge().tenantBSharePercent(), "B is admitted a tenth of the spare capacity by default");
    assertEquals(new BenchOptions.Surge(1_000, 7, 3, 50),
        BenchOptions.parse("--surge-b-share", "50", "--surge-seconds", "7", "--surge-calm-seconds", "3").surge());
    assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--surge-b-share", "0"));
    assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--surge-b-share", "101"));
  }

  @Test
  void theFairnessScenarioRunsWhenNamedWithItsOwnSizes() {
    assertEquals(EnumSet.of(Scenario.FAIRNESS), BenchOptions.parse("--scenarios", "fairness").scenarios());
    assertTrue(BenchOptions.parse("--scenarios", "all").runs(Scenario.FAIRNESS));
    assertEquals(new BenchOptions.Fairness(200_000, 50, 10_000, 1_000), BenchOptions.parse().fairness(), "--full's");
    assertEquals(new BenchOptions.Fairness(200_000, 50, 10_000, 1_000), BenchOptions.parse("--large").fairness());
    assertEquals(new BenchOptions.Fairness(50_000, 20, 2_000, 1_000), BenchOptions.parse("--quick").fairness(),
        "--quick's");
    BenchOptions o = BenchOptions.parse("--fair-backlog", "50k", "--quick", "--fair-baseline=7", "--fair-weighted", "300",
        "--fair-keys", "16");
    assertEquals(new BenchOptions.Fairness(50_000, 7, 300, 16), o.fairness());
    assertEquals(o.fairness(), o.withRounds(2).withSurge(new BenchOptions.Surge(1, 1, 1)).withKeepTopics(true)
        .fairness(), "kept by the other withers");
    assertEquals(o.surge(), o.withFairness(new BenchOptions.Fairness(1, 1, 1, 1)).surge());
    assertTrue(BenchOptions.USAGE.contains("--fair-backlog") && BenchOptions.USAGE.contains("fairness"));
  }

  @Test
  void badFlagsAreRefusedNamingTheFlag() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--surge-rate", "0"))
        .getMessage().startsWith("--surge-rate"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--surge-seconds", "0"))
        .getMessage().startsWith("--surge-seconds"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--surge-calm-seconds", "-1"))
        .getMessage().startsWith("--surge-calm-seconds"));
    for (String flag : new String[] {"--fair-backlog", "--fair-baseline", "--fair-weighted", "--fair-keys"}) {
      assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(flag, "0"))
          .getMessage().startsWith(flag), flag);
    }
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--scenarios", "surge,flood"))
        .getMessage().contains("flood"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--warm-up-seconds", "-1"))
        .getMessage().contains("--warm-up-seconds"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--rounds", "0"))
        .getMessage().startsWith("--rounds"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--items", "many"))
        .getMessage().startsWith("--items"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--frobnicate"))
        .getMessage().contains("--frobnicate"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--json"))
        .getMessage().contains("--json"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--scenarios", "raw,fast"))
        .getMessage().contains("fast"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--payload-bytes", "8"))
        .getMessage().startsWith("--payload-bytes"));
  }
}
