package dev.ordo.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Programs a test runs for real (a Prometheus server, Chromium), installed by the project's own
 * scripts in {@code .ci/} when missing, so that {@code mvn -B verify} needs nothing else.
 */
public final class ProjectTools {
  private ProjectTools() {}

  /**
   * Runs {@code .ci/<script>} unless every one of {@code programs} is an executable file already.
   *
   * @throws AssertionError when the script fails, with its output
   */
  public static void ensure(String script, Duration timeout, String... programs) throws Exception {
    boolean present = true;
    for (String p : programs) {
      present &= new File(p).canExecute();
    }
    if (present) {
      return;
    }
    Path path = repoRoot(script).resolve(".ci").resolve(script);
    Process install = new ProcessBuilder("bash", path.toString()).redirectErrorStream(true).start();
    String out = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(install.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) && install.exitValue() == 0,
        "could not install with " + path + ":\n" + out);
    for (String p : programs) {
      assertTrue(new File(p).canExecute(), path + " ran but " + p + " is not there:\n" + out);
    }
  }

  private static Path repoRoot(String script) {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve(".ci").resolve(script))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new AssertionError(".ci/" + script + " not found above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
