package dev.ordo.client.stream;

import dev.ordo.client.stream.internal.FailurePolicy;
import dev.ordo.client.stream.internal.RetryCopies;
import dev.ordo.delay.DelayClient;
import dev.ordo.schema.DeadLetterReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StreamConsumer}'s failed records on their way out (step 4 of its protocol): each is retried
 * through the delay tiers or dead-lettered as the {@link FailurePolicy} says, and finished in its
 * partition's tracker once that write is acknowledged. A write that fails retriably is tried again
 * {@value #WRITE_RETRY_BACKOFF_MS} ms later; a retry copy refused for good becomes a dead letter (reason
 * INVALID); a dead letter refused with its raw bytes is written without them; one refused even so is
 * skipped (finished, logged with its last error). Writes are answered as {@link StreamEvents.Written}
 * events. Poll thread only, but the write callbacks.
 */
final class StreamSettlements {
  private static final Logger log = LoggerFactory.getLogger(StreamSettlements.class);
  static final long WRITE_RETRY_BACKOFF_MS = 1_000;

  /** A failed record's retry copy or dead letter, until it is written. */
  static final class Settlement {
    final PartitionWork work;
    final StreamRecord record;
    final String error;
    int nextAttempt;
    long delayMs;
    DeadLetterReason reason; // null: a retry copy
    String detail;
    boolean withRaw = true;
    long retryAt;

    Settlement(PartitionWork work, StreamRecord record, String error) {
      this.work = work;
      this.record = record;
      this.error = error;
    }

    void retry(int attempt, long delay) {
      this.nextAttempt = attempt;
      this.delayMs = delay;
      this.reason = null;
    }

    void deadLetter(DeadLetterReason why, String text) {
      this.reason = why;
      this.detail = text;
    }
  }

  private final FailurePolicy policy;
  private final DelayClient delayClient;
  private final Producer<byte[], byte[]> producer;
  private final String retryTopic;
  private final String dlqTopic;
  private final Time time;
  private final StreamCounters counters;
  /** Where the answers of the writes go (to the poll thread). */
  private final Consumer<StreamEvents.Event> events;
  /** Writes that failed retriably, until their retry is due. */
  private final List<Settlement> deferred = new ArrayList<>();

  StreamSettlements(FailurePolicy policy, DelayClient delayClient, Producer<byte[], byte[]> producer, String retryTopic,
      String dlqTopic, Time time, StreamCounters counters, Consumer<StreamEvents.Event> events) {
    this.policy = policy;
    this.delayClient = delayClient;
    this.producer = producer;
    this.retryTopic = retryTopic;
    this.dlqTopic = dlqTopic;
    this.time = time;
    this.counters = counters;
    this.events = events;
  }

  /** Retries or dead-letters a failed record, as the policy says; it is finished once that is written. */
  void settle(PartitionWork w, StreamRecord record, Throwable failure) {
    String error = FailurePolicy.describe(failure);
    FailurePolicy.Verdict verdict = policy.onFailure(failure, record.attempt(), ThreadLocalRandom.current().nextDouble());
    Settlement s = new Settlement(w, record, error);
    if (verdict instanceof FailurePolicy.Retry retry) {
      s.retry(retry.nextAttempt(), retry.delayMs());
      log.debug("Record {} failed ({}); attempt {} in {} ms", record, error, retry.nextAttempt(), retry.delayMs());
    } else {
      FailurePolicy.GiveUp giveUp = (FailurePolicy.GiveUp) verdict;
      s.deadLetter(giveUp.reason(), giveUp.detail());
      log.warn("Record {} goes to {}: {}; last error: {}", record, dlqTopic, giveUp.detail(), error);
    }
    w.settling++;
    write(s);
  }

  private void write(Settlement s) {
    CompletableFuture<RecordMetadata> written;
    try {
      StreamRecord r = s.record;
      if (s.reason == null) {
        written = delayClient.schedule(retryTopic, r.key(), r.value(),
            RetryCopies.retryHeaders(r, s.nextAttempt, s.error), Duration.ofMillis(s.delayMs));
      } else {
        CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
        producer.send(RetryCopies.deadLetter(dlqTopic, r, s.reason, s.detail, s.error, s.withRaw, time.milliseconds()),
            (metadata, e) -> {
              if (e != null) {
                f.completeExceptionally(e);
              } else {
                f.complete(metadata);
              }
            });
        written = f;
      }
    } catch (RuntimeException e) {
      written = CompletableFuture.failedFuture(e);
    }
    written.whenComplete((metadata, e) -> events.accept(new StreamEvents.Written(s, e)));
  }

  /** A write was answered: the record is finished, or its write goes on as the error says. */
  void onWritten(StreamEvents.Written written, long now) {
    Settlement s = written.settlement();
    PartitionWork w = s.work;
    w.settling--;
    if (w.revoked) {
      return;
    }
    long offset = s.record.offset();
    Throwable e = written.error();
    if (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    if (e == null) {
      w.tracker.finish(offset);
      if (s.reason == null) {
        counters.retried.incrementAndGet();
      } else {
        counters.deadLettered.incrementAndGet();
      }
      return;
    }
    String what = s.reason == null ? "retry copy" : "dead letter";
    w.settling++;
    if (e instanceof RetriableException) {
      log.warn("Could not write the {} of record {}; trying again in {} ms", what, s.record, WRITE_RETRY_BACKOFF_MS, e);
      s.retryAt = now + WRITE_RETRY_BACKOFF_MS;
      deferred.add(s);
    } else if (s.reason == null) {
      log.error("Could not write the retry copy of record {} to {}; dead-lettering it", s.record, retryTopic, e);
      s.deadLetter(DeadLetterReason.INVALID, "its retry copy could not be written to " + retryTopic + ": "
          + FailurePolicy.describe(e));
      write(s);
    } else if (s.withRaw) {
      log.error("Could not write the dead letter of record {} to {}; writing it without its key and value",
          s.record, dlqTopic, e);
      s.withRaw = false;
      write(s);
    } else {
      w.settling--;
      log.error("Could not write even a dead letter without key and value for record {} to {}; skipping it."
          + " Last error of its handler: {}", s.record, dlqTopic, s.error, e);
      w.tracker.finish(offset);
    }
  }

  /** Writes again what failed retriably and is due at {@code now}; drops what belongs to revoked partitions. */
  void retryDue(long now) {
    for (Iterator<Settlement> it = deferred.iterator(); it.hasNext(); ) {
      Settlement s = it.next();
      if (s.work.revoked) {
        it.remove();
      } else if (now >= s.retryAt) {
        it.remove();
        write(s);
      }
    }
  }

  /** {@code timeout}, or less when a deferred write is due sooner. */
  long pollTimeout(long now, long timeout) {
    for (Settlement s : deferred) {
      timeout = Math.min(timeout, Math.max(0, s.retryAt - now));
    }
    return timeout;
  }
}
