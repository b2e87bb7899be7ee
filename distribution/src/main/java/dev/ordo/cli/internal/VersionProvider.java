package dev.ordo.cli.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version from the build ({@code version.properties}, filtered by Maven). */
public final class VersionProvider implements IVersionProvider {
  public static String version() {
    try (InputStream in = VersionProvider.class.getResourceAsStream("/dev/ordo/cli/version.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version");
        if (v != null && !v.startsWith("${")) {
          return v;
        }
      }
    } catch (IOException ignored) {
      // fall through
    }
    return "dev";
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "ordo " + version(),
      "Kafka " + org.apache.kafka.common.utils.AppInfoParser.getVersion()
          + ", Java " + System.getProperty("java.version")
    };
  }
}
