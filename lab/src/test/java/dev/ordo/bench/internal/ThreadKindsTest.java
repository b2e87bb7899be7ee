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
  void eachKindBelongsToOnePartOfTheProcess() {
    assertEquals("stream threads", ThreadKinds.part(ThreadKinds.kind(
        "bench-run-eos-r1-queue-148298d6-f81e-445a-835c-0df80dde5d47-StreamThread-1")));
    // A stream thread's producer is I/O, not the stream thread's own work.
    assertEquals("producer I/O", ThreadKinds.part(ThreadKinds.kind(
        "kafka-producer-network-thread | bench-run-eos-r1-queue-148298d6-f81e-445a-835c-0df80dde5d47-StreamThread-1-producer")));
    assertEquals("broker requests", ThreadKinds.part(ThreadKinds.kind("data-plane-kafka-request-handler-3")));
    assertEquals("broker requests", ThreadKinds.part(ThreadKinds.kind("data-plane-kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0")));
    assertEquals("lease consumers", ThreadKinds.part(ThreadKinds.kind("lease-c1f2d3-replies")));
    assertEquals("lease consumers", ThreadKinds.part(ThreadKinds.kind("bench-workers/m-c1f2d3-worker-2")));
    assertEquals("enqueuer", ThreadKinds.part("main"));
    assertEquals("VM", ThreadKinds.part(ThreadKinds.NOT_JAVA));
    assertEquals("GC", ThreadKinds.part(ThreadKinds.GC));
    assertEquals("JIT", ThreadKinds.part(ThreadKinds.JIT));
    assertEquals("broker other", ThreadKinds.part(ThreadKinds.kind("kafka-scheduler-4")));
    assertTrue(ThreadKinds.PARTS.containsAll(java.util.List.of("broker requests", "broker other", "stream threads",
        "producer I/O", "lease consumers", "enqueuer", "GC", "JIT", "VM")));
  }

  @Test
  void partsPerItemAddUpToTheProcess() {
    ThreadKinds kinds = new ThreadKinds();
    long x = 0;
    for (int i = 0; i < 5_000_000; i++) {
      x += Long.numberOfTrailingZeros(x + i);
    }
    Map<String, Double> parts = kinds.partsPerItem(1_000);
    assertEquals(ThreadKinds.PARTS, java.util.List.copyOf(parts.keySet()), parts::toString);
    double sum = parts.values().stream().mapToDouble(Double::doubleValue).sum();
    long spent = kinds.since().values().stream().mapToLong(Long::longValue).sum();
    // The parts are the kinds' CPU regrouped: their sum is the process's CPU per item (within what ran between the calls).
    assertTrue(sum > 0 && sum <= spent / 1e3 / 1_000 + 1e-9, parts + " vs " + spent + " ns; " + x);
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
