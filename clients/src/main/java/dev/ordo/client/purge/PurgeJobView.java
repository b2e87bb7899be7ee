package dev.ordo.client.purge;

import java.time.Instant;
import java.util.Map;

/**
 * A purge job of a topic as its partitions report it (docs/operations.md, "In an incident";
 * decisions D56): summed over the partitions, each of which purges its own items.
 *
 * @param id the job's id
 * @param enqueuedBefore only items enqueued before this; null: every item of the topic
 * @param includeLeased whether leased items are purged too (otherwise they are left alone)
 * @param status PENDING until a partition starts, DONE once every partition is done
 * @param purged items deleted, by the state they were in ({@code READY}, {@code DELAYED},
 *     {@code LEASED}, {@code PARKED}, {@code OVERFLOW})
 * @param leasedLeft matching items left alone because they were leased
 * @param scanned items the partitions looked at (of any topic)
 * @param partitionsDone partitions done, of {@code partitions}
 * @param startedAt when the first partition started, or null
 * @param finishedAt when the last partition finished, or null
 */
public record PurgeJobView(String id, String namespace, String topic, Instant enqueuedBefore, boolean includeLeased,
    Status status, Map<String, Long> purged, long leasedLeft, long scanned, int partitions, int partitionsDone,
    Instant createdAt, Instant startedAt, Instant finishedAt) {
  /** PENDING: written, no partition started. RUNNING: some partition started. DONE: every partition done. */
  public enum Status { PENDING, RUNNING, DONE }

  public PurgeJobView {
    purged = Map.copyOf(purged);
  }

  /** Items deleted in all. */
  public long purgedTotal() {
    return purged.values().stream().mapToLong(Long::longValue).sum();
  }

  public boolean done() {
    return status == Status.DONE;
  }
}
