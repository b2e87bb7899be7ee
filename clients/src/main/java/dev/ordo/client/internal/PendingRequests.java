package dev.ordo.client.internal;

import dev.ordo.api.Dedup;
import dev.ordo.api.ItemId;
import dev.ordo.client.ClientClosedException;
import dev.ordo.client.Enqueued;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of a {@link dev.ordo.client.QueueClient} waiting for the queue's answer: commands on
 * items (by requester id {@code <prefix>c<n>}) and enqueues with an answer ({@code <prefix>e<n>}).
 * It registers them, completes their futures from the replies the poll thread reads, fails those
 * whose answer does not come within the request timeout (one sweep for all, rather than a timer
 * task each, which at thousands of acks per second filled a scheduler's heap with tasks for 10 s
 * each), and fails all that wait when the client closes.
 *
 * <p>A future completes on the callback pool, never on the poll thread. A batched one (a
 * {@link dev.ordo.client.LeaseConsumer}'s own ack, nack or heartbeat, whose dependent stages never
 * block) shares one callback task with the others of the same poll ({@link #completeCollected}); a
 * caller's future gets a task of its own, since its stages may block, even on another future of the
 * same poll.
 */
public final class PendingRequests {
  private static final Logger log = LoggerFactory.getLogger(PendingRequests.class);

  /**
   * A command waiting for its outcome. {@code batched}: completed with others of the same poll;
   * {@code parts}: the acks of one {@code Acks} command, completed from its one {@code Outcomes} record.
   */
  record PendingOutcome(String itemId, CommandKind kind, CompletableFuture<Outcome> future, long deadline,
      boolean batched, List<PendingAck> parts) {
    PendingOutcome(String itemId, CommandKind kind, CompletableFuture<Outcome> future, long deadline, boolean batched) {
      this(itemId, kind, future, deadline, batched, null);
    }
  }

  /** An enqueue waiting for the queue's answer (see {@link #enqueue}). */
  private record PendingEnqueue(CompletableFuture<Enqueued> future, long deadline, String what) {}

  /** One ack of a batch (see {@link AckBatcher}). */
  record PendingAck(String itemId, String leaseId, CompletableFuture<Outcome> future) {}

  private final RequestChannel channel;
  private final ExecutorService callbacks;
  private final Time time;
  private final long requestTimeoutMs;
  private final Map<String, PendingOutcome> outcomes = new ConcurrentHashMap<>();
  /** Enqueues waiting for the queue's answer, by requester id ({@code <prefix>e<n>}). */
  private final Map<String, PendingEnqueue> enqueues = new ConcurrentHashMap<>();
  /** Batched futures to complete, collected while a poll's records are read and completed in one callback task. */
  private final List<Runnable> completions = new ArrayList<>(); // poll thread only

  public PendingRequests(RequestChannel channel, ExecutorService callbacks, Time time, long requestTimeoutMs) {
    this.channel = channel;
    this.callbacks = callbacks;
    this.time = time;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /** {@code scope}: Command.namespaces, or null for any namespace. */
  public CompletableFuture<Outcome> request(ItemId id, CommandKind kind, Object body, boolean batched,
      List<String> scope) {
    if (!channel.running()) {
      return CompletableFuture.failedFuture(channel.closed());
    }
    int partitions = channel.partitions();
    if (id.partition() >= partitions) {
      return CompletableFuture.completedFuture(noPartition(id, kind, partitions));
    }
    String requesterId = channel.nextId('c');
    CompletableFuture<Outcome> future = new CompletableFuture<>();
    // The poll thread fails it after the timeout (see failTimedOut).
    outcomes.put(requesterId, new PendingOutcome(id.toString(), kind, future, time.milliseconds() + requestTimeoutMs,
        batched));
    future.whenComplete((o, e) -> outcomes.remove(requesterId));
    channel.send(Commands.forItem(channel.topics(), id.partition(), id.toString(), channel.requester(requesterId),
        time.milliseconds(), body, !batched, scope))
        .whenComplete((m, e) -> {
          if (e != null) {
            callbacks.execute(() -> future.completeExceptionally(e));
          }
        });
    return future;
  }

  /** The local answer to a command on an item of a partition the cluster does not have. */
  Outcome noPartition(ItemId id, CommandKind kind, int partitions) {
    return new Outcome(id.toString(), kind, OutcomeResult.UNKNOWN_ITEM, "no partition " + id.partition() + " in "
        + channel.topics().commands() + " (" + partitions + " partitions)", null, null, null, null, null);
  }

  /**
   * Registers one {@code Acks} command of {@code requesterId} for {@code batch}: the returned future
   * completes when its outcome record came (having completed each ack's), and fails every ack when it fails.
   */
  CompletableFuture<Outcome> awaitAcks(String requesterId, List<PendingAck> batch) {
    CompletableFuture<Outcome> whole = new CompletableFuture<>();
    whole.whenComplete((o, e) -> {
      outcomes.remove(requesterId);
      if (e != null) {
        batch.forEach(a -> a.future().completeExceptionally(e));
      }
    });
    outcomes.put(requesterId, new PendingOutcome(batch.get(0).itemId(), CommandKind.ACK, whole,
        time.milliseconds() + requestTimeoutMs, true, batch));
    return whole;
  }

  /**
   * An enqueue that waits for the queue's answer: registered under a requester id of its own, then
   * written by {@code send}, given the reply-to header's value ({@link Dedup#replyTo}). {@code what}
   * names it in a timeout's message. What {@code send} throws is thrown, the enqueue forgotten.
   */
  public CompletableFuture<Enqueued> enqueue(String what, Function<byte[], CompletableFuture<ItemId>> send) {
    if (!channel.running()) {
      return CompletableFuture.failedFuture(channel.closed());
    }
    String requesterId = channel.nextId('e');
    CompletableFuture<Enqueued> future = new CompletableFuture<>();
    CompletableFuture<ItemId> sent;
    enqueues.put(requesterId, new PendingEnqueue(future, time.milliseconds() + requestTimeoutMs, what));
    future.whenComplete((o, e) -> enqueues.remove(requesterId));
    try {
      sent = send.apply(Dedup.replyTo(channel.replyPartition(), requesterId));
    } catch (RuntimeException e) {
      enqueues.remove(requesterId);
      throw e;
    }
    sent.whenComplete((id, e) -> {
      if (e != null) {
        callbacks.execute(() -> future.completeExceptionally(e));
      }
    });
    return future;
  }

  // ---- replies (poll thread) ----

  /** The queue's answer to enqueue {@code requesterId}. */
  void enqueued(String requesterId, dev.ordo.schema.Enqueued answer) {
    PendingEnqueue pending = enqueues.remove(requesterId);
    if (pending == null) {
      log.debug("The answer to enqueue {} ({}) arrived after its request timed out", requesterId, answer.getItemId());
    } else {
      Enqueued result = new Enqueued(ItemId.parse(answer.getItemId()), answer.getDuplicate());
      callbacks.execute(() -> pending.future().complete(result));
    }
  }

  /** The outcomes of a batch of acks, sent by {@code requesterId}. */
  void outcomes(String requesterId, Outcomes many) {
    PendingOutcome pending = outcomes.remove(requesterId);
    if (pending == null || pending.parts() == null) {
      log.debug("Outcomes of {} acks arrived after their request timed out", many.getOutcomes().size());
      return;
    }
    Map<String, Outcome> byItem = new HashMap<>();
    for (Outcome o : many.getOutcomes()) {
      byItem.put(o.getItemId(), o);
    }
    completions.add(() -> {
      for (PendingAck a : pending.parts()) {
        Outcome o = byItem.get(a.itemId());
        if (o != null) {
          a.future().complete(o);
        } else {
          a.future().completeExceptionally(new IllegalStateException("the queue's answer to a batch of acks"
              + " has no outcome for item " + a.itemId()));
        }
      }
      pending.future().complete(null);
    });
  }

  /** The outcome of the command of {@code requesterId}. */
  void outcome(String requesterId, Outcome outcome) {
    PendingOutcome pending = outcomes.remove(requesterId);
    if (pending == null) {
      log.debug("Outcome {} of {} arrived after its request timed out", outcome.getResult(), outcome.getItemId());
    } else {
      if (!pending.itemId().equals(outcome.getItemId()) || pending.kind() != outcome.getCommand()) {
        log.warn("Outcome for {} {} answers requester {}, which asked {} {}", outcome.getCommand(),
            outcome.getItemId(), requesterId, pending.kind(), pending.itemId());
      }
      if (pending.batched()) {
        completions.add(() -> pending.future().complete(outcome));
      } else {
        callbacks.execute(() -> pending.future().complete(outcome));
      }
    }
  }

  /** Completes the futures collected from one poll's records, in one task on the callback pool. */
  void completeCollected() {
    if (completions.isEmpty()) {
      return;
    }
    List<Runnable> batch = List.copyOf(completions);
    completions.clear();
    callbacks.execute(() -> batch.forEach(Runnable::run));
  }

  /** Fails the requests whose answer did not come within the request timeout: unknown, not refused. */
  void failTimedOut(long now) {
    List<PendingOutcome> late = new ArrayList<>();
    for (PendingOutcome o : outcomes.values()) {
      if (now >= o.deadline()) {
        late.add(o);
      }
    }
    for (PendingOutcome o : late) {
      callbacks.execute(() -> o.future().completeExceptionally(new java.util.concurrent.TimeoutException("no outcome"
          + " for " + o.kind() + " of item " + o.itemId() + " within " + requestTimeoutMs
          + " ms (it may still be applied)")));
    }
    for (PendingEnqueue e : enqueues.values()) {
      if (now >= e.deadline()) {
        callbacks.execute(() -> e.future().completeExceptionally(new java.util.concurrent.TimeoutException("no answer"
            + " from the queue to the enqueue of " + e.what() + " within " + requestTimeoutMs
            + " ms (the item may have been taken in)")));
      }
    }
  }

  /** Fails every request still waiting: the client closed. */
  void failAll(ClientClosedException closed) {
    for (PendingOutcome o : outcomes.values()) {
      o.future().completeExceptionally(closed);
    }
    for (PendingEnqueue e : enqueues.values()) {
      e.future().completeExceptionally(closed);
    }
  }
}
