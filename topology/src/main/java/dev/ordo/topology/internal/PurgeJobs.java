package dev.ordo.topology.internal;

import dev.ordo.schema.Purge;
import dev.ordo.schema.PurgeProgress;
import dev.ordo.schema.PurgeStatus;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueMetrics;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The purge jobs of one partition (decisions D56), the thin layer around {@link PurgeStep}: their
 * progress in the partition's changelogged store {@value #STORE} (so a job survives a restart or a
 * failover of the task, and its progress commits with its deletions), the jobs still running in
 * memory, and the rate ({@code ordo.purge.rate.per.second}) as a token bucket shared by them.
 */
public final class PurgeJobs {
  /** The partition's store of purge progress, keyed by job id. */
  public static final String STORE = "ordo-purges";

  /** What one step of one job did: the deletions as effects, and the progress to publish (null: none). */
  record Step(Effects effects, PurgeProgress progress) {}

  private final KeyValueStore<Bytes, byte[]> store;
  private final int partition;
  private final double rate;
  private final TokenBucket bucket;
  private final Map<String, PurgeProgress> running = new LinkedHashMap<>();

  PurgeJobs(KeyValueStore<Bytes, byte[]> store, int partition, double ratePerSecond, long now) {
    this.store = store;
    this.partition = partition;
    this.rate = ratePerSecond;
    this.bucket = new TokenBucket(capacity(), now);
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> e = it.next();
        PurgeProgress p = OrdoSerdes.PURGE_PROGRESS.decode(e.value);
        if (p.getStatus() != PurgeStatus.DONE) {
          running.put(p.getJobId(), p);
        }
      }
    }
  }

  /** At most a second's deletions at once, and at least one. */
  private double capacity() {
    return Math.max(1, rate);
  }

  /** True while a job runs on the partition: the task ticks finely to step it. */
  boolean running() {
    return !running.isEmpty();
  }

  /**
   * A Purge command: the job's first progress (stored, to publish), or null when the partition
   * knows the job already (the command repeated).
   */
  PurgeProgress start(Purge purge, long now) {
    Bytes key = key(purge.getJobId());
    if (store.get(key) != null) {
      return null;
    }
    PurgeProgress p = PurgeStep.started(purge, partition, now);
    store.put(key, OrdoSerdes.PURGE_PROGRESS.encode(p));
    if (p.getStatus() != PurgeStatus.DONE) {
      running.put(p.getJobId(), p);
    }
    return p;
  }

  /** One step of each running job, as far as the rate allows; their progress is stored. */
  List<Step> step(PriorityStore items, long now) {
    List<Step> steps = new ArrayList<>();
    for (PurgeProgress job : new ArrayList<>(running.values())) {
      long end = PurgeStep.windowEnd(job, items.intakeHighWater());
      long tokens = bucket.available(rate, capacity(), now);
      PurgeStep.Result r = PurgeStep.plan(job, items.itemsBetween(job.getNext(), end, PurgeStep.SCAN_MAX), end,
          tokens, now);
      if (!r.changed()) {
        continue;
      }
      bucket.take(r.deletions().size(), rate, capacity(), now);
      Effects effects = new Effects();
      for (PurgeStep.Deletion d : r.deletions()) {
        effects.change(d.offset(), d.item(), null);
        effects.topicChanged(job.getNamespace(), job.getTopic());
        if (d.item().getOrdered()) {
          effects.topicReady(job.getNamespace(), job.getTopic()); // its ordered group's next may go (D60)
        }
      }
      if (!r.deletions().isEmpty()) {
        effects.count(QueueMetrics.PURGED, r.deletions().size());
      }
      store.put(key(job.getJobId()), OrdoSerdes.PURGE_PROGRESS.encode(r.progress()));
      if (r.progress().getStatus() == PurgeStatus.DONE) {
        running.remove(job.getJobId());
      } else {
        running.put(job.getJobId(), r.progress());
      }
      steps.add(new Step(effects, r.progress()));
    }
    return steps;
  }

  private static Bytes key(String jobId) {
    return Bytes.wrap(jobId.getBytes(StandardCharsets.UTF_8));
  }
}
