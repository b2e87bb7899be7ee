package dev.ordo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** With the lab on the class path, {@code ordo} has {@code bench} (found through ExtraCommands, decisions 0064). */
class LabCommandsTest {
  @Test
  void theTopLevelHelpListsBenchBeforeHelp() {
    Cli.Result r = Cli.run("--help");
    assertEquals(0, r.exitCode(), r::err);
    int bench = r.out().indexOf("\n  bench ");
    int help = r.out().indexOf("\n  help ");
    assertTrue(bench > 0 && help > bench, r::out);
  }

  @Test
  void benchHelpShowsTheBenchAndFaultModeOptions() {
    Cli.Result r = Cli.run("bench", "--help");
    assertEquals(0, r.exitCode(), r::err);
    assertTrue(r.out().contains("Usage: ordo bench"), r::out);
    assertTrue(r.out().contains(dev.ordo.bench.BenchOptions.USAGE.lines().findFirst().orElseThrow()), r::out);
    assertTrue(r.out().contains("--nemesis"), r::out);
  }

  @Test
  void aBadFaultModeOptionIsAUsageError() {
    Cli.Result r = Cli.run("bench", "--soak", "--soak-minutes", "none");
    assertEquals(OrdoMain.EXIT_USAGE, r.exitCode(), r::out);
    assertTrue(r.err().contains("ordo bench: --soak-minutes must be a positive number"), r::err);
  }
}
