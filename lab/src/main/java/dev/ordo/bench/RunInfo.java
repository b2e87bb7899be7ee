package dev.ordo.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a benchmark's JSON says about the run beyond its figures, for {@code ordo bench report}: the
 * build (version and commit), the command line, the machine's memory and CPU model. {@code ordo bench}'s
 * JSON and the fault modes' ({@code --failover}, {@code --drain}, {@code --soak}, {@code --nemesis})
 * both write it into their {@code environment} object with {@link #addTo}.
 *
 * @param version the distribution's version ({@code version.properties}), or "dev"
 * @param commit {@code git describe --always --dirty} of the checkout the code was built from, or "unknown"
 * @param command the command line as typed ({@code ordo bench --full --json a.json}), or the JVM's
 *     main class and arguments when not run by {@code ordo}
 * @param memoryBytes the machine's memory (as the JVM sees it: a container's limit), or -1
 * @param cpu the CPU model ({@code /proc/cpuinfo}), or ""
 */
public record RunInfo(String version, String commit, String command, long memoryBytes, String cpu) {

  /** The JSON's kind for {@code ordo bench}'s scenarios (the fault modes name their own). */
  public static final String BENCH_KIND = "ordo-bench";

  private static final String MAIN_CLASS = "dev.ordo.cli.OrdoMain";

  /** This JVM's run: read once, cheap afterwards. */
  public static RunInfo current() {
    return Holder.CURRENT;
  }

  private static final class Holder {
    static final RunInfo CURRENT = new RunInfo(readVersion(), readCommit(), readCommand(), readMemory(), readCpu());
  }

  /** Adds {@code build}, {@code version}, {@code commit}, {@code command}, {@code memoryBytes} and {@code cpu}. */
  public void addTo(ObjectNode environment) {
    environment.put("build", version + " " + commit);
    environment.put("version", version);
    environment.put("commit", commit);
    environment.put("command", command);
    environment.put("memoryBytes", memoryBytes);
    environment.put("cpu", cpu);
  }

  /**
   * The environment every kind of JSON shares: when it started, cores, Java, OS, the load average (1 min)
   * now, and {@link #addTo}'s fields.
   */
  public static void environment(ObjectNode environment, String startedAt, double seconds) {
    environment.put("startedAt", startedAt);
    environment.put("seconds", Math.round(seconds * 1000) / 1000.0);
    environment.put("cores", Runtime.getRuntime().availableProcessors());
    environment.put("java", System.getProperty("java.version"));
    environment.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    if (load >= 0) {
      environment.putArray("loadAverages").add(Math.round(load * 100) / 100.0);
    }
    current().addTo(environment);
  }

  static String readVersion() {
    return dev.ordo.cli.internal.VersionProvider.version();
  }

  /** {@code git describe} where this class was loaded from (a checkout's target/), else in the working directory. */
  static String readCommit() {
    for (Path dir : candidateDirs()) {
      String c = git(dir);
      if (c != null) {
        return c;
      }
    }
    return "unknown";
  }

  private static List<Path> candidateDirs() {
    java.util.ArrayList<Path> dirs = new java.util.ArrayList<>();
    try {
      Path code = Path.of(RunInfo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      dirs.add(Files.isDirectory(code) ? code : code.getParent());
    } catch (Exception ignored) {
      // no code source: the working directory only
    }
    dirs.add(Path.of(System.getProperty("user.dir")));
    return dirs;
  }

  private static String git(Path dir) {
    if (dir == null || !Files.isDirectory(dir)) {
      return null;
    }
    try {
      Process p = new ProcessBuilder("git", "-C", dir.toString(), "describe", "--always", "--dirty", "--abbrev=7")
          .redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      String s = new String(out, StandardCharsets.UTF_8).trim();
      return p.exitValue() == 0 && !s.isEmpty() ? s : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** {@code ordo ARGS} from the JVM's command ({@code sun.java.command}), else that command as it is. */
  static String readCommand() {
    String c = System.getProperty("sun.java.command", "").trim();
    return c.startsWith(MAIN_CLASS + " ") || c.equals(MAIN_CLASS) ? "ordo" + c.substring(MAIN_CLASS.length()) : c;
  }

  private static long readMemory() {
    try {
      if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
        return os.getTotalMemorySize();
      }
    } catch (RuntimeException | LinkageError ignored) {
      // not a HotSpot-like JVM
    }
    return -1;
  }

  private static String readCpu() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("model name")) {
          int colon = line.indexOf(':');
          return colon < 0 ? "" : line.substring(colon + 1).trim().replaceAll("\\s+", " ");
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // not Linux
    }
    return "";
  }
}
