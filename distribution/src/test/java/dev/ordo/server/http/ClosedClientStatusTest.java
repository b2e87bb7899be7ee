package dev.ordo.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.ClientClosedException;
import dev.ordo.server.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** How the HTTP API answers a client future that failed: a closed client is 503, not a failure of ours. */
class ClosedClientStatusTest {
  private static QueueApi.ApiException failure(Throwable cause) {
    return assertThrows(QueueApi.ApiException.class,
        () -> ApiAnswers.await(CompletableFuture.failedFuture(cause), Duration.ofSeconds(1), "the dequeue"));
  }

  @Test
  void aClosedClientIsServiceUnavailable() {
    QueueApi.ApiException e = failure(new ClientClosedException("client ordo-http-1"));
    assertEquals(503, e.status);
    assertTrue(e.getMessage().contains("client ordo-http-1 is closed"), e.getMessage());
  }

  @Test
  void anyOtherIllegalStateIsAnInternalError() {
    assertEquals(500, failure(new IllegalStateException("a bug")).status);
  }

  @Test
  void theGuardAsksTheCallerToRetryA503() throws Exception {
    HttpResponse r = ApiAnswers.guarded(request -> {
      throw failure(new ClientClosedException("client ordo-http-1"));
    }).handle(null);
    assertEquals(503, r.status());
    assertEquals("1", r.headers().get("Retry-After"));
  }
}
