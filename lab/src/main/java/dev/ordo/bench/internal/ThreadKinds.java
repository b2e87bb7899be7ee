package dev.ordo.bench.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time by kind of thread since it was made, for the bench's trace: a kind is a thread's name with
 * its numbers and ids taken out, so a broker's request handlers, a client's network threads or the
 * queue's stream threads each add up. What the process used beyond its Java threads is the garbage
 * collector's ({@link #GC}) and the JIT compiler's ({@link #JIT}) threads, where Linux's {@code /proc}
 * tells them ({@link NativeThreads}), and the rest, {@link #NOT_JAVA} (the VM's own threads).
 */
final class ThreadKinds {
  static final String NOT_JAVA = "(not a Java thread: VM)";
  static final String GC = "(not a Java thread: GC)";
  static final String JIT = "(not a Java thread: JIT compiler)";
  private static final String UUID = "[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}";

  private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> cpu0 = threads();
  private final long process0 = CpuClock.processCpu();
  private final NativeThreads natives = new NativeThreads();

  /** CPU (ns) of each kind since this was made; threads that ended meanwhile count in {@link #NOT_JAVA}. */
  Map<String, Long> since() {
    Map<String, Long> out = new HashMap<>();
    long java = 0;
    for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (t == null) {
        continue;
      }
      long cpu = mx.getThreadCpuTime(t.getThreadId());
      if (cpu < 0) {
        continue;
      }
      long used = cpu - cpu0.getOrDefault(t.getThreadId(), 0L);
      out.merge(kind(t.getThreadName()), used, Long::sum);
      java += used;
    }
    long process = CpuClock.processCpu();
    if (process >= 0 && process0 >= 0) {
      Map<String, Long> jvm = natives.since();
      long gc = jvm.getOrDefault(NativeThreads.GC, 0L);
      long jit = jvm.getOrDefault(NativeThreads.JIT, 0L);
      out.put(GC, gc);
      out.put(JIT, jit);
      out.merge(NOT_JAVA, process - process0 - java - gc - jit, Long::sum);
    }
    return out;
  }

  /** The parts of the process a thread's CPU is reported under, in the order they are printed. */
  static final java.util.List<String> PARTS = java.util.List.of("broker requests", "broker other", "stream threads",
      "producer I/O", "lease consumers", "enqueuer", "GC", "JIT", "VM");

  /**
   * Which part of the process a kind of thread ({@link #kind}) belongs to: the broker's request handlers
   * and network threads; the broker's other threads (and anything not named below); the queue's stream
   * threads; every producer's network thread (the queue's, the enqueuer's, the lease consumers'); the
   * lease consumers' own threads (poll, replies, acks, callbacks, handlers); the bench's enqueuing thread;
   * the garbage collector; the JIT compiler; the rest of what is not a Java thread (all of it without {@code /proc}).
   */
  static String part(String kind) {
    if (kind.equals(GC)) {
      return "GC";
    }
    if (kind.equals(JIT)) {
      return "JIT";
    }
    if (kind.equals(NOT_JAVA)) {
      return "VM";
    }
    if (kind.startsWith("kafka-producer-network-thread")) {
      return "producer I/O";
    }
    if (kind.contains("-StreamThread-")) {
      return "stream threads";
    }
    if (kind.startsWith("data-plane-kafka")) {
      return "broker requests";
    }
    if (kind.startsWith("lease-") || kind.startsWith("bench-workers")) {
      return "lease consumers";
    }
    if (kind.equals("main")) {
      return "enqueuer";
    }
    return "broker other";
  }

  /** {@link #since} by {@link #part}, in µs per item of {@code items}, every part present (0 when none). */
  Map<String, Double> partsPerItem(long items) {
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    PARTS.forEach(p -> out.put(p, 0.0));
    since().forEach((kind, nanos) -> out.merge(part(kind), nanos / 1e3 / items, Double::sum));
    return out;
  }

  static String kind(String threadName) {
    return threadName.replaceAll(UUID, "*").replaceAll("\\d+", "N");
  }

  private Map<Long, Long> threads() {
    Map<Long, Long> out = new HashMap<>();
    for (long id : mx.getAllThreadIds()) {
      long cpu = mx.getThreadCpuTime(id);
      if (cpu >= 0) {
        out.put(id, cpu);
      }
    }
    return out;
  }
}
