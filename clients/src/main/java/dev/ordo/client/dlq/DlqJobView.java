package dev.ordo.client.dlq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A redrive or purge job and its progress, as {@code <cluster>.dlq.state} holds it.
 *
 * @param total dead letters on {@code <cluster>.dlq} in the job's ranges (selected or not)
 * @param scanned of those, read so far
 * @param handled redriven (or purged) by this job
 * @param skipped selected but left alone: redriven or purged before, or without anything to send back
 * @param cancelRequestedAt when {@link DeadLetters#cancel} was asked to stop it; null when it was not
 */
public record DlqJobView(
    String id,
    Kind kind,
    Status status,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt,
    String error,
    DeadLetterSelection selection,
    String namespace,
    String topic,
    Integer priority,
    Double ratePerSecond,
    Duration delay,
    long total,
    long scanned,
    long handled,
    long skipped,
    Instant cancelRequestedAt) {

  public enum Kind { REDRIVE, PURGE }

  /**
   * PENDING: not started; RUNNING; DONE: every selected dead letter handled; FAILED: see error;
   * CANCELLING: cancelled, the job runner has not stopped it yet (it does before its next batch);
   * CANCELLED: stopped by a cancel, what it handled before stays handled.
   */
  public enum Status { PENDING, RUNNING, DONE, FAILED, CANCELLING, CANCELLED }

  /** DONE, FAILED or CANCELLED: it handles no more dead letters. */
  public boolean finished() {
    return status == Status.DONE || status == Status.FAILED || status == Status.CANCELLED;
  }

  /** The selected IDs, when selected by ID. */
  public List<DeadLetterId> ids() {
    return selection.ids();
  }
}
