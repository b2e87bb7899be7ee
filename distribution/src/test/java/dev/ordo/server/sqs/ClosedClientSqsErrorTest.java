package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.client.ClientClosedException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** How the SQS endpoint answers a client future that failed: a closed client is ServiceUnavailable (SDKs retry it). */
class ClosedClientSqsErrorTest {
  private static SqsError failure(Throwable cause) {
    return assertThrows(SqsException.class,
        () -> SqsActions.await(CompletableFuture.failedFuture(cause), Duration.ofSeconds(1), "the receive")).error();
  }

  @Test
  void aClosedClientIsServiceUnavailable() {
    assertEquals(SqsError.SERVICE_UNAVAILABLE, failure(new ClientClosedException("client ordo-sqs-1")));
  }

  @Test
  void anyOtherIllegalStateIsAnInternalError() {
    assertEquals(SqsError.INTERNAL_ERROR, failure(new IllegalStateException("a bug")));
  }
}
