package dev.ordo.client;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.client.internal.Job;
import dev.ordo.client.internal.PublicTypes;
import java.nio.ByteBuffer;
import java.time.Instant;

/** The item a handler works on, with the state of its lease. */
public final class LeasedItem {
  private final Job job;

  LeasedItem(Job job) {
    this.job = job;
  }

  public ItemId id() {
    return job.id();
  }

  public String leaseId() {
    return job.item().getLeaseId();
  }

  public String namespace() {
    return job.item().getNamespace();
  }

  public String topic() {
    return job.item().getTopic();
  }

  public int priority() {
    return job.item().getPriority();
  }

  /** 1 on the first delivery. */
  public int attempt() {
    return job.item().getAttempt();
  }

  /** A copy of the payload. */
  public byte[] payload() {
    return bytes(job.item().getPayload());
  }

  /** A copy of the metadata, or null. */
  public byte[] metadata() {
    return job.item().getMetadata() == null ? null : bytes(job.item().getMetadata());
  }

  public String groupKey() {
    return job.item().getGroupKey();
  }

  public String traceId() {
    return job.item().getTraceId();
  }

  /**
   * The item's headers: the Kafka headers of the record that enqueued it (e.g. a W3C
   * {@code traceparent}), in order, repeated names included; {@link ItemHeaders#EMPTY} when none.
   */
  public ItemHeaders headers() {
    return ItemHeaders.fromRecords(job.item().getHeaders());
  }

  public Instant enqueuedAt() {
    return Instant.ofEpochMilli(job.item().getEnqueuedAt());
  }

  /**
   * True once the lease is known lost (the thread was interrupted too): stop working, the item may
   * already be with another consumer, and its ack would be refused.
   */
  public boolean leaseLost() {
    return job.lost() != null;
  }

  /** The delivery as the queue sent it (its lease's end as first granted, not as extended since). */
  public QueueItem delivered() {
    return PublicTypes.item(job.item());
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Override
  public String toString() {
    return "LeasedItem{" + id() + " " + namespace() + "/" + topic() + " attempt " + attempt() + "}";
  }
}
