package dev.ordo.testing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real schema registry for tests: Apicurio Registry (in-memory storage) as a process of its own on a
 * free loopback port, serving the Confluent-compatible API at {@link #url()}. The runnable is built
 * from Maven Central by {@code .ci/registry/build.sh} the first time (about a minute with a cold Maven
 * cache), then reused. Start-up takes about ten seconds: share one per test class.
 */
public final class SchemaRegistryServer implements AutoCloseable {
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  private final Process process;
  private final int port;
  private final Path log;

  private SchemaRegistryServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Builds the registry if needed, starts it and waits until its API answers. */
  public static SchemaRegistryServer start() throws IOException, InterruptedException {
    Path jar = build();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path log = Files.createTempFile("schema-registry-", ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(List.of(java, "-Xmx384m", "-XX:TieredStopAtLevel=1",
        "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + port, "-Dquarkus.log.level=WARN",
        "-jar", jar.toString()))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    SchemaRegistryServer server = new SchemaRegistryServer(p, port, log);
    try {
      server.awaitReady();
    } catch (IOException | InterruptedException | RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** The Confluent-compatible API root, e.g. {@code http://127.0.0.1:PORT/apis/ccompat/v7}. */
  public String url() {
    return "http://127.0.0.1:" + port + "/apis/ccompat/v7";
  }

  private void awaitReady() throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest probe = HttpRequest.newBuilder(URI.create(url() + "/subjects")).timeout(Duration.ofSeconds(5)).build();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (http.send(probe, HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      // Paces the probes, and notices a registry that died on start.
      if (process.waitFor(200, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("the schema registry exited with " + process.exitValue() + " on start:\n"
            + tail());
      }
    }
    throw new IllegalStateException("the schema registry did not answer within " + START_TIMEOUT + ":\n" + tail());
  }

  private String tail() throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** Runs {@code .ci/registry/build.sh} (a no-op once built) and returns the runner jar. */
  static Path build() throws IOException, InterruptedException {
    Path script = repoRoot().resolve(".ci/registry/build.sh");
    Process build = new ProcessBuilder("bash", script.toString()).redirectErrorStream(false).start();
    Path err = Files.createTempFile("schema-registry-build-", ".log");
    // Drain stderr to a file so a chatty build cannot block on a full pipe.
    Thread drain = new Thread(() -> {
      try {
        Files.write(err, build.getErrorStream().readAllBytes());
      } catch (IOException ignored) {
        // the exit code reports the failure
      }
    });
    drain.start();
    String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!build.waitFor(BUILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || build.exitValue() != 0) {
      build.destroyForcibly();
      drain.join(5_000);
      throw new IllegalStateException("could not build the schema registry with " + script + ":\n"
          + Files.readString(err));
    }
    drain.join(5_000);
    Path jar = Path.of(out.lines().reduce((a, b) -> b).orElse(""));
    if (!jar.toFile().isFile()) {
      throw new IllegalStateException(script + " ran but printed no runner jar: " + out);
    }
    return jar;
  }

  private static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !new File(dir.toFile(), ".ci/registry/build.sh").isFile()) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(".ci/registry/build.sh not found above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
