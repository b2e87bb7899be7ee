package dev.ordo.server.sqs;

import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The deletes of concurrent DeleteMessage(Batch) requests, as few ack commands as they can share (a
 * group commit): while one ack command of a partition (and caller scope) is on its way, the deletes
 * that come for that partition wait and go together as the next one, sent when it is answered. A
 * delete that finds no command on its way goes at once, so a lone delete waits no longer than
 * before. SQS caps a DeleteMessageBatch at 10 entries, spread over the queue's partitions; without
 * this, each request made one command per partition it touched, each answered and committed on its
 * own (docs/lab/2026-11-29-sqs-prefetch.md). Thread-safe.
 */
final class DeleteCoalescer {
  /** Sends acks limited to a scope as one command per partition: {@code QueueClient.within(scope).ackAll}. */
  interface Acker {
    List<CompletableFuture<CommandOutcome>> ackAll(List<String> scope, List<Map.Entry<ItemId, String>> acks);
  }

  /** The most acks one command of this carries (the queue client's own cap is higher). */
  static final int MAX_PER_COMMAND = 200;

  private record Lane(int partition, List<String> scope) {}

  private record Pending(Map.Entry<ItemId, String> ack, CompletableFuture<CommandOutcome> result) {}

  /** A lane's deletes waiting, and whether a command of it is on its way. Guarded by itself. */
  private static final class Queue {
    final List<Pending> waiting = new ArrayList<>();
    boolean sending;
  }

  private final Acker acker;
  private final boolean on;
  private final Map<Lane, Queue> lanes = new ConcurrentHashMap<>();

  /** {@code on} false: each request's acks go as they come ({@code ackAll} of the request). */
  DeleteCoalescer(Acker acker, boolean on) {
    this.acker = acker;
    this.on = on;
  }

  /** One future per ack, in the order given, each completing with its {@link CommandOutcome}. */
  List<CompletableFuture<CommandOutcome>> ackAll(List<String> scope, List<Map.Entry<ItemId, String>> acks) {
    if (!on) {
      return acker.ackAll(scope, acks);
    }
    List<CompletableFuture<CommandOutcome>> out = new ArrayList<>(acks.size());
    List<Lane> touched = new ArrayList<>();
    for (Map.Entry<ItemId, String> ack : acks) {
      CompletableFuture<CommandOutcome> result = new CompletableFuture<>();
      out.add(result);
      Lane lane = new Lane(ack.getKey().partition(), scope);
      Queue q = lanes.computeIfAbsent(lane, l -> new Queue());
      synchronized (q) {
        q.waiting.add(new Pending(ack, result));
      }
      if (!touched.contains(lane)) {
        touched.add(lane);
      }
    }
    for (Lane lane : touched) {
      send(lane);
    }
    return out;
  }

  /** Sends what waits in the lane as one command, unless one is on its way (its answer sends the rest). */
  private void send(Lane lane) {
    Queue q = lanes.get(lane);
    List<Pending> batch;
    synchronized (q) {
      if (q.sending || q.waiting.isEmpty()) {
        return;
      }
      int n = Math.min(MAX_PER_COMMAND, q.waiting.size());
      batch = new ArrayList<>(q.waiting.subList(0, n));
      q.waiting.subList(0, n).clear();
      q.sending = true;
    }
    List<Map.Entry<ItemId, String>> acks = new ArrayList<>(batch.size());
    batch.forEach(p -> acks.add(p.ack()));
    List<CompletableFuture<CommandOutcome>> sent;
    try {
      sent = acker.ackAll(lane.scope(), acks);
    } catch (RuntimeException e) {
      batch.forEach(p -> p.result().completeExceptionally(e));
      done(lane, q);
      return;
    }
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
      for (int i = 0; i < batch.size(); i++) {
        CompletableFuture<CommandOutcome> result = batch.get(i).result();
        sent.get(i).whenComplete((o, failure) -> {
          if (failure != null) {
            result.completeExceptionally(failure);
          } else {
            result.complete(o);
          }
        });
      }
      done(lane, q);
    });
  }

  private void done(Lane lane, Queue q) {
    synchronized (q) {
      q.sending = false;
    }
    send(lane);
  }
}
