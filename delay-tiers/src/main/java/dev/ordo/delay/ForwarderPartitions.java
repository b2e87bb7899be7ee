package dev.ordo.delay;

import dev.ordo.delay.internal.PartitionProgress;
import dev.ordo.delay.internal.PauseSchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A forwarder's partitions: what it forwarded in each ({@link PartitionProgress}, and as of the last
 * commit), the records it holds aside ({@link HeldRecords}) and the partitions it paused until when
 * ({@link PauseSchedule}); restored from the committed progress when assigned or when a transaction
 * failed, dropped when revoked or lost. Owned by the forwarder's loop thread.
 */
final class ForwarderPartitions implements ConsumerRebalanceListener {
  private final Consumer<byte[], byte[]> consumer;
  private final SendBlame blame;
  private final PauseSchedule<TopicPartition> pauses = new PauseSchedule<>();
  private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
  private final Map<TopicPartition, PartitionProgress> committedProgress = new HashMap<>();
  private final HeldRecords held = new HeldRecords();

  ForwarderPartitions(Consumer<byte[], byte[]> consumer, SendBlame blame) {
    this.consumer = consumer;
    this.blame = blame;
  }

  HeldRecords held() {
    return held;
  }

  /** The progress of {@code tp}, which has some (it was assigned or records of it were polled). */
  PartitionProgress progress(TopicPartition tp) {
    return progress.get(tp);
  }

  /** The progress of {@code tp}, fresh if it has none yet. */
  PartitionProgress progressOrFresh(TopicPartition tp) {
    return progress.computeIfAbsent(tp, k -> PartitionProgress.fresh());
  }

  /** Resumes the paused partitions (still owned) whose time has come at {@code now}. */
  void resumeDue(long now) {
    List<TopicPartition> due = pauses.due(now);
    if (!due.isEmpty()) {
      Set<TopicPartition> owned = consumer.assignment();
      consumer.resume(due.stream().filter(owned::contains).toList());
    }
  }

  /** How long the next poll may block: up to {@code maxMs}, never past a resume time or a held record's due time. */
  long pollTimeout(long now, long maxMs) {
    return Math.min(pauses.pollTimeout(now, maxMs), Math.max(0, held.nextDue() - now));
  }

  /** Waits at {@code tp}'s record {@code offset} until {@code until}: seeks back to it and pauses the partition. */
  void waitAtHead(TopicPartition tp, long offset, long until) {
    consumer.seek(tp, offset);
    consumer.pause(List.of(tp));
    pauses.pause(tp, until);
  }

  /** Pauses every owned partition until {@code until} at least (an error backoff); the loop keeps polling. */
  void backOff(long until) {
    Set<TopicPartition> owned = consumer.assignment();
    for (TopicPartition tp : owned) {
      Long current = pauses.resumeTime(tp);
      pauses.pause(tp, current == null ? until : Math.max(current, until));
    }
    consumer.pause(owned);
  }

  /** Partitions whose progress moved since their last commit (a fresh one only once it examined a record). */
  Set<TopicPartition> dirty() {
    Set<TopicPartition> dirty = new HashSet<>();
    progress.forEach((tp, p) -> {
      if (p.frontier() >= 0 && !p.equals(committedProgress.get(tp))) {
        dirty.add(tp);
      }
    });
    return dirty;
  }

  /** The offsets to commit: each dirty partition's first record not forwarded, its metadata the records held above. */
  Map<TopicPartition, OffsetAndMetadata> offsetsToCommit() {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition tp : dirty()) {
      PartitionProgress p = progress.get(tp);
      offsets.put(tp, new OffsetAndMetadata(p.committedOffset(), p.metadata()));
    }
    return offsets;
  }

  /** The progress of {@code partitions} was committed. */
  void committed(Collection<TopicPartition> partitions) {
    partitions.forEach(tp -> committedProgress.put(tp, progress.get(tp).copy()));
  }

  /** Restores every owned partition (the transaction's outcome is unknown). */
  void restoreAll() {
    restore(consumer.assignment());
  }

  /**
   * Forgets what this forwarder did in {@code partitions} since their last commit: reloads their
   * committed progress, drops the records held aside and reads again from the committed offsets.
   */
  void restore(Collection<TopicPartition> partitions) {
    Set<TopicPartition> owned = new HashSet<>(partitions);
    owned.retainAll(consumer.assignment());
    forget(partitions);
    if (owned.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = consumer.committed(owned, Duration.ofSeconds(30));
    List<TopicPartition> fromStart = new ArrayList<>();
    for (TopicPartition tp : owned) {
      OffsetAndMetadata offset = offsets.get(tp);
      if (offset == null) {
        fromStart.add(tp);
        progress.put(tp, PartitionProgress.fresh());
      } else {
        PartitionProgress p = PartitionProgress.restore(offset.offset(), offset.metadata());
        progress.put(tp, p);
        committedProgress.put(tp, p.copy());
        consumer.seek(tp, offset);
      }
    }
    consumer.seekToBeginning(fromStart);
    consumer.resume(owned);
  }

  /** Drops all state of {@code partitions} (revoked, lost, or about to be restored). */
  private void forget(Collection<TopicPartition> partitions) {
    pauses.forget(partitions);
    for (TopicPartition tp : partitions) {
      progress.remove(tp);
      committedProgress.remove(tp);
    }
    held.forget(partitions);
  }

  // Partitions come and go only inside poll(), when no transaction is open.

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    drop(partitions);
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    drop(partitions);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    // Start from the committed progress: skip what the previous owner forwarded, decide its held
    // records afresh. A newly assigned partition is not paused: its head is read and decided.
    restore(partitions);
  }

  private void drop(Collection<TopicPartition> partitions) {
    forget(partitions);
    blame.forget(partitions);
  }
}
