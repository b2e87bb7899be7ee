package dev.ordo.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.internal.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ctrl-C while the server waits for an unreachable Kafka stops it at once, not after the 30 s timeout. */
class CloseWhileStartingTest {
  @TempDir
  Path tmp;

  @Test
  void closeInterruptsAStartThatWaitsForKafka() throws Exception {
    // Nothing listens there: the start waits for Kafka.
    String nowhere = "127.0.0.1:" + Ports.freeLoopbackPort();
    OrdoServer server = new OrdoServer(ServerConfig.builder().bootstrapServers(nowhere)
        .stateDir(tmp).httpPort(0).build(), List.of());
    CompletableFuture<Void> start = CompletableFuture.runAsync(server::start);

    HttpClient client = HttpClient.newHttpClient();
    await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
      HttpResponse<String> health = client.send(
          HttpRequest.newBuilder(URI.create(server.httpAddress() + "/health")).build(),
          HttpResponse.BodyHandlers.ofString());
      return health.statusCode() == 503 && health.body().contains("\"STARTING\"");
    });

    long t0 = System.nanoTime();
    server.close();
    long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(server.isClosed());
    assertTrue(closeMillis < 10_000, "close took " + closeMillis + " ms");
    ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> start.get(10, TimeUnit.SECONDS));
    assertEquals(StartupException.class, failed.getCause().getClass());
    assertEquals("stopped while starting", failed.getCause().getMessage());
    // The state directory is released.
    try (var again = dev.ordo.server.internal.StateDir.open(tmp)) {
      assertTrue(again.path().endsWith(tmp.getFileName()));
    }
  }
}
