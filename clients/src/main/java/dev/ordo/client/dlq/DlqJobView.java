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
    long skipped) {

  public enum Kind { REDRIVE, PURGE }

  /** PENDING: not started; RUNNING; DONE: every selected dead letter handled; FAILED: see error. */
  public enum Status { PENDING, RUNNING, DONE, FAILED }

  public boolean finished() {
    return status == Status.DONE || status == Status.FAILED;
  }

  /** The selected IDs, when selected by ID. */
  public List<DeadLetterId> ids() {
    return selection.ids();
  }
}
