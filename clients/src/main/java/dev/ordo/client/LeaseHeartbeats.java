package dev.ordo.client;

import dev.ordo.client.internal.Job;
import dev.ordo.schema.OutcomeResult;
import java.time.Duration;
import java.util.Collection;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseConsumer}'s heartbeats: when {@code heartbeat.fraction} of a running item's lease has
 * passed, the lease is extended by its duration. A heartbeat answered with anything but APPLIED, or no
 * answered heartbeat before the lease's local deadline, loses the lease: the handler's thread is
 * interrupted and nothing is acked or nacked for it. Called from the poll thread; answers arrive on the
 * client's callback threads.
 */
final class LeaseHeartbeats {
  private static final Logger log = LoggerFactory.getLogger(LeaseHeartbeats.class);

  private final QueueClient client;
  private final ConsumerFaults faults;
  private final Time time;
  private final LeaseCounters counters;

  LeaseHeartbeats(QueueClient client, ConsumerFaults faults, Time time, LeaseCounters counters) {
    this.client = client;
    this.faults = faults;
    this.time = time;
    this.counters = counters;
  }

  /** Sends the heartbeats due among {@code jobs}, and loses the leases that ran out unextended. */
  void beat(Collection<Job> jobs, long now) {
    for (Job job : jobs) {
      if (job.expired(now)) {
        lose(job, "no heartbeat was answered before the lease ran out");
      } else if (job.heartbeatDue(now) && !faults.heartbeatsHeld()) {
        job.heartbeatSent();
        long sentAt = now;
        client.extendBatched(job.id(), job.item().getLeaseId(), Duration.ofMillis(job.leaseMs())).whenComplete((o, e) -> {
          if (e != null) {
            log.debug("Heartbeat of {} failed: {}", job.id(), e.toString());
            job.heartbeatFailed(time.milliseconds());
          } else if (o.getResult() == OutcomeResult.APPLIED) {
            counters.heartbeats.incrementAndGet();
            job.extended(sentAt);
          } else {
            job.heartbeatFailed(time.milliseconds());
            lose(job, "heartbeat refused: " + o.getResult() + (o.getDetail() == null ? "" : " (" + o.getDetail() + ")"));
          }
        });
      }
    }
  }

  /** The lease of {@code job} is lost (counted and logged once): its handler is interrupted. */
  void lose(Job job, String reason) {
    if (job.lose(reason)) {
      counters.leaseLost.incrementAndGet();
      log.info("Lease of item {} lost: {}; interrupting its handler", job.id(), reason);
    }
  }
}
