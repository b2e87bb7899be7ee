package dev.ordo.connect.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The enqueues a task sent since its last offset commit. The commit may only cover records whose
 * item Kafka acknowledged: {@link #awaitAll} waits for every one and says whether any failed.
 */
public final class PendingSends {
  private final List<CompletableFuture<?>> sends = new ArrayList<>();

  public void add(CompletableFuture<?> send) {
    sends.add(send);
  }

  public int size() {
    return sends.size();
  }

  /**
   * Waits until every send has completed (at most {@code timeoutMs} in all) and forgets them. Returns
   * null when all succeeded, else the first failure (or the timeout); the caller must then not commit.
   */
  public Throwable awaitAll(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Throwable first = null;
    try {
      for (CompletableFuture<?> f : sends) {
        try {
          f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
          if (first == null) {
            first = e.getCause();
          }
        } catch (TimeoutException e) {
          if (first == null) {
            first = new TimeoutException(sends.size() + " enqueues were not acknowledged within " + timeoutMs + " ms");
          }
          break;
        }
      }
    } finally {
      sends.clear();
    }
    return first;
  }
}
