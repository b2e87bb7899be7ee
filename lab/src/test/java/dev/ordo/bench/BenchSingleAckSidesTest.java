package dev.ordo.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/** Which partition counts the http scenario's single-ack phase (issue 45) runs on, round by round. */
class BenchSingleAckSidesTest {

  @Test
  void aFullRunMeasuresBothSidesTheFirstAlternatingByRoundAndAQuickRunTheNarrowOneOnly() {
    BenchOptions full = BenchOptions.parse("--full");
    assertArrayEquals(new int[] {4, 16}, Bench.singleAckSides(full, 0));
    assertArrayEquals(new int[] {16, 4}, Bench.singleAckSides(full, 1));
    assertArrayEquals(new int[] {4, 16}, Bench.singleAckSides(full, 2));
    assertArrayEquals(new int[] {16, 4}, Bench.singleAckSides(BenchOptions.parse("--large"), 3));
    assertArrayEquals(new int[] {4}, Bench.singleAckSides(BenchOptions.parse("--quick"), 0));
    assertArrayEquals(new int[] {4}, Bench.singleAckSides(BenchOptions.parse("--quick", "--partitions", "2"), 1));
  }
}
