package dev.ordo.client;

import dev.ordo.client.internal.Backoff;
import dev.ordo.client.internal.InFlightLimit;
import dev.ordo.client.internal.Job;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link LeaseConsumer} ends an item whose handler returned: an ack after a normal return (its
 * round trip, with the wait for a worker, is a sample of the window, {@link InFlightLimit}), a nack with
 * {@link RetryLater}'s delay, to the dead-letter topic for {@link DeadLetterNow}, with an exponential
 * backoff for any other exception; nothing for an item whose lease was lost or that close gave back, a
 * plain release for one whose handler close interrupted. Gives back unseen what the consumer does not
 * take or close stops before it started. Keeps the acks and nacks not yet answered, which close waits
 * for. Called from the workers, the poll thread (give-backs) and close.
 */
final class LeaseOutcomes {
  private static final Logger log = LoggerFactory.getLogger(LeaseOutcomes.class);

  private final QueueClient client;
  private final InFlightLimit window;
  private final Backoff backoff;
  private final LeaseCounters counters;
  /** Acks and nacks sent and not yet answered. */
  private final Set<CompletableFuture<Outcome>> settling = ConcurrentHashMap.newKeySet();

  LeaseOutcomes(QueueClient client, InFlightLimit window, Backoff backoff, LeaseCounters counters) {
    this.client = client;
    this.window = window;
    this.backoff = backoff;
    this.counters = counters;
  }

  /**
   * Acks, nacks or releases a finished item as its handler's ending asks: {@code failure} null after a
   * normal return; {@code waitedNanos} the item's wait for a worker.
   */
  void settle(Job job, boolean ok, Throwable failure, long waitedNanos) {
    DeliveredItem item = job.item();
    if (job.released()) {
      return; // close already gave it back
    }
    if (ok) {
      long sentAt = System.nanoTime();
      track(client.ackBatched(item)).whenComplete((o, e) -> {
        if (o != null && o.getResult() == OutcomeResult.APPLIED) {
          window.sample(waitedNanos + System.nanoTime() - sentAt);
          counters.acked.incrementAndGet();
        } else {
          counters.ackRefused.incrementAndGet();
          log.info("Ack of item {} not applied: {}", job.id(), e != null ? e.toString() : o.getResult() + " " + o.getDetail());
        }
      });
      return;
    }
    if (job.lost() != null) {
      return; // the item is no longer ours to nack
    }
    if (job.interruptedByClose()) {
      counters.released.incrementAndGet();
      client.releaseQuietly(item); // its handler ran: a plain release (an at-most-once item is dropped)
      return;
    }
    NackOptions nack;
    if (failure instanceof RetryLater r) {
      nack = NackOptions.retryAfter(r.delay()).withMetadata(r.metadata()).withError(describe(r));
    } else if (failure instanceof DeadLetterNow d) {
      nack = NackOptions.deadLetter(describe(d));
    } else {
      long delay = backoff.delayMs(item.getAttempt(), ThreadLocalRandom.current().nextDouble());
      nack = NackOptions.retryAfter(Duration.ofMillis(delay)).withError(describe(failure));
      log.debug("Handler failed on item {} attempt {}; retry in {} ms", job.id(), item.getAttempt(), delay, failure);
    }
    boolean deadLetter = nack.deadLetter();
    track(client.nackBatched(item, nack)).whenComplete((o, e) -> {
      if (o != null && o.getResult() == OutcomeResult.APPLIED) {
        counters.nacked.incrementAndGet();
        if (deadLetter || o.getDeadLetterReason() != null) {
          counters.deadLettered.incrementAndGet();
        }
      } else {
        log.info("Nack of item {} not applied: {}", job.id(), e != null ? e.toString() : o.getResult() + " " + o.getDetail());
      }
    });
  }

  /** Gives back unseen an item the consumer does not take ({@code reason}: over capacity, or closing). */
  void giveBack(DeliveredItem item, GiveBackReason reason) {
    counters.released.incrementAndGet();
    client.giveBack(item, reason);
  }

  /** Closing: gives back unseen the items of {@code jobs} still waiting for a worker (nobody saw them). */
  void giveBackUnstarted(Collection<Job> jobs) {
    for (Job job : jobs) {
      if (job.releaseIfNotStarted()) {
        giveBack(job.item(), GiveBackReason.CLOSING);
      }
    }
  }

  /**
   * Closing, past the grace period: releases the items of {@code jobs} whose handlers ran and were
   * interrupted and are not released yet (a plain release: an at-most-once item is dropped).
   */
  void releaseInterrupted(Collection<Job> jobs) {
    for (Job job : jobs) {
      if (job.markReleased()) {
        counters.released.incrementAndGet();
        client.releaseQuietly(job.item());
      }
    }
  }

  /**
   * Waits for the answers to the acks and nacks already sent: up to {@code waitMs}, and at least a
   * moment ({@code requesterId} names the consumer in the log).
   */
  void awaitAnswers(long waitMs, String requesterId) {
    CompletableFuture<?>[] pending = settling.toArray(CompletableFuture[]::new);
    if (pending.length == 0) {
      return;
    }
    try {
      CompletableFuture.allOf(pending).get(Math.max(waitMs, 1_000), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // every one was answered or failed; failures were logged where they were settled
    } catch (TimeoutException e) {
      log.info("Consumer {} closing with {} acks or nacks unanswered; they were sent and may still apply",
          requesterId, settling.size());
    }
  }

  private CompletableFuture<Outcome> track(CompletableFuture<Outcome> outcome) {
    settling.add(outcome);
    outcome.whenComplete((o, e) -> settling.remove(outcome));
    return outcome;
  }

  /** The error a nack carries: a signal's message, else the exception's class and message, cut to the limit. */
  static String describe(Throwable t) {
    if (t instanceof HandlerSignal) {
      return t.getMessage();
    }
    String text = t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    return text.length() > NackOptions.MAX_ERROR_LENGTH ? text.substring(0, NackOptions.MAX_ERROR_LENGTH) : text;
  }
}
