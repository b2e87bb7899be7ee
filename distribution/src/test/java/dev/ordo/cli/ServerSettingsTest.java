package dev.ordo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.ServerSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ordo server --config} and {@code ORDO_*}: every key checked against its ConfigDef before
 * anything starts (one line naming the key, exit 2), secrets hidden, and docs/running.md's table of
 * keys generated from the ConfigDefs (this test fails when they drift apart).
 */
class ServerSettingsTest {
  @TempDir
  Path tmp;

  private Cli.Result serverWith(String properties) throws Exception {
    Path file = tmp.resolve("ordo.properties");
    Files.writeString(file, properties, StandardCharsets.UTF_8);
    return Cli.run("server", "--config", file.toString(), "--state-dir", tmp.resolve("state").toString());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "ordo.lease.defualt.ms=1000 | unknown setting 'ordo.lease.defualt.ms'",
      "ordo.lease.default.ms=-5 | invalid value for 'ordo.lease.default.ms'",
      "ordo.lease.default.ms=soon | invalid value for 'ordo.lease.default.ms'",
      "ordo.ttl.dead.letter=maybe | invalid value for 'ordo.ttl.dead.letter'",
      "ordo.client.dequeue.gather.ms=99999999 | invalid value for 'ordo.client.dequeue.gather.ms'",
      "streams.num.standby.replica=1 | unknown setting 'streams.num.standby.replica'",
      "streams.num.standby.replicas=one | invalid value for 'streams.num.standby.replicas'",
      "streams.producer.lingr.ms=5 | unknown setting 'streams.producer.lingr.ms'",
      "security.protcol=SASL_SSL | unknown setting 'security.protcol'",
      "security.protocol=SASL_SLS | invalid value for 'security.protocol'",
      "ordo.server.http.port=70000 | invalid value for 'ordo.server.http.port'",
      "ordo.server.http.headers.max.count=500 | invalid value for 'ordo.server.http.headers.max.count'",
      "ordo.server.http.body.max.bytes=-1 | invalid value for 'ordo.server.http.body.max.bytes'",
      "ordo.server.http.request.timeout.ms=10 | invalid value for 'ordo.server.http.request.timeout.ms'"})
  void aBadKeyOrValueInTheFileStopsTheServerWithOneLineNamingIt(String line, String expected) throws Exception {
    Cli.Result r = serverWith(line + "\n");
    assertEquals(OrdoMain.EXIT_USAGE, r.exitCode(), r::err);
    assertTrue(r.err().contains(expected), () -> "want '" + expected + "' in: " + r.err());
    assertEquals(1, r.errLines().stream().filter(l -> !l.isBlank()).count(), r::err);
    assertTrue(r.err().contains("ordo.properties"), () -> "names the file: " + r.err());
    assertFalse(r.err().contains("Exception"), r::err);
  }

  @Test
  void aBadEnvironmentVariableStopsTheServerNamingItsKeyButTheLaunchersOwnAreIgnored() {
    Cli.Result r = Cli.runWithEnvironment(Map.of("ORDO_LEASE_DEFAULT_MS", "soon", "ORDO_JAVA_OPTS", "-Xmx1g",
        "ORDO_SKIP_BUILD", "1"), "server", "--state-dir", tmp.resolve("state").toString());
    assertEquals(OrdoMain.EXIT_USAGE, r.exitCode(), r::err);
    assertTrue(r.err().contains("invalid value for 'ordo.lease.default.ms' (from the environment)"), r::err);

    Cli.Result unknown = Cli.runWithEnvironment(Map.of("ORDO_NO_SUCH_THING", "1"), "server");
    assertEquals(OrdoMain.EXIT_USAGE, unknown.exitCode(), unknown::err);
    assertTrue(unknown.err().contains("unknown setting 'ordo.no.such.thing'"), unknown::err);
  }

  @Test
  void theSqsPortFlagSetsItsKeyOverTheEnvironment() {
    ServerCommand cmd = new ServerCommand(java.util.List::of, false, server -> { },
        () -> Map.of("ORDO_SQS_PORT", "9999"));
    new picocli.CommandLine(cmd).parseArgs("--sqs-port", "0");
    assertEquals("0", cmd.config().settings().ordo("ordo.sqs.port"));
    ServerCommand fromEnvironment = new ServerCommand(java.util.List::of, false, server -> { },
        () -> Map.of("ORDO_SQS_PORT", "9999"));
    new picocli.CommandLine(fromEnvironment).parseArgs();
    assertEquals("9999", fromEnvironment.config().settings().ordo("ordo.sqs.port"));
  }

  @Test
  void aMissingConfigFileIsAnError() {
    Cli.Result r = Cli.run("server", "--config", tmp.resolve("nope.properties").toString());
    assertEquals(OrdoMain.EXIT_USAGE, r.exitCode(), r::err);
    assertTrue(r.err().contains("does not exist"), r::err);
  }

  @Test
  void environmentVariablesMapToKeysBothWays() {
    for (String key : documentedKeys()) {
      String variable = ServerSettings.variableOf(key);
      assertEquals(Map.of(key, "x"), ServerSettings.fromEnvironment(Map.of(variable, "x")), variable);
    }
    assertEquals(Map.of("sasl.jaas.config", "j", "streams.num.standby.replicas", "2", "ordo.lease.default.ms", "5"),
        ServerSettings.fromEnvironment(Map.of("ORDO_KAFKA_SASL_JAAS_CONFIG", "j", "ORDO_STREAMS_NUM_STANDBY_REPLICAS", "2",
            "ORDO_LEASE_DEFAULT_MS", "5", "ORDO_SERVER", "http://x", "PATH", "/bin")));
  }

  @Test
  void secretsAreHiddenWhereTheSettingsAreShown() {
    ServerSettings s = ServerSettings.of(Map.of("sasl.jaas.config", "PlainLoginModule required password=\"p\";",
        "ssl.truststore.password", "p", "ssl.key.password", "p", "streams.producer.sasl.jaas.config", "j",
        "security.protocol", "SASL_SSL", "ordo.lease.default.ms", "1000"), "test");
    Map<String, String> shown = s.describe();
    assertEquals("[hidden]", shown.get("sasl.jaas.config"));
    assertEquals("[hidden]", shown.get("ssl.truststore.password"));
    assertEquals("[hidden]", shown.get("ssl.key.password"));
    assertEquals("[hidden]", shown.get("streams.producer.sasl.jaas.config"));
    assertEquals("SASL_SSL", shown.get("security.protocol"));
    assertEquals("1000", shown.get("ordo.lease.default.ms"));
    assertEquals("1000", s.effective().get("ordo.lease.default.ms"));
    assertEquals("5", s.effective().get("ordo.max.attempts.default"), "an unset key shows its default");
    assertFalse(s.effective().toString().contains("password=\"p\""));
  }

  @Test
  void theKeysInRunningMdAreTheOnesTheConfigDefsGenerate() throws Exception {
    String doc = Files.readString(runningMd(), StandardCharsets.UTF_8);
    int from = doc.indexOf(BEGIN);
    int to = doc.indexOf(END);
    assertTrue(from >= 0 && to > from, "docs/running.md has the generated section between " + BEGIN + " and " + END);
    String inDoc = doc.substring(from + BEGIN.length(), to).strip();
    assertEquals(ServerSettings.markdown().strip(), inDoc,
        "docs/running.md's settings differ from the ConfigDefs: paste the output of 'ordo server --list-settings'"
            + " between the markers");
  }

  static final String BEGIN = "<!-- settings: generated by ordo server --list-settings; do not edit -->";
  static final String END = "<!-- end of settings -->";

  private static Path runningMd() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/running.md"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new AssertionError("docs/running.md not found above " + Path.of("").toAbsolutePath());
    }
    return dir.resolve("docs/running.md");
  }

  private static java.util.List<String> documentedKeys() {
    Matcher m = Pattern.compile("\\| `([a-z0-9.]+)` \\|").matcher(ServerSettings.markdown());
    java.util.List<String> keys = new java.util.ArrayList<>();
    while (m.find()) {
      keys.add(m.group(1));
    }
    assertTrue(keys.size() > 30, "the generated tables list Ordo's keys: " + keys);
    return keys;
  }
}
