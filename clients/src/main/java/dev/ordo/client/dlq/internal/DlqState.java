package dev.ordo.client.dlq.internal;

import dev.ordo.schema.DlqCancel;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqMark;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The contents of {@code <cluster>.dlq.state} as read so far: jobs under {@code j/<job id>}, marks
 * under {@code m/<dead-letter id>} and cancel requests under {@code c/<job id>}. Not thread-safe.
 *
 * <p>A job's record is rewritten after every batch with {@code updates} one higher; of two records
 * of a job, the one with more updates wins, so a reader that replays the topic while it also holds
 * later progress in memory (the job runner reading its own writes) never steps back. A mark is
 * written once per dead letter, a cancel request once per job (by the API; only the runner rewrites
 * the job, CANCELLED, when it reads one: {@link JobCancels}).
 */
public final class DlqState {
  public static final String JOB_PREFIX = "j/";
  public static final String MARK_PREFIX = "m/";
  public static final String CANCEL_PREFIX = "c/";

  private final Map<String, DlqJob> jobs = new HashMap<>();
  private final Map<String, DlqMark> marks = new HashMap<>();
  private final Map<String, DlqCancel> cancels = new HashMap<>();

  public static byte[] jobKey(String jobId) {
    return (JOB_PREFIX + jobId).getBytes(StandardCharsets.UTF_8);
  }

  public static byte[] markKey(String deadLetterId) {
    return (MARK_PREFIX + deadLetterId).getBytes(StandardCharsets.UTF_8);
  }

  public static byte[] cancelKey(String jobId) {
    return (CANCEL_PREFIX + jobId).getBytes(StandardCharsets.UTF_8);
  }

  /** Applies one record of the topic; records that are not Ordo's are ignored. */
  public void apply(byte[] key, byte[] value) {
    if (key == null) {
      return;
    }
    String k = new String(key, StandardCharsets.UTF_8);
    try {
      if (k.startsWith(JOB_PREFIX)) {
        String id = k.substring(JOB_PREFIX.length());
        if (value == null) {
          jobs.remove(id);
        } else {
          put(OrdoSerdes.DLQ_JOB.decode(value));
        }
      } else if (k.startsWith(MARK_PREFIX)) {
        String id = k.substring(MARK_PREFIX.length());
        if (value == null) {
          marks.remove(id);
        } else {
          put(OrdoSerdes.DLQ_MARK.decode(value));
        }
      } else if (k.startsWith(CANCEL_PREFIX)) {
        String id = k.substring(CANCEL_PREFIX.length());
        if (value == null) {
          cancels.remove(id);
        } else {
          put(OrdoSerdes.DLQ_CANCEL.decode(value));
        }
      }
    } catch (OrdoSerdeException e) {
      // a record written by something else: not a job or mark of Ordo's
    }
  }

  /** Keeps {@code job} unless a record of the same job with more updates is held. */
  public void put(DlqJob job) {
    DlqJob held = jobs.get(job.getId());
    if (held == null || job.getUpdates() >= held.getUpdates()) {
      jobs.put(job.getId(), job);
    }
  }

  public void put(DlqMark mark) {
    marks.put(mark.getDeadLetterId(), mark);
  }

  public void put(DlqCancel cancel) {
    cancels.putIfAbsent(cancel.getJobId(), cancel);
  }

  public Optional<DlqJob> job(String id) {
    return Optional.ofNullable(jobs.get(id));
  }

  public Collection<DlqJob> jobs() {
    return jobs.values();
  }

  public Optional<DlqMark> mark(String deadLetterId) {
    return Optional.ofNullable(marks.get(deadLetterId));
  }

  /** The cancel request of a job, if one was made. */
  public Optional<DlqCancel> cancel(String jobId) {
    return Optional.ofNullable(cancels.get(jobId));
  }

  public void clear() {
    jobs.clear();
    marks.clear();
    cancels.clear();
  }
}
