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
  void noFlagsMeanTheFullRunWithEveryScenario() {
    BenchOptions o = BenchOptions.parse();
    assertEquals(Size.FULL, o.size());
    assertEquals(1_000_000, o.backlogItems());
    assertEquals(EnumSet.allOf(Scenario.class), o.scenarios());
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
  void badFlagsAreRefusedNamingTheFlag() {
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
