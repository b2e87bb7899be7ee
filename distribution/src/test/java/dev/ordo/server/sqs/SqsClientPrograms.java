package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the SQS clients that are not Java (boto3, the aws CLI, Celery): installed by
 * {@code .ci/install-python-sqs.sh} (Debian's packages; no pip), run with {@code /usr/bin/python3}.
 */
final class SqsClientPrograms {
  static final String PYTHON = "/usr/bin/python3";

  private SqsClientPrograms() {}

  /** What a program printed, and whether it exited 0 in time. */
  record Run(int exit, String out, String err) {
    boolean ok() {
      return exit == 0;
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  static void install() throws Exception {
    Path script = repoRoot().resolve(".ci/install-python-sqs.sh");
    Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.MINUTES) && p.exitValue() == 0, "could not install with " + script + ":\n" + out);
  }

  /** Runs {@code command} with {@code env} added, for at most {@code timeout}. */
  static Run run(List<String> command, Map<String, String> env, Path dir, Duration timeout) throws Exception {
    Path out = Files.createTempFile("sqs-client", ".out");
    Path err = Files.createTempFile("sqs-client", ".err");
    ProcessBuilder b = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    if (dir != null) {
      b.directory(dir.toFile());
    }
    // The pyenv shims on PATH are not Debian's Python: put /usr/bin first, where Debian's aws and python3 are.
    b.environment().put("PATH", "/usr/bin:/bin:" + b.environment().getOrDefault("PATH", ""));
    b.environment().remove("PYTHONPATH");
    b.environment().putAll(env);
    Process p = b.start();
    boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!done) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    return new Run(done ? p.exitValue() : -1, Files.readString(out), Files.readString(err));
  }

  static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !new File(dir.toFile(), ".ci/install-python-sqs.sh").isFile()) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new AssertionError(".ci/install-python-sqs.sh not found above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
