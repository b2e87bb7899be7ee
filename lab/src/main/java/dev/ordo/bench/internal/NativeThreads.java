package dev.ordo.bench.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU of the JVM's own threads, the ones {@code ThreadMXBean} does not list, read from Linux's
 * {@code /proc/self/task}: the garbage collector's ({@link #GC}) and the JIT compiler's ({@link #JIT}).
 * Empty where there is no {@code /proc} (the caller then reports them together). A thread that ended
 * between two readings is not counted; the JIT's compiler threads come and go
 * ({@code -XX:+UseDynamicNumberOfCompilerThreads}), so what they did before they ended falls to the rest.
 */
final class NativeThreads {
  static final String GC = "GC";
  static final String JIT = "JIT";
  /** Nanoseconds in one tick of {@code /proc}'s CPU times ({@code USER_HZ}, 100 on Linux). */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private final Map<Integer, Sample> start = read();

  private record Sample(String kind, long ticks) {}

  /** The CPU (ns) of each of {@link #GC} and {@link #JIT} since this was made; empty without {@code /proc}. */
  Map<String, Long> since() {
    Map<String, Long> out = new HashMap<>();
    read().forEach((tid, now) -> {
      Sample then = start.get(tid);
      long ticks = now.ticks - (then == null ? 0 : then.ticks);
      out.merge(now.kind, ticks * NANOS_PER_TICK, Long::sum);
    });
    return out;
  }

  /** Which of the two a thread of this name ({@code comm}, at most 15 characters) is, or null: neither. */
  static String kindOf(String comm) {
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("ZGC") || comm.startsWith("Shenandoah")) {
      return GC;
    }
    if (comm.contains("CompilerThre")) {
      return JIT;
    }
    return null;
  }

  /** Each GC or JIT task's ticks (utime + stime) by its id. */
  private static Map<Integer, Sample> read() {
    Map<Integer, Sample> out = new HashMap<>();
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return out;
    }
    try (Stream<Path> list = Files.list(tasks)) {
      list.forEach(task -> {
        try {
          String stat = Files.readString(task.resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          String kind = kindOf(stat.substring(open + 1, close));
          if (kind != null) {
            // After "pid (comm) ": state is field 3, utime 14 and stime 15 (proc(5)).
            String[] f = stat.substring(close + 2).split(" ");
            out.put(Integer.parseInt(task.getFileName().toString()), new Sample(kind,
                Long.parseLong(f[11]) + Long.parseLong(f[12])));
          }
        } catch (IOException | RuntimeException e) {
          // The task ended while being read: it is not counted.
        }
      });
    } catch (IOException e) {
      return out;
    }
    return out;
  }
}
