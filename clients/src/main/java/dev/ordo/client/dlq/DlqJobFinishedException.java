package dev.ordo.client.dlq;

/**
 * A job cannot be cancelled because it is over: DONE, FAILED or CANCELLED. Only a PENDING or
 * RUNNING job can be (SQS: a move task only while it is RUNNING). HTTP: 409.
 */
public class DlqJobFinishedException extends IllegalStateException {
  private final DlqJobView job;

  public DlqJobFinishedException(DlqJobView job) {
    super("job " + job.id() + " is " + job.status() + (job.finishedAt() == null ? "" : " since " + job.finishedAt())
        + ": only a PENDING or RUNNING job can be cancelled");
    this.job = job;
  }

  /** The job as it is. */
  public DlqJobView job() {
    return job;
  }
}
