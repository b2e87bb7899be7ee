package dev.ordo.client.internal;

import dev.ordo.schema.DeliveredItem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One dequeue in progress: its requester id, what it wants, until when, and the items received
 * so far. Created by the calling thread; after registration only the client's poll thread
 * touches its mutable state. The decisions ({@link #shouldFinish}) are pure functions of
 * {@code now}.
 */
public final class PendingDequeue {
  private final String requesterId;
  private final String namespace;
  private final Map<String, Integer> wanted;
  private final long deadline;
  private final CompletableFuture<List<DeliveredItem>> future = new CompletableFuture<>();
  private final List<DeliveredItem> received = new ArrayList<>();
  private long firstArrivalAt = -1;
  private long nextRefreshAt;
  private volatile Throwable failure;

  public PendingDequeue(String requesterId, String namespace, Map<String, Integer> wanted, long deadline,
      long nextRefreshAt) {
    this.requesterId = requesterId;
    this.namespace = namespace;
    this.wanted = Map.copyOf(wanted);
    this.deadline = deadline;
    this.nextRefreshAt = nextRefreshAt;
  }

  public String requesterId() {
    return requesterId;
  }

  public String namespace() {
    return namespace;
  }

  public Map<String, Integer> wanted() {
    return wanted;
  }

  public long deadline() {
    return deadline;
  }

  public CompletableFuture<List<DeliveredItem>> future() {
    return future;
  }

  public List<DeliveredItem> received() {
    return received;
  }

  public void offer(DeliveredItem item, long now) {
    if (firstArrivalAt < 0) {
      firstArrivalAt = now;
    }
    received.add(item);
  }

  /** A demand could not be sent: the dequeue fails (from a producer callback thread). */
  public void fail(Throwable error) {
    if (failure == null) {
      failure = error;
    }
  }

  public Throwable failure() {
    return failure;
  }

  /**
   * Done at the deadline, or {@code gatherMs} after the first item arrived: like SQS's long poll,
   * a dequeue waits only while nothing is ready, and the gather window lets the other partitions
   * offer better items.
   */
  public boolean shouldFinish(long now, long gatherMs) {
    return now >= deadline || firstArrivalAt >= 0 && now >= firstArrivalAt + gatherMs;
  }

  /** What to ask the partitions for now: the counts not yet covered, or empty when covered. */
  public Map<String, Integer> stillWanted() {
    return Selection.remaining(wanted, received);
  }

  public boolean refreshDue(long now) {
    return now >= nextRefreshAt;
  }

  public void refreshed(long nextRefreshAt) {
    this.nextRefreshAt = nextRefreshAt;
  }
}
