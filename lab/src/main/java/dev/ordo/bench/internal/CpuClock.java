package dev.ordo.bench.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time used since it was made: by this process, and by the Kafka Streams stream threads in it
 * (NaN where the JVM cannot tell).
 */
final class CpuClock {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final long process0 = processCpu();
  private final Map<Long, Long> stream0 = streamThreads();

  long processNanos() {
    long now = processCpu();
    return now < 0 || process0 < 0 ? -1 : now - process0;
  }

  /** CPU of stream threads since then (threads that ended meanwhile are not counted). */
  double streamThreadNanos() {
    if (!threads.isThreadCpuTimeSupported()) {
      return Double.NaN;
    }
    long sum = 0;
    for (Map.Entry<Long, Long> e : streamThreads().entrySet()) {
      sum += e.getValue() - stream0.getOrDefault(e.getKey(), 0L);
    }
    return sum;
  }

  private Map<Long, Long> streamThreads() {
    Map<Long, Long> out = new HashMap<>();
    if (!threads.isThreadCpuTimeSupported()) {
      return out;
    }
    for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && t.getThreadName().contains("-StreamThread-")) {
        long cpu = threads.getThreadCpuTime(t.getThreadId());
        if (cpu >= 0) {
          out.put(t.getThreadId(), cpu);
        }
      }
    }
    return out;
  }

  static long processCpu() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }
}
