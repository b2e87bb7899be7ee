package dev.ordo.server.sqs;

import dev.ordo.client.purge.PurgeJobView;
import dev.ordo.client.purge.TopicPurges;
import dev.ordo.server.auth.Caller;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * PurgeQueue as an Ordo purge job of the queue's topic (decisions D56): every message, in flight
 * ones included, as SQS deletes them, asynchronously (the answer comes when the job is started, and
 * the partitions delete at {@code ordo.purge.rate.per.second}). As in SQS, a second PurgeQueue of the
 * same queue within 60 seconds of the last is refused with PurgeQueueInProgress; the last one is
 * read from {@code <cluster>.purges}, so that holds whichever instance is asked.
 */
final class QueuePurges {
  /** SQS allows one PurgeQueue of a queue in this long. */
  static final Duration INTERVAL = Duration.ofSeconds(60);

  private final SqsQueues queues;
  private final TopicPurges purges;
  private final ReceivePrefetch prefetch;
  private final Clock clock;

  QueuePurges(SqsQueues queues, TopicPurges purges, ReceivePrefetch prefetch, Clock clock) {
    this.queues = queues;
    this.purges = purges;
    this.prefetch = prefetch;
    this.clock = clock;
  }

  Map<String, Object> purge(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = SqsActions.existing(queues, r, caller);
    String ns = q.ref().namespace();
    String name = q.ref().name();
    Instant now = clock.instant();
    if (inProgress(purges.jobs(ns, name), now)) {
      throw SqsError.PURGE_IN_PROGRESS.with("Only one PurgeQueue operation on " + name + " is allowed every 60"
          + " seconds.");
    }
    prefetch.drop(q.ref()); // what this server holds for later receives is not handed out after the purge
    purges.start(ns, name, null, true);
    return Map.of();
  }

  /** True when a purge of the queue began less than {@link #INTERVAL} before {@code now}. Pure. */
  static boolean inProgress(List<PurgeJobView> jobs, Instant now) {
    return jobs.stream().anyMatch(j -> j.createdAt().isAfter(now.minus(INTERVAL)));
  }
}
