package dev.ordo.faults;

import java.util.List;

/**
 * The JVM options of the {@code ordo server} processes the fault tests start: a small heap, the serial
 * collector and the client compiler only. These processes live for seconds to a few minutes beside
 * brokers and other servers on 2 cores; C2's compiles and a parallel collector's threads would take the
 * cores the faults are timed against (the surefire JVM runs with C1 only for the same reason, pom.xml).
 * The bench modes start their servers with their own options, C2 included.
 */
final class TestJvm {
  static final List<String> SERVER = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private TestJvm() {}
}
