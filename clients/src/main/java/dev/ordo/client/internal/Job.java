package dev.ordo.client.internal;

import dev.ordo.api.ItemId;
import dev.ordo.schema.DeliveredItem;

/**
 * One leased item being worked on by a {@link dev.ordo.client.LeaseConsumer}: its lease as this
 * consumer knows it, when to heartbeat, and the worker thread to interrupt if the lease is lost.
 *
 * <p>States: held (lost() == null) until the queue refuses a heartbeat (the item was acked,
 * cancelled or redelivered elsewhere) or no heartbeat was answered before the lease's local
 * deadline; then lost, and the handler's thread is interrupted. The local deadline is
 * conservative: it counts from when a heartbeat was sent (or the delivery was received, minus
 * its transit), never from the queue's clock.
 */
public final class Job {
  private final DeliveredItem item;
  private final ItemId id;
  private final String key;
  private final int partition;
  private final long leaseMs;
  private final double heartbeatFraction;
  private volatile long localExpiry;
  private volatile long nextHeartbeat;
  private volatile boolean heartbeatInFlight;
  private volatile String lost;
  private volatile boolean interruptedByClose;
  private volatile boolean released;
  private Thread runner; // guarded by this
  private boolean running; // guarded by this
  private boolean started; // guarded by this

  /**
   * @param recordTimestamp the delivery record's timestamp: the queue's clock when it leased the item
   * @param receivedAt this consumer's clock when it read the delivery
   */
  public Job(DeliveredItem item, int partition, long recordTimestamp, long receivedAt, double heartbeatFraction) {
    this.item = item;
    this.id = ItemId.parse(item.getItemId());
    this.key = key(item);
    this.partition = partition;
    long lease = item.getLeaseExpiresAt() - recordTimestamp;
    if (lease <= 0) {
      lease = Math.max(1, item.getLeaseExpiresAt() - receivedAt);
    }
    this.leaseMs = lease;
    this.heartbeatFraction = heartbeatFraction;
    long transit = Math.min(Math.max(0, receivedAt - recordTimestamp), lease / 2);
    this.localExpiry = receivedAt - transit + lease;
    this.nextHeartbeat = receivedAt - transit + (long) (lease * heartbeatFraction);
  }

  /** Jobs are keyed by item and lease: a redelivery of the same item is another job. */
  public static String key(DeliveredItem item) {
    return item.getItemId() + "@" + item.getLeaseId();
  }

  public DeliveredItem item() {
    return item;
  }

  public ItemId id() {
    return id;
  }

  public String key() {
    return key;
  }

  public int partition() {
    return partition;
  }

  public long leaseMs() {
    return leaseMs;
  }

  public long localExpiry() {
    return localExpiry;
  }

  public boolean heartbeatDue(long now) {
    return lost == null && !heartbeatInFlight && now >= nextHeartbeat;
  }

  public boolean expired(long now) {
    return lost == null && now >= localExpiry;
  }

  public void heartbeatSent() {
    heartbeatInFlight = true;
  }

  /** The queue applied a heartbeat sent at {@code sentAt}: the lease runs at least until sentAt + lease. */
  public void extended(long sentAt) {
    localExpiry = Math.max(localExpiry, sentAt + leaseMs);
    nextHeartbeat = sentAt + (long) (leaseMs * heartbeatFraction);
    heartbeatInFlight = false;
  }

  /** A heartbeat got no answer: try again soon, while the local deadline still allows. */
  public void heartbeatFailed(long now) {
    nextHeartbeat = now + Math.max(50, leaseMs / 10);
    heartbeatInFlight = false;
  }

  /** Null while the lease is held, else why it was lost. */
  public String lost() {
    return lost;
  }

  /** Marks the lease lost and interrupts the handler; false if it was already lost. */
  public synchronized boolean lose(String reason) {
    if (lost != null) {
      return false;
    }
    lost = reason;
    if (running) {
      runner.interrupt();
    }
    return true;
  }

  /** Close's grace period ran out: interrupt the handler; its failure then releases the item. */
  public synchronized void interruptForClose() {
    interruptedByClose = true;
    if (running) {
      runner.interrupt();
    }
  }

  public boolean interruptedByClose() {
    return interruptedByClose;
  }

  /** Close gave the item back itself; the handler's result no longer counts. True the first time. */
  public synchronized boolean markReleased() {
    if (released) {
      return false;
    }
    released = true;
    return true;
  }

  public synchronized boolean released() {
    return released;
  }

  /**
   * The handler starts on {@code thread}; false (and nothing bound) when, while the item waited for
   * a worker, close released it or its lease was lost: then the handler must not run.
   */
  public synchronized boolean bind(Thread thread) {
    if (released || lost != null) {
      return false;
    }
    started = true;
    runner = thread;
    running = true;
    if (interruptedByClose) {
      thread.interrupt();
    }
    return true;
  }

  /** Close gives back an item still waiting for a worker: true when it had not started, and now never will. */
  public synchronized boolean releaseIfNotStarted() {
    if (started || released) {
      return false;
    }
    released = true;
    return true;
  }

  public synchronized void unbind() {
    running = false;
    runner = null;
    Thread.interrupted(); // an interrupt meant for this job must not reach the next one
  }
}
