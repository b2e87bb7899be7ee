package dev.ordo.client.internal;

import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.internal.PendingRequests.PendingAck;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Time;

/**
 * Acks sent many to one command ({@link Acks}), answered by one {@code Outcomes} record: a
 * {@link dev.ordo.client.LeaseConsumer}'s own acks, gathered per partition for up to the ack linger
 * ({@code ordo.client.ack.linger.ms}) or {@link #MAX_ACK_BATCH} acks, and a caller's many acks at once
 * ({@link #ackAll}). Owns the batches waiting to be sent (guarded by their map) and the thread that
 * sends them when their linger ends ({@code <client id>-acks}).
 */
public final class AckBatcher {
  /** The most acks one command carries. */
  public static final int MAX_ACK_BATCH = 500;

  private final RequestChannel channel;
  private final PendingRequests requests;
  private final ExecutorService callbacks;
  private final Time time;
  private final long ackLingerMs;
  /** Acks waiting to be sent, by partition; guarded by itself. */
  private final Map<Integer, List<PendingAck>> ackBatches = new HashMap<>();
  private final ScheduledExecutorService ackFlusher;

  public AckBatcher(RequestChannel channel, PendingRequests requests, ExecutorService callbacks, Time time,
      long ackLingerMs, String clientId) {
    this.channel = channel;
    this.requests = requests;
    this.callbacks = callbacks;
    this.time = time;
    this.ackLingerMs = ackLingerMs;
    this.ackFlusher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, clientId + "-acks");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * A {@link dev.ordo.client.LeaseConsumer}'s own ack: sent with the other acks to the same partition
   * that come within the linger as one command, and completed with others of the same poll (its
   * stages never block).
   */
  public CompletableFuture<Outcome> ackBatched(DeliveredItem item) {
    ItemId id = ItemId.parse(item.getItemId());
    ItemCommands.checkLease(id, item.getLeaseId());
    if (!channel.running()) {
      return CompletableFuture.failedFuture(channel.closed());
    }
    int partitions = channel.partitions();
    if (id.partition() >= partitions) {
      return requests.request(id, CommandKind.ACK, new Ack(id.toString(), item.getLeaseId()), true, null);
    }
    CompletableFuture<Outcome> future = new CompletableFuture<>();
    List<PendingAck> full = null;
    boolean first;
    synchronized (ackBatches) {
      List<PendingAck> batch = ackBatches.computeIfAbsent(id.partition(), p -> new ArrayList<>());
      batch.add(new PendingAck(id.toString(), item.getLeaseId(), future));
      first = batch.size() == 1;
      if (batch.size() >= MAX_ACK_BATCH) {
        full = ackBatches.remove(id.partition());
      }
    }
    if (full != null) {
      sendAcks(id.partition(), full, false, null);
    } else if (first) {
      try {
        ackFlusher.schedule(() -> flushAcks(id.partition()), ackLingerMs, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        flushAcks(id.partition()); // closing: send what waits now
      }
    }
    return future;
  }

  private void flushAcks(int partition) {
    List<PendingAck> batch;
    synchronized (ackBatches) {
      batch = ackBatches.remove(partition);
    }
    if (batch != null && !batch.isEmpty()) {
      sendAcks(partition, batch, false, null);
    }
  }

  /** Sends every batch waiting now. */
  public void flushAll() {
    List<Integer> partitions;
    synchronized (ackBatches) {
      partitions = new ArrayList<>(ackBatches.keySet());
    }
    partitions.forEach(this::flushAcks);
  }

  /**
   * Many acks at once for a caller that waits on them: the acks of each partition as one command
   * (urgent: the queue commits as soon as it answered), at most {@link #MAX_ACK_BATCH} each. One
   * future per item, in the order given; an item of a partition the cluster does not have is
   * answered UNKNOWN_ITEM locally. {@code scope}: Command.namespaces, or null for any namespace.
   *
   * @throws IllegalArgumentException for a missing item ID or lease (nothing is sent then)
   */
  public List<CompletableFuture<CommandOutcome>> ackAll(List<Map.Entry<ItemId, String>> items, List<String> scope) {
    for (Map.Entry<ItemId, String> e : items) {
      ItemCommands.checkLease(e.getKey(), e.getValue());
    }
    List<CompletableFuture<CommandOutcome>> futures = new ArrayList<>(items.size());
    if (!channel.running()) {
      items.forEach(e -> futures.add(CompletableFuture.failedFuture(channel.closed())));
      return futures;
    }
    int partitions = channel.partitions();
    Map<Integer, List<PendingAck>> byPartition = new java.util.TreeMap<>();
    for (Map.Entry<ItemId, String> e : items) {
      ItemId id = e.getKey();
      CompletableFuture<Outcome> future = new CompletableFuture<>();
      futures.add(ItemCommands.answer(future));
      if (id.partition() >= partitions) {
        future.complete(requests.noPartition(id, CommandKind.ACK, partitions));
        continue;
      }
      byPartition.computeIfAbsent(id.partition(), p -> new ArrayList<>())
          .add(new PendingAck(id.toString(), e.getValue(), future));
    }
    byPartition.forEach((partition, acks) -> {
      for (int from = 0; from < acks.size(); from += MAX_ACK_BATCH) {
        sendAcks(partition, acks.subList(from, Math.min(acks.size(), from + MAX_ACK_BATCH)), true, scope);
      }
    });
    return futures;
  }

  /**
   * One command for a batch of acks; the batch's futures complete from its one outcome record.
   * {@code urgent}: a caller waits on the batch (see {@link Commands#forItem}); {@code scope}: Command.namespaces.
   */
  private void sendAcks(int partition, List<PendingAck> batch, boolean urgent, List<String> scope) {
    String requesterId = channel.nextId('c');
    CompletableFuture<Outcome> whole = requests.awaitAcks(requesterId, batch);
    List<Ack> acks = new ArrayList<>(batch.size());
    for (PendingAck a : batch) {
      acks.add(new Ack(a.itemId(), a.leaseId()));
    }
    channel.send(Commands.forItem(channel.topics(), partition, batch.get(0).itemId(), channel.requester(requesterId),
        time.milliseconds(), new Acks(acks), urgent, scope))
        .whenComplete((m, e) -> {
          if (e != null) {
            callbacks.execute(() -> whole.completeExceptionally(e));
          }
        });
  }

  /** Stops the linger timer: acks that come later are sent at once. */
  public void shutdown() {
    ackFlusher.shutdown();
  }

  /** Stops the linger timer without sending what waits. */
  public void shutdownNow() {
    ackFlusher.shutdownNow();
  }
}
