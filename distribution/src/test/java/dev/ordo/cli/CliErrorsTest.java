package dev.ordo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.ordo.server.internal.StateDir;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad flags, busy ports and unusable state directories end {@code ordo} with one line on stderr
 * (no stack trace) and a non-zero exit code. None of these cases starts Kafka.
 */
class CliErrorsTest {
  @TempDir
  Path tmp;

  private static void assertOneLineError(Cli.Result r, int code, String expected) {
    assertEquals(code, r.exitCode(), () -> "exit code; stderr: " + r.err());
    assertEquals(1, r.errLines().size(), () -> "want one line on stderr, got:\n" + r.err());
    String line = r.errLines().get(0);
    assertTrue(line.contains(expected), () -> "want '" + expected + "' in: " + line);
    assertFalse(line.contains("Exception"), () -> "no exception names: " + line);
    assertFalse(line.matches(".*\\bat [a-z]+\\..*\\(.*\\).*"), () -> "no stack frames: " + line);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "server --partitions 0                              | --partitions",
      "server --partitions many                           | 'many' is not a whole number",
      "server --delay-tiers 5x                            | not a duration",
      "server --delay-tiers 1m,30s                        | strictly increasing",
      "server --delay-tiers 0s,1m                         | longer than 0",
      "server --http-port 70000                           | 70000 is not a port number",
      "server --http-port -1                              | --http-port",
      "server --kafka-port http                           | 'http' is not a port number",
      "server --cluster a/b                               | cluster name must be",
      "server --bootstrap-servers nohost                  | 'nohost' is not host:port",
      "server --bootstrap-servers 127.0.0.1:9092 --kafka-port 9093 | --kafka-port is for the embedded broker",
      "server --no-such-flag                              | Unknown option: '--no-such-flag'",
      "server extra                                       | Unmatched argument",
      "server --partitions                                | Missing required parameter",
      "frobnicate                                         | Unmatched argument",
  })
  void badFlagsAreUsageErrors(String args, String expected) {
    Cli.Result r = Cli.run(args.trim().split("\\s+"));
    assertOneLineError(r, OrdoMain.EXIT_USAGE, expected);
    assertTrue(r.errLines().get(0).startsWith("ordo"), r.err());
  }

  @Test
  void noCommandIsAUsageError() {
    assertOneLineError(Cli.run(), OrdoMain.EXIT_USAGE, "missing command");
  }

  @Test
  void helpAndVersionSucceed() {
    Cli.Result help = Cli.run("--help");
    assertEquals(0, help.exitCode());
    assertTrue(help.out().contains("server"), help.out());
    Cli.Result serverHelp = Cli.run("server", "--help");
    assertEquals(0, serverHelp.exitCode());
    for (String flag : new String[] {"--bootstrap-servers", "--cluster", "--partitions", "--state-dir",
        "--http-port", "--delay-tiers"}) {
      assertTrue(serverHelp.out().contains(flag), () -> flag + " missing in:\n" + serverHelp.out());
    }
    assertTrue(serverHelp.out().contains("30s,1m,5m,30m"), serverHelp.out());
    Cli.Result helpCommand = Cli.run("help", "server");
    assertEquals(0, helpCommand.exitCode());
    Cli.Result version = Cli.run("--version");
    assertEquals(0, version.exitCode());
    assertTrue(version.out().startsWith("ordo "), version.out());
    assertTrue(version.out().contains("Kafka 4.3.1"), version.out());
  }

  @Test
  void benchWithoutTheLabSaysWhereToFindIt() {
    // The lab (module lab) is not on this module's class path, as in an installation (decisions 0064).
    for (String[] args : new String[][] {{"bench"}, {"bench", "--quick"}, {"bench", "--help"}}) {
      assertOneLineError(Cli.run(args), OrdoMain.EXIT_USAGE, "the lab (ordo bench and its fault modes) is not part"
          + " of this installation; run it from a checkout of the Ordo sources, where ./ordo adds it");
    }
    Cli.Result help = Cli.run("--help");
    assertFalse(help.out().contains("bench"), help.out());
    assertTrue(help.out().contains("  help "), help.out());
  }

  @Test
  void busyHttpPort() throws Exception {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      int port = busy.getLocalPort();
      Cli.Result r = Cli.run("server", "--http-port", Integer.toString(port), "--state-dir", tmp.resolve("s").toString());
      assertOneLineError(r, OrdoMain.EXIT_FAILURE, "HTTP port " + port + " is already in use");
    }
  }

  @Test
  void busyKafkaPort() throws Exception {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      int port = busy.getLocalPort();
      Cli.Result r = Cli.run("server", "--http-port", "0", "--kafka-port", Integer.toString(port),
          "--state-dir", tmp.resolve("s").toString());
      assertOneLineError(r, OrdoMain.EXIT_FAILURE, "Kafka port " + port + " is already in use");
    }
  }

  @Test
  void stateDirIsAFile() throws Exception {
    Path file = Files.writeString(tmp.resolve("file"), "x");
    Cli.Result r = Cli.run("server", "--http-port", "0", "--state-dir", file.toString());
    assertOneLineError(r, OrdoMain.EXIT_FAILURE, "is not a directory");
  }

  @Test
  void stateDirUnderAFile() throws Exception {
    Path file = Files.writeString(tmp.resolve("file"), "x");
    Cli.Result r = Cli.run("server", "--http-port", "0", "--state-dir", file.resolve("state").toString());
    assertOneLineError(r, OrdoMain.EXIT_FAILURE, "cannot create state directory");
  }

  @Test
  void stateDirInUse() {
    Path dir = tmp.resolve("locked");
    try (StateDir held = StateDir.open(dir)) {
      Cli.Result r = Cli.run("server", "--http-port", "0", "--state-dir", dir.toString());
      assertOneLineError(r, OrdoMain.EXIT_FAILURE, "is in use by another ordo server");
    }
  }

  @Test
  void stateDirNotWritable() throws Exception {
    assumeFalse("root".equals(System.getProperty("user.name")), "root may write anywhere");
    Path dir = Files.createDirectory(tmp.resolve("readonly"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-xr-xr-x")));
    Cli.Result r = Cli.run("server", "--http-port", "0", "--state-dir", dir.toString());
    assertOneLineError(r, OrdoMain.EXIT_FAILURE, "is not writable");
  }
}
