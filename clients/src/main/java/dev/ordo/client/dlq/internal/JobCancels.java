package dev.ordo.client.dlq.internal;

import dev.ordo.schema.DlqCancel;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqJobStatus;
import java.util.Optional;

/**
 * Cancelling a dead-letter job, decided from the job, its cancel request and the time: pure.
 *
 * <p>Two writers, one record each, so that a cancel never races a batch: the API writes a cancel
 * request ({@link DlqCancel}, key {@code c/<job id>} of {@code <cluster>.dlq.state}) once, when
 * {@link #request} allows it; the job runner, the only writer of the job's own record after it was
 * created, checks {@link #stop} before each batch and writes the job CANCELLED, in a transaction of
 * its own. A batch committed before the runner read the request stays committed (what was moved stays
 * moved, as SQS documents for CancelMessageMoveTask); none is started after. The request is on the
 * compacted topic, so a runner that takes the job over after a failover reads it and stops the job
 * instead of resuming it.
 */
public final class JobCancels {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private JobCancels() {}

  /** What a cancel request for a job comes to. */
  public sealed interface Decision permits Write, AlreadyRequested, Finished {}

  /** The job is PENDING or RUNNING: write this request. */
  public record Write(DlqCancel request) implements Decision {}

  /** The job was asked to stop before and has not stopped yet: nothing more to write. */
  public record AlreadyRequested(DlqCancel request) implements Decision {}

  /** The job is over (DONE, FAILED or CANCELLED): there is nothing to cancel. */
  public record Finished(DlqJobStatus status) implements Decision {}

  /** Whether the job ended: DONE, FAILED or CANCELLED. */
  public static boolean finished(DlqJobStatus status) {
    return status == DlqJobStatus.DONE || status == DlqJobStatus.FAILED || status == DlqJobStatus.CANCELLED;
  }

  /**
   * What a cancel of {@code job} does at {@code nowMs}.
   *
   * @param existing the job's cancel request already on the topic, if any
   */
  public static Decision request(DlqJob job, Optional<DlqCancel> existing, long nowMs) {
    if (finished(job.getStatus())) {
      return new Finished(job.getStatus());
    }
    if (existing.isPresent()) {
      return new AlreadyRequested(existing.get());
    }
    return new Write(new DlqCancel(job.getId(), nowMs));
  }

  /**
   * The job's record once the runner stops it at {@code nowMs}: CANCELLED, finished now, one update
   * more, its counts and ranges as its last batch left them; empty when it goes on (no request) or
   * is over already (a request that came after the job finished changes nothing).
   */
  public static Optional<DlqJob> stop(DlqJob job, Optional<DlqCancel> request, long nowMs) {
    if (request.isEmpty() || finished(job.getStatus()) || !request.get().getJobId().equals(job.getId())) {
      return Optional.empty();
    }
    return Optional.of(DlqJob.newBuilder(job)
        .setStatus(DlqJobStatus.CANCELLED)
        .setUpdatedAt(Math.max(job.getUpdatedAt(), nowMs))
        .setFinishedAt(Math.max(job.getUpdatedAt(), nowMs))
        .setUpdates(job.getUpdates() + 1)
        .build());
  }
}
