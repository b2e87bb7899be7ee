package dev.ordo.client.stream;

import dev.ordo.client.internal.GroupPollLoop;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StreamConsumer}'s offsets (step 3 of its protocol): each partition's first unfinished record
 * ({@code OffsetTracker#committable}) is committed when it moved, asynchronously every commit interval,
 * synchronously on revoke and close; and a retry partition the group never committed is read from its
 * beginning. What was committed is kept in {@link PartitionWork#committed}. Poll thread only.
 */
final class StreamCommits {
  private static final Logger log = LoggerFactory.getLogger(StreamCommits.class);

  private final Consumer<byte[], byte[]> consumer;
  private final GroupPollLoop loop;
  private final String groupId;
  private final long intervalMs;
  private long nextCommit;

  StreamCommits(Consumer<byte[], byte[]> consumer, GroupPollLoop loop, String groupId, long intervalMs) {
    this.consumer = consumer;
    this.loop = loop;
    this.groupId = groupId;
    this.intervalMs = intervalMs;
  }

  /** Commits {@code works} asynchronously when the interval has passed at {@code now}. */
  void commitIfDue(long now, Collection<PartitionWork> works) {
    if (now >= nextCommit) {
      commit(false, works);
      nextCommit = now + intervalMs;
    }
  }

  /** Commits the partitions of {@code which} whose first unfinished record moved since their last commit. */
  void commit(boolean sync, Collection<PartitionWork> which) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    Map<TopicPartition, PartitionWork> byTp = new HashMap<>();
    for (PartitionWork w : which) {
      if (w.tracker != null && w.tracker.committable() != w.committed) {
        offsets.put(w.tp, new OffsetAndMetadata(w.tracker.committable()));
        byTp.put(w.tp, w);
      }
    }
    if (offsets.isEmpty()) {
      return;
    }
    if (sync) {
      try {
        loop.blocking(() -> {
          consumer.commitSync(offsets);
          return null;
        });
        offsets.forEach((tp, o) -> byTp.get(tp).committed = o.offset());
      } catch (KafkaException e) {
        log.warn("Stream consumer of group {} could not commit {}; those records run again at the next owner",
            groupId, offsets, e);
      }
      return;
    }
    consumer.commitAsync(offsets, (done, e) -> {
      if (e != null) {
        log.debug("Commit of {} failed; the next one carries it", offsets, e);
        return;
      }
      done.forEach((tp, o) -> {
        PartitionWork w = byTp.get(tp);
        if (w != null && !w.revoked) {
          w.committed = Math.max(w.committed, o.offset());
        }
      });
    });
  }

  /**
   * Seeks the retry partitions of {@code retries} the group never committed to their beginning: retry
   * copies written before must not be skipped, whatever auto.offset.reset says for the source topics.
   */
  void readUncommittedRetriesFromStart(Set<TopicPartition> retries) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed = loop.blocking(() -> consumer.committed(retries));
      List<TopicPartition> fresh = retries.stream().filter(tp -> committed.get(tp) == null).toList();
      if (!fresh.isEmpty()) {
        consumer.seekToBeginning(fresh);
      }
    } catch (KafkaException e) {
      // Reading from the beginning without knowing would run every retry again: leave it to
      // auto.offset.reset (earliest unless set otherwise).
      log.warn("Stream consumer of group {} could not read the committed offsets of {}; where the group has"
          + " none, auto.offset.reset decides", groupId, retries, e);
    }
  }
}
