package dev.ordo.bench.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time by kind of thread since it was made, for the bench's trace: a kind is a thread's name with
 * its numbers and ids taken out, so a broker's request handlers, a client's network threads or the
 * queue's stream threads each add up. What the process used beyond its Java threads (the garbage
 * collector, the JIT compiler) is the kind {@link #NOT_JAVA}.
 */
final class ThreadKinds {
  static final String NOT_JAVA = "(not a Java thread: GC, JIT compiler, VM)";
  private static final String UUID = "[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}";

  private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> cpu0 = threads();
  private final long process0 = CpuClock.processCpu();

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
      out.merge(NOT_JAVA, process - process0 - java, Long::sum);
    }
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
