package dev.ordo.server.sqs;

import dev.ordo.client.dlq.DeadLetterFilter;
import dev.ordo.client.dlq.DeadLetterSelection;
import dev.ordo.client.dlq.DeadLetters;
import dev.ordo.client.dlq.DlqJobFinishedException;
import dev.ordo.client.dlq.DlqJobView;
import dev.ordo.client.dlq.RedriveRequest;
import dev.ordo.client.dlq.UnknownDlqJobException;
import dev.ordo.server.auth.Caller;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask over Ordo's dead letters. A
 * queue's dead letters are Ordo's (its RedrivePolicy's {@code maxReceiveCount} is the attempts limit),
 * so moving them out of "the dead-letter queue" is a redrive job ({@link DeadLetters#redrive}) per
 * source queue that names that queue as its dead-letter target: each source's dead letters go back to
 * it, or all to {@code DestinationArn}. A task is those jobs; its handle names the dead-letter queue and
 * the job IDs, and the dead-letter queue's record keeps the latest handles for ListMessageMoveTasks.
 * CancelMessageMoveTask cancels the task's jobs ({@link DeadLetters#cancel}): as SQS documents it, only
 * a RUNNING task can be cancelled (else UnsupportedOperation; a handle that names no task is
 * ResourceNotFoundException), messages already moved are not moved back, and the task shows
 * CANCELLING until the job runner stopped its jobs (before their next batch), then CANCELLED.
 */
final class MoveTasks {
  private final SqsQueues queues;
  private final DeadLetters deadLetters;
  private final String region;

  MoveTasks(SqsQueues queues, DeadLetters deadLetters, String region) {
    this.queues = queues;
    this.deadLetters = deadLetters;
    this.region = region;
  }

  /** A task's handle: the dead-letter queue and the redrive jobs. Pure. */
  record Handle(QueueRef deadLetterQueue, List<String> jobs) {
    String encode() {
      String text = deadLetterQueue.namespace() + "\n" + deadLetterQueue.name() + "\n" + String.join(",", jobs);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static Handle decode(String text) throws SqsException {
      try {
        String[] parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8).split("\n", -1);
        if (parts.length == 3 && !parts[0].isEmpty() && !parts[1].isEmpty() && !parts[2].isEmpty()) {
          return new Handle(new QueueRef(parts[0], parts[1]), List.of(parts[2].split(",")));
        }
      } catch (IllegalArgumentException e) {
        // below
      }
      throw SqsError.RESOURCE_NOT_FOUND.with("The task handle '" + text + "' does not name a message move task.");
    }
  }

  Map<String, Object> start(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue dlq = existing(r.required("SourceArn"), caller, r.action());
    Optional<SqsQueue> destination = r.string("DestinationArn").isPresent()
        ? Optional.of(existing(r.string("DestinationArn").get(), caller, r.action())) : Optional.empty();
    Optional<Integer> rate = r.integer("MaxNumberOfMessagesPerSecond", 1, 500);
    List<SqsQueue> sources = new ArrayList<>();
    for (SqsQueue q : queues.all()) {
      Optional<QueueAttributes.RedrivePolicy> p = q.attributes().redrivePolicy();
      if (p.isPresent() && p.get().deadLetterTarget().equals(dlq.ref())) {
        sources.add(q);
      }
    }
    if (sources.isEmpty()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Source queue must be configured as a Dead Letter Queue: no queue"
          + " names " + r.required("SourceArn") + " in its RedrivePolicy.");
    }
    for (String running : dlq.moveTasks()) {
      for (String job : Handle.decode(running).jobs()) {
        Optional<DlqJobView> view = deadLetters.job(job);
        if (view.isPresent() && !view.get().finished()) {
          throw SqsError.UNSUPPORTED_OPERATION.with("There is already a message move task running for "
              + r.required("SourceArn") + ".");
        }
      }
    }
    List<String> jobs = new ArrayList<>();
    for (SqsQueue source : sources) {
      SqsAccess.check(caller, r.action(), source.ref().namespace());
      RedriveRequest request = new RedriveRequest(DeadLetterSelection.filter(new DeadLetterFilter(
          source.ref().namespace(), source.ref().name(), Set.of(), null, null)),
          destination.map(d -> d.ref().namespace()).orElse(null), destination.map(d -> d.ref().name()).orElse(null),
          null, rate.map(Integer::doubleValue).orElse(null), null);
      try {
        jobs.add(deadLetters.redrive(request).id());
      } catch (IllegalArgumentException e) {
        throw SqsError.INVALID_PARAMETER_VALUE.with(e.getMessage());
      }
    }
    String handle = new Handle(dlq.ref(), jobs).encode();
    queues.put(dlq.withMoveTask(handle));
    return Map.of("TaskHandle", handle);
  }

  Map<String, Object> list(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue dlq = existing(r.required("SourceArn"), caller, r.action());
    int max = r.integer("MaxResults", 1, 10).orElse(1);
    List<Object> results = new ArrayList<>();
    List<String> handles = dlq.moveTasks();
    for (int i = handles.size() - 1; i >= 0 && results.size() < max; i--) {
      results.add(view(Handle.decode(handles.get(i)), handles.get(i), r.required("SourceArn")));
    }
    return Map.of("Results", results);
  }

  /**
   * Cancels a RUNNING task: each of its jobs not finished yet is cancelled. Answers
   * ApproximateNumberOfMessagesMoved as the jobs' progress stands now (the runner may still commit
   * the batch under way).
   */
  Map<String, Object> cancel(SqsRequest r, Caller caller) throws SqsException {
    String handle = r.required("TaskHandle");
    Handle h = Handle.decode(handle);
    SqsAccess.check(caller, r.action(), h.deadLetterQueue().namespace());
    List<DlqJobView> jobs = jobs(h);
    if (jobs.isEmpty()) {
      throw SqsError.RESOURCE_NOT_FOUND.with("The task handle '" + handle + "' does not name a message move task.");
    }
    String status = status(jobs);
    if (!status.equals("RUNNING")) {
      throw SqsError.UNSUPPORTED_OPERATION.with("Only a RUNNING message move task can be cancelled; this one is "
          + status + ".");
    }
    for (DlqJobView job : jobs) {
      SqsAccess.check(caller, r.action(), job.selection().filter() == null || job.selection().filter().namespace() == null
          ? h.deadLetterQueue().namespace() : job.selection().filter().namespace());
    }
    long moved = 0;
    for (DlqJobView job : jobs) {
      DlqJobView now = job;
      if (!job.finished()) {
        try {
          now = deadLetters.cancel(job.id());
        } catch (DlqJobFinishedException e) {
          now = e.job(); // it finished meanwhile
        } catch (UnknownDlqJobException e) {
          continue;
        }
      }
      moved += now.handled();
    }
    return Map.of("ApproximateNumberOfMessagesMoved", moved);
  }

  private List<DlqJobView> jobs(Handle h) {
    List<DlqJobView> jobs = new ArrayList<>();
    for (String id : h.jobs()) {
      deadLetters.job(id).ifPresent(jobs::add);
    }
    return jobs;
  }

  /**
   * A task's status from its jobs' (pure): FAILED if one failed; CANCELLING while one is being
   * cancelled; RUNNING while one is pending or running; CANCELLED if one was cancelled; else COMPLETED.
   */
  static String status(List<DlqJobView> jobs) {
    java.util.Set<DlqJobView.Status> s = java.util.EnumSet.noneOf(DlqJobView.Status.class);
    jobs.forEach(j -> s.add(j.status()));
    if (s.contains(DlqJobView.Status.FAILED)) {
      return "FAILED";
    }
    if (s.contains(DlqJobView.Status.CANCELLING)) {
      return "CANCELLING";
    }
    if (s.contains(DlqJobView.Status.PENDING) || s.contains(DlqJobView.Status.RUNNING)) {
      return "RUNNING";
    }
    return s.contains(DlqJobView.Status.CANCELLED) ? "CANCELLED" : "COMPLETED";
  }

  /**
   * A task as ListMessageMoveTasks shows it: RUNNING (with its handle, which CancelMessageMoveTask
   * takes) until every job is over, then COMPLETED, CANCELLED or FAILED; CANCELLING in between.
   */
  private Map<String, Object> view(Handle h, String handle, String sourceArn) {
    long moved = 0;
    long started = Long.MAX_VALUE;
    String failure = null;
    DlqJobView last = null;
    List<DlqJobView> jobs = jobs(h);
    for (DlqJobView v : jobs) {
      last = v;
      moved += v.handled();
      started = Math.min(started, v.createdAt().toEpochMilli());
      if (v.status() == DlqJobView.Status.FAILED) {
        failure = v.error();
      }
    }
    String status = status(jobs);
    Map<String, Object> m = new LinkedHashMap<>();
    if (status.equals("RUNNING")) {
      m.put("TaskHandle", handle);
    }
    m.put("Status", status);
    m.put("SourceArn", sourceArn);
    if (last != null && last.namespace() != null && last.topic() != null) {
      m.put("DestinationArn", new QueueRef(last.namespace(), last.topic()).arn(region));
    }
    if (last != null && last.ratePerSecond() != null) {
      m.put("MaxNumberOfMessagesPerSecond", last.ratePerSecond().intValue());
    }
    m.put("ApproximateNumberOfMessagesMoved", moved);
    if (started != Long.MAX_VALUE) {
      m.put("StartedTimestamp", started);
    }
    if (failure != null) {
      m.put("FailureReason", failure);
    }
    return m;
  }

  private SqsQueue existing(String arn, Caller caller, String action) throws SqsException {
    QueueRef ref;
    try {
      ref = QueueRef.fromArn(arn);
    } catch (SqsException e) {
      throw SqsError.RESOURCE_NOT_FOUND.with("The resource that you specified for the SourceArn or DestinationArn"
          + " parameter doesn't exist: " + e.getMessage());
    }
    SqsAccess.check(caller, action, ref.namespace());
    return queues.get(ref).orElseThrow(() -> SqsError.RESOURCE_NOT_FOUND.with("The resource that you specified for"
        + " the SourceArn or DestinationArn parameter doesn't exist: no queue " + arn + "."));
  }
}
