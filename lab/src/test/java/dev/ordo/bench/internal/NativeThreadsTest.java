package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class NativeThreadsTest {
  @Test
  void theCollectorsAndTheCompilersThreadsAreKnownByName() {
    assertEquals(NativeThreads.GC, NativeThreads.kindOf("GC Thread#1"));
    assertEquals(NativeThreads.GC, NativeThreads.kindOf("G1 Conc#0"));
    assertEquals(NativeThreads.GC, NativeThreads.kindOf("G1 Refine#0"));
    assertEquals(NativeThreads.JIT, NativeThreads.kindOf("C2 CompilerThre"));
    assertEquals(NativeThreads.JIT, NativeThreads.kindOf("C1 CompilerThre"));
    assertNull(NativeThreads.kindOf("VM Thread"));
    assertNull(NativeThreads.kindOf("kafka-producer-"));
  }

  @Test
  void aCollectionsCpuCountsAsTheCollectors() {
    Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
    NativeThreads natives = new NativeThreads();
    long gc = 0;
    // Full collections of a heap holding a few million small objects, until the collector's threads
    // have used CPU /proc can see (its ticks are 10 ms). The serial collector works on the VM thread:
    // then none is seen, so the test needs a collector with threads of its own (G1, the default here).
    List<Object[]> held = new ArrayList<>();
    for (int i = 0; i < 3_000_000; i++) {
      held.add(new Object[] {Integer.valueOf(i)});
    }
    for (int i = 0; i < 50 && gc == 0; i++) {
      System.gc();
      gc = natives.since().getOrDefault(NativeThreads.GC, 0L);
    }
    Map<String, Long> used = natives.since();
    assertTrue(used.getOrDefault(NativeThreads.GC, 0L) > 0, used + " after collections of " + held.size() + " objects");
  }
}
