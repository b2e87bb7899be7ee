package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ThreadKindsTest {
  @Test
  void aKindIsTheNameWithoutItsNumbersAndIds() {
    assertEquals("bench-run-queue-*-StreamThread-N",
        ThreadKinds.kind("bench-run-queue-148298d6-f81e-445a-835c-0df80dde5d47-StreamThread-1"));
    assertEquals(ThreadKinds.kind("data-plane-kafka-request-handler-3"),
        ThreadKinds.kind("data-plane-kafka-request-handler-12"));
  }

  @Test
  void aThreadsCpuCountsUnderItsKind() throws Exception {
    ThreadKinds kinds = new ThreadKinds();
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread busy = new Thread(() -> {
      // Until it has used 30 ms of CPU itself, however long that takes on a busy machine (wall time would not do).
      java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
      long x = 0;
      while (mx.getCurrentThreadCpuTime() < 30_000_000L) {
        x += Long.numberOfTrailingZeros(x + 1);
      }
      spun.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "thread-kinds-probe-7");
    busy.start();
    try {
      spun.await();
      Map<String, Long> used = kinds.since();
      assertTrue(used.getOrDefault("thread-kinds-probe-N", 0L) >= 20_000_000L, used::toString);
      assertTrue(used.containsKey(ThreadKinds.NOT_JAVA), used::toString);
    } finally {
      release.countDown();
      busy.join();
    }
  }
}
