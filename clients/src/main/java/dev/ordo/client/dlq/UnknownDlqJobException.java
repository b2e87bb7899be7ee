package dev.ordo.client.dlq;

/** No redrive or purge job has this ID on {@code <cluster>.dlq.state}. HTTP: 404. */
public class UnknownDlqJobException extends RuntimeException {
  private final String jobId;

  public UnknownDlqJobException(String jobId) {
    super("unknown job " + jobId + ": no redrive or purge job has this ID");
    this.jobId = jobId;
  }

  public String jobId() {
    return jobId;
  }
}
