package dev.ordo.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code ordo server} in a JVM of its own, started from this JVM's class path, so that a fault
 * run can kill it with SIGKILL (mid-transaction, as a crashed machine would) or stop it with SIGTERM,
 * and read its memory from outside: resident set size from {@code /proc}, and heap after a full GC
 * through {@code jcmd}.
 */
public final class ServerProcess implements AutoCloseable {
  private static final Pattern HTTP_LINE = Pattern.compile("^\\s+HTTP:\\s+(\\S+)");
  /** A heap's or generation's line of {@code GC.heap_info}: one for G1, one a generation for Serial and Parallel. */
  private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int KEPT_LINES = 200;

  private final String name;
  private final Process process;
  private final Deque<String> lastLines = new ArrayDeque<>();
  private final CompletableFuture<URI> http = new CompletableFuture<>();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Path logFile;

  private ServerProcess(String name, Process process, Path logFile) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
    Thread reader = new Thread(this::readOutput, "server-output-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code ordo server --bootstrap-servers bootstrap --config <file of settings>} and waits
   * until it prints its HTTP address (the queue runs by then).
   *
   * @param jvmOptions options of the server's JVM, e.g. {@code -Xmx1g}
   * @param settings the server's settings ({@code --config}), e.g. {@code ordo.cluster}
   */
  public static ServerProcess start(String name, String bootstrap, List<String> jvmOptions, Map<String, String> settings,
      Path dir, Duration timeout) {
    try {
      Files.createDirectories(dir);
      Path config = dir.resolve(name + ".properties");
      Properties p = new Properties();
      // Several servers run on one machine here: the SQS endpoint on any free port, not all on 9324.
      p.put(dev.ordo.server.sqs.SqsConfig.PORT_CONFIG, "-1");
      p.putAll(settings);
      try (var out = Files.newBufferedWriter(config)) {
        p.store(out, "ordo server " + name);
      }
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.ordo.cli.OrdoMain", "server",
          "--bootstrap-servers", bootstrap, "--config", config.toString()));
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      ServerProcess server = new ServerProcess(name, process, dir.resolve(name + ".log"));
      try {
        server.http.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        server.close();
        throw new IllegalStateException("ordo server " + name + " did not start within " + timeout.toSeconds()
            + " s; its last lines:\n" + server.lastLines(), e);
      }
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void readOutput() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
         var log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
             java.nio.file.StandardOpenOption.APPEND)) {
      String line;
      while ((line = r.readLine()) != null) {
        log.write(line);
        log.newLine();
        log.flush();
        synchronized (lastLines) {
          lastLines.addLast(line);
          if (lastLines.size() > KEPT_LINES) {
            lastLines.removeFirst();
          }
        }
        Matcher m = HTTP_LINE.matcher(line);
        if (m.find()) {
          http.complete(URI.create(m.group(1)));
        }
      }
    } catch (IOException e) {
      // the process ended
    }
    http.completeExceptionally(new IllegalStateException("ordo server " + name + " ended"));
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public URI httpAddress() {
    return http.join();
  }

  /** Where everything the server printed is kept (appended to across restarts of the same name). */
  public Path logFile() {
    return logFile;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** The server's last lines of output (stdout and stderr), for error messages. */
  public String lastLines() {
    synchronized (lastLines) {
      return String.join("\n", lastLines);
    }
  }

  /** SIGKILL: the JVM dies at once, mid-transaction, as on a crashed machine. */
  public void kill() {
    process.destroyForcibly();
    await();
  }

  /** SIGTERM: the server's shutdown hook stops it cleanly. */
  public void stop() {
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    }
  }

  private void await() {
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The partitions whose queue tasks run on this server (active), from its {@code GET /v1/cluster};
   * empty when it does not answer.
   */
  public Set<Integer> activePartitions() {
    Set<Integer> active = new TreeSet<>();
    JsonNode cluster = getJson("/v1/cluster");
    if (cluster == null) {
      return active;
    }
    for (JsonNode instance : cluster.path("instances")) {
      if (instance.path("self").asBoolean()) {
        instance.path("activePartitions").forEach(p -> active.add(p.asInt()));
      }
    }
    return active;
  }

  /** Partitions that have a standby task somewhere, from this server's {@code GET /v1/cluster}. */
  public Set<Integer> partitionsWithStandby() {
    Set<Integer> covered = new TreeSet<>();
    JsonNode cluster = getJson("/v1/cluster");
    if (cluster == null) {
      return covered;
    }
    for (JsonNode partition : cluster.path("partitions")) {
      if (partition.path("standbys").size() > 0) {
        covered.add(partition.path("partition").asInt());
      }
    }
    return covered;
  }

  /** The body of {@code GET path} with its status, for diagnostics; the error when it fails. */
  public String get(String path) {
    try {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(httpAddress().resolve(path))
          .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() + " " + r.body();
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e.toString();
    }
  }

  private JsonNode getJson(String path) {
    try {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(httpAddress().resolve(path))
          .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** Resident set size (VmRSS of {@code /proc/<pid>/status}), or -1 where there is no such file. */
  public long rssBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or the process is gone
    }
    return -1;
  }

  /**
   * The heap in use right after a full collection: {@code jcmd <pid> GC.run}, then the used heap of
   * {@code jcmd <pid> GC.heap_info} (its generations' summed, with a generational collector). -1 when
   * jcmd fails.
   */
  public long heapAfterGcBytes() {
    if (jcmd("GC.run") == null) {
      return -1;
    }
    String info = jcmd("GC.heap_info");
    if (info == null) {
      return -1;
    }
    Matcher m = HEAP_USED.matcher(info);
    long usedKiB = -1;
    while (m.find()) {
      usedKiB = Math.max(usedKiB, 0) + Long.parseLong(m.group(1));
    }
    return usedKiB < 0 ? -1 : usedKiB * 1024;
  }

  private String jcmd(String command) {
    try {
      Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
          Long.toString(pid()), command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }
}
