package dev.ordo.server.http;

import dev.ordo.client.BacklogFullException;
import dev.ordo.client.ClientClosedException;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.internal.Messages;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the HTTP handlers' waits and refusals become answers: a client future's failure as a status
 * ({@link #await}), an {@link ApiException} as an {@code {"error"}} answer ({@link #guarded}).
 */
final class ApiAnswers {
  private static final Logger LOG = LoggerFactory.getLogger(ApiAnswers.class);

  /** Time given beyond a dequeue's wait or the client's request timeout before answering 504. */
  static final Duration SLACK = Duration.ofSeconds(15);

  private ApiAnswers() {}

  /** A handler that may answer with an {@link ApiException}. */
  @FunctionalInterface
  interface ApiHandler {
    HttpResponse handle(HttpRequest request) throws ApiException;
  }

  /**
   * Waits for a client future: Kafka failures are 503, no answer in time 504, a full backlog 429,
   * a closed client (the server is stopping) 503.
   */
  static <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws ApiException {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      throw new ApiException(503, "interrupted while waiting for " + what + " (the server is stopping)");
    } catch (TimeoutException e) {
      throw new ApiException(504, "no answer to " + what + " within " + timeout.toMillis() + " ms; it may still apply");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof TimeoutException) {
        throw new ApiException(504, Messages.oneLine(cause));
      }
      if (cause instanceof BacklogFullException) {
        throw new ApiException(429, cause.getMessage());
      }
      if (cause instanceof IllegalArgumentException) {
        throw (IllegalArgumentException) cause;
      }
      if (cause instanceof KafkaException) {
        throw new ApiException(503, "Kafka failed " + what + ": " + Messages.oneLine(cause));
      }
      if (cause instanceof ClientClosedException) {
        throw new ApiException(503, Messages.oneLine(cause) + " (the server is stopping)");
      }
      LOG.warn("{} failed", what, cause);
      throw new ApiException(500, what + " failed: " + Messages.oneLine(cause));
    }
  }

  /** Turns {@link ApiException}s into {@code {"error"}} answers; IllegalArgumentException stays the router's 400. */
  static HttpRouter.Handler guarded(ApiHandler handler) {
    return request -> {
      try {
        return handler.handle(request);
      } catch (ApiException e) {
        if (e.status >= 500 && e.status != 503) {
          // A timeout or a failure of ours (503, Kafka away, is logged where it is noticed): say it here too.
          LOG.warn("HTTP {} {}: {} {}", request.method(), request.path(), e.status, e.getMessage());
        }
        HttpResponse response = HttpResponse.error(e.status, e.getMessage());
        // 503: Kafka is away; 429: the namespace's backlog is full, and its counts refresh every second.
        return e.status == 503 || e.status == 429 ? response.withHeader("Retry-After", "1") : response;
      }
    };
  }
}
