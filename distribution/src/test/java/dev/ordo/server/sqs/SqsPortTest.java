package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.server.ServerSettings;
import dev.ordo.server.StartupException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SQS port: a port in use stops the start in one line naming the flag; its setting is checked. */
class SqsPortTest {
  @Test
  void aPortInUseStopsTheStartNamingTheFlag() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      StartupException e = assertThrows(StartupException.class, () -> SqsHttpServer.start("127.0.0.1",
          taken.getLocalPort(), null, null, r -> null, SqsHttpServer.Auditor.NONE));
      assertEquals("SQS port " + taken.getLocalPort() + " is already in use; choose another with --sqs-port"
          + " (ordo.sqs.port; -1: any free port, 0: no SQS endpoint)", e.getMessage());
    }
  }

  @Test
  void theSettingsAreCheckedLikeEveryOrdoKey() {
    assertEquals(0, new SqsConfig(Map.of(SqsConfig.PORT_CONFIG, "0")).port());
    assertEquals(SqsConfig.DEFAULT_PORT, new SqsConfig(Map.of()).port());
    assertEquals("sqs", new SqsConfig(Map.of()).namespace());
    ServerSettings.SettingException low = assertThrows(ServerSettings.SettingException.class,
        () -> ServerSettings.of(Map.of(SqsConfig.PORT_CONFIG, "-2"), "the test"));
    assertEquals(true, low.getMessage().contains("ordo.sqs.port"), low.getMessage());
    ServerSettings.SettingException slash = assertThrows(ServerSettings.SettingException.class,
        () -> ServerSettings.of(Map.of(SqsConfig.NAMESPACE_CONFIG, "a/b"), "the test"));
    assertEquals(true, slash.getMessage().contains("ordo.sqs.namespace"), slash.getMessage());
  }
}
