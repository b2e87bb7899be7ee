package dev.ordo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.bench.BenchReport.Figure;
import dev.ordo.bench.BenchReport.Latency;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The printed table's rounds column: each round's CPU as all threads / stream thread. */
class BenchReportRoundsTest {
  private static Figure figure(Double... rounds) {
    return new Figure(Double.NaN, List.of(rounds));
  }

  @Test
  void theCpuRoundsShowBothFiguresOfEachRound() {
    BenchReport.Ordo ordo = new BenchReport.Ordo("exactly_once_v2", figure(27_000.0), figure(13_500.0),
        new Latency(1, 2, 3), List.of(), figure(73.3, 48.4, Double.NaN), figure(25.3, 23.8, 22.0),
        figure(1.14, 1.15, 1.13));

    assertEquals("[73/25, 48/24, -/22]", BenchReport.cpuRounds(ordo));
  }
}
