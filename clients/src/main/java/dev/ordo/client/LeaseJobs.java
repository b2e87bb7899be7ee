package dev.ordo.client;

import dev.ordo.client.internal.Job;
import dev.ordo.schema.DeliveredItem;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.utils.Time;

/**
 * The items a {@link LeaseConsumer} holds, as jobs: by lease ({@link Job#key}), counted by the partition
 * that granted them (the in-flight counts {@link LeaseDemand} splits the window by), and those finished
 * since the poll thread's last turn, whose slots go back to their partitions. Close waits here until no
 * job is left. The poll thread adds jobs, the workers finish them.
 */
final class LeaseJobs {
  private final Time time;
  private final Map<String, Job> jobs = new ConcurrentHashMap<>();
  /** Items held, by the partition that granted them. */
  private final Map<Integer, AtomicInteger> inFlightByPartition = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Job> finished = new ConcurrentLinkedQueue<>();
  private final Object idle = new Object();

  LeaseJobs(Time time) {
    this.time = time;
  }

  /** The live count of items held by partition, for {@link LeaseDemand}. */
  Map<Integer, AtomicInteger> inFlightByPartition() {
    return inFlightByPartition;
  }

  /** Whether the lease of {@code item} is held already. */
  boolean holds(DeliveredItem item) {
    return jobs.containsKey(Job.key(item));
  }

  int size() {
    return jobs.size();
  }

  boolean isEmpty() {
    return jobs.isEmpty();
  }

  /** The jobs held now (a live view). */
  Collection<Job> all() {
    return jobs.values();
  }

  /** {@code job} is held from now on, and counted against its partition. */
  void add(Job job) {
    jobs.put(job.key(), job);
    inFlightByPartition.computeIfAbsent(job.partition(), p -> new AtomicInteger()).incrementAndGet();
  }

  /** {@code job} ended (from its worker): its slot goes back to its partition at the next turn. */
  void finish(Job job) {
    jobs.remove(job.key());
    inFlightByPartition.get(job.partition()).decrementAndGet();
    finished.add(job);
    synchronized (idle) {
      idle.notifyAll();
    }
  }

  /** How many jobs finished since the last call, by partition (poll thread). */
  Map<Integer, Integer> takeFinished() {
    Map<Integer, Integer> byPartition = new HashMap<>();
    for (Job job = finished.poll(); job != null; job = finished.poll()) {
      byPartition.merge(job.partition(), 1, Integer::sum);
    }
    return byPartition;
  }

  /** Waits until no job is held, {@code deadline} passed or the thread is interrupted (its flag kept). */
  void awaitIdle(long deadline) {
    synchronized (idle) {
      long left;
      while (!jobs.isEmpty() && (left = deadline - time.milliseconds()) > 0) {
        try {
          idle.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
