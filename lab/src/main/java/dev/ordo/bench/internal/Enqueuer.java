package dev.ordo.bench.internal;

import dev.ordo.api.ItemId;
import dev.ordo.client.BacklogFullException;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.QueueProducer;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * Writes the bench's items through one {@link QueueProducer}: spread over {@link #TOPICS} topics and
 * priorities 0..9 (seeded, so every run writes the same sequence), each payload stamped with its
 * sequence number and a time; with group keys, item {@code n} gets key {@code g<n mod keys>}.
 * Failed writes are counted and make {@link #check} throw.
 */
public final class Enqueuer implements AutoCloseable {
  public static final int TOPICS = 4;

  private final QueueProducer producer;
  private final int payloadBytes;
  private final int groupKeys;
  private final SplittableRandom random = new SplittableRandom(6);
  private final AtomicLong failed = new AtomicLong();
  private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
  private long sequence;

  public Enqueuer(OrdoCluster cluster, int payloadBytes) {
    this(cluster, payloadBytes, 0);
  }

  /**
   * An enqueuer that gives the items of {@link #enqueue(String)} and its kin {@code groupKeys}
   * distinct group keys in turn ({@code g0}, {@code g1}...; 0: none). The producer routes an item
   * with a key to the key's partition instead of its sticky partition.
   */
  public Enqueuer(OrdoCluster cluster, int payloadBytes, int groupKeys) {
    if (groupKeys < 0) {
      throw new IllegalArgumentException("groupKeys must be >= 0, got " + groupKeys);
    }
    this.producer = new QueueProducer(cluster.producerConfig());
    this.payloadBytes = payloadBytes;
    this.groupKeys = groupKeys;
    producer.partitions(); // metadata before the clock starts
  }

  /** The sequence number the next item gets. */
  public long nextSequence() {
    return sequence;
  }

  /** Enqueues one item at a random priority 0..9, stamped with {@link System#nanoTime()} now. */
  public void enqueue(String namespace) {
    enqueue(namespace, random.nextInt(10));
  }

  public void enqueue(String namespace, int priority) {
    watch(stamped(namespace, priority));
  }

  /** The next item of {@code namespace}, stamped with {@link System#nanoTime()} now. */
  private EnqueueRequest stamped(String namespace, int priority) {
    long seq = sequence++;
    EnqueueRequest.Builder b = EnqueueRequest.builder(namespace, "t" + (seq % TOPICS),
        Payloads.of(payloadBytes, seq, System.nanoTime())).priority(priority);
    if (groupKeys > 0) {
      b.groupKey("g" + (seq % groupKeys));
    }
    return b.build();
  }

  /**
   * Enqueues one item of group {@code groupKey} on {@code topic} at {@code priority}, stamped with
   * {@link System#nanoTime()} now; returns its sequence number.
   */
  public long enqueue(String namespace, String topic, int priority, String groupKey) {
    return enqueue(namespace, topic, priority, groupKey, acked -> { });
  }

  /**
   * As {@link #enqueue(String, String, int, String)}, and passes {@code acked} the time
   * ({@link System#nanoTime()}) the broker acknowledged the write, on the producer's I/O thread;
   * never when the write failed.
   */
  public long enqueue(String namespace, String topic, int priority, String groupKey, LongConsumer acked) {
    long seq = sequence++;
    CompletableFuture<ItemId> f = producer.enqueue(
        EnqueueRequest.builder(namespace, topic, Payloads.of(payloadBytes, seq, System.nanoTime()))
            .priority(priority)
            .groupKey(groupKey)
            .build());
    f.thenRun(() -> acked.accept(System.nanoTime()));
    watch(f);
    return seq;
  }

  /**
   * Offers one item at a random priority 0..9, stamped with {@link System#nanoTime()} now, without
   * waiting for room: false when the producer refused it because the namespace's backlog is at its
   * policy's limit ({@link BacklogFullException}; nothing was written). Other failures count as
   * {@link #enqueue} does.
   */
  public boolean offer(String namespace) {
    CompletableFuture<ItemId> f = producer.enqueue(stamped(namespace, random.nextInt(10)), Duration.ZERO);
    if (f.isCompletedExceptionally()) {
      try {
        f.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof BacklogFullException) {
          return false;
        }
      }
    }
    watch(f);
    return true;
  }

  /** Enqueues one item due at {@code dueAtMs} (epoch ms), stamped with that due time. */
  public void enqueueDue(String namespace, long dueAtMs) {
    long seq = sequence++;
    EnqueueRequest r = EnqueueRequest.builder(namespace, "t" + (seq % TOPICS), Payloads.of(payloadBytes, seq, dueAtMs))
        .deliverAfter(Instant.ofEpochMilli(dueAtMs))
        .build();
    watch(r);
  }

  /**
   * Enqueues {@code count} items at {@code perSecond}, each stamped with the time it was handed to
   * the producer; returns the rate achieved (lower when the producer could not keep up).
   */
  public double paced(String namespace, long count, double perSecond) {
    long start = System.nanoTime();
    double interval = 1e9 / perSecond;
    for (long i = 0; i < count; i++) {
      long due = start + (long) (i * interval);
      long now;
      while ((now = System.nanoTime()) < due) {
        LockSupport.parkNanos(due - now);
      }
      enqueue(namespace);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return count / Math.max(seconds, 1e-9);
  }

  private void watch(EnqueueRequest r) {
    watch(producer.enqueue(r));
  }

  private void watch(CompletableFuture<ItemId> f) {
    f.whenComplete((id, e) -> {
      if (e != null) {
        failed.incrementAndGet();
        firstFailure.compareAndSet(null, e);
      }
    });
  }

  public void flush() {
    producer.flush();
  }

  /** Throws if any write failed. */
  public void check() {
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " enqueues failed, the first with " + firstFailure.get(),
          firstFailure.get());
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
