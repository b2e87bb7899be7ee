package dev.ordo.api;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Waits until new topics take writes: every partition has a leader that answers a ListOffsets request.
 *
 * <p>Why not only "the topic can be described": a broker publishes a new topic to its metadata cache
 * (what Metadata and DescribeTopics answer from) before its replica manager has opened the partition.
 * A produce request in between fails with NOT_LEADER_OR_FOLLOWER. An idempotent producer with more
 * than one request in flight then has its first batch rejected and a later one appended; every retry
 * of the first batch gets OUT_OF_ORDER_SEQUENCE_NUMBER until {@code delivery.timeout.ms} expires it
 * (KAFKA-15591; seen here with Kafka 4.3.1's broker and client). ListOffsets is answered by the
 * partition's leader through the same replica-manager look-up as a produce, so once every partition
 * answers, writes find it open.
 */
public final class TopicsReady {
  private static final long POLL_MS = 20;

  private TopicsReady() {}

  /**
   * Returns once every partition of {@code topics} has a leader that answers ListOffsets.
   *
   * @throws IllegalStateException if that does not happen within {@code timeout}, or on a non-retriable error
   */
  public static void await(Admin admin, Collection<String> topics, Duration timeout) {
    if (topics.isEmpty()) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        Map<String, TopicDescription> described = get(admin.describeTopics(topics).allTopicNames(), deadline);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        boolean leaders = true;
        for (TopicDescription t : described.values()) {
          for (var p : t.partitions()) {
            leaders &= p.leader() != null && !p.leader().isEmpty();
            latest.put(new TopicPartition(t.name(), p.partition()), OffsetSpec.latest());
          }
        }
        if (leaders) {
          get(admin.listOffsets(latest).all(), deadline);
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException)) {
          throw new IllegalStateException("topics " + List.copyOf(topics) + " are not ready: " + e.getCause(), e);
        }
        last = e;
      } catch (TimeoutException e) {
        last = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for topics " + List.copyOf(topics), e);
      }
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for topics " + List.copyOf(topics), e);
      }
    }
    Throwable cause = last == null || last.getCause() == null ? last : last.getCause();
    throw new IllegalStateException("topics " + List.copyOf(topics) + " have no leader answering ListOffsets after "
        + timeout.toMillis() + " ms" + (cause == null ? "" : " (last: " + cause + ")"), last);
  }

  private static <T> T get(KafkaFuture<T> future, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    long left = Math.max(1, deadline - System.nanoTime());
    return future.get(left, TimeUnit.NANOSECONDS);
  }
}
