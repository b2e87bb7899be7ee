package dev.ordo.client.stream;

import dev.ordo.client.stream.internal.OffsetTracker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A {@link StreamConsumer}'s partitions and their records on the way to the workers (step 2 of its
 * protocol): the partitions owned ({@link PartitionWork}), the fetched records waiting in each, handed to
 * workers in offset order within {@code partition.max.in.flight} and {@code max.in.flight} (while probing,
 * one record only, the probe), the partitions paused while records wait in them, and the rewinds to the
 * first unfinished record. A handler's return goes to the poll thread as a {@link StreamEvents.Handled}.
 * Poll thread only, but the workers.
 */
final class PartitionDispatch {
  private final Map<TopicPartition, PartitionWork> works = new LinkedHashMap<>();
  private final Consumer<byte[], byte[]> consumer;
  private final ExecutorService workers;
  private final StreamHandler handler;
  private final java.util.function.Consumer<StreamEvents.Event> events;
  private final StreamClog clog;
  private final int maxInFlight;
  private final int partitionMaxInFlight;
  /** Records handed to workers whose handlers have not returned. */
  private int running;

  PartitionDispatch(Consumer<byte[], byte[]> consumer, ExecutorService workers, StreamHandler handler,
      java.util.function.Consumer<StreamEvents.Event> events, StreamClog clog, int maxInFlight, int partitionMaxInFlight) {
    this.consumer = consumer;
    this.workers = workers;
    this.handler = handler;
    this.events = events;
    this.clog = clog;
    this.maxInFlight = maxInFlight;
    this.partitionMaxInFlight = partitionMaxInFlight;
  }

  PartitionWork get(TopicPartition tp) {
    return works.get(tp);
  }

  Collection<PartitionWork> all() {
    return works.values();
  }

  /** A copy of the partitions owned. */
  Set<TopicPartition> owned() {
    return Set.copyOf(works.keySet());
  }

  void add(PartitionWork w) {
    works.put(w.tp, w);
  }

  /** {@code w} is no longer owned: what it still runs or writes is dropped when it returns. */
  void remove(PartitionWork w) {
    w.revoked = true;
    works.remove(w.tp);
  }

  /** Nothing is owned any more. */
  void clear() {
    works.values().forEach(w -> w.revoked = true);
    works.clear();
  }

  int running() {
    return running;
  }

  /** No record runs and no retry copy or dead letter is being written. */
  boolean idle() {
    for (PartitionWork w : works.values()) {
      if (w.busy()) {
        return false;
      }
    }
    return true;
  }

  /** Fetched records wait in their partitions; a partition with none waiting learns where its gaps are. */
  void take(ConsumerRecords<byte[], byte[]> records) {
    for (ConsumerRecord<byte[], byte[]> r : records) {
      PartitionWork w = works.get(new TopicPartition(r.topic(), r.partition()));
      if (w == null) {
        continue;
      }
      if (w.tracker == null) {
        w.tracker = new OffsetTracker(r.offset());
      }
      w.pending.add(r);
    }
    for (PartitionWork w : works.values()) {
      if (w.tracker != null && w.pending.isEmpty()) {
        try {
          // Every record below the position was returned and started or skipped: the rest are gaps.
          w.tracker.readUpTo(consumer.position(w.tp, Duration.ZERO));
        } catch (org.apache.kafka.common.errors.TimeoutException | IllegalStateException | WakeupException e) {
          // no position yet (being reset), or a worker's wake-up: nothing to learn now
        }
      }
    }
  }

  /** Hands records to workers as the clog state allows: none while clogged, the probe alone while probing. */
  void dispatch() {
    switch (clog.state()) {
      case CLOGGED -> { }
      case PROBING -> {
        if (clog.wantsProbe()) {
          for (PartitionWork w : works.values()) {
            if (startNext(w, true)) {
              break;
            }
          }
        }
      }
      case FLOWING -> {
        boolean progress = true;
        while (progress && running < maxInFlight) {
          progress = false;
          for (PartitionWork w : works.values()) {
            if (running >= maxInFlight) {
              break;
            }
            if (w.running < partitionMaxInFlight && startNext(w, false)) {
              progress = true;
            }
          }
        }
      }
    }
  }

  /** Hands the partition's next waiting record that is not running or finished to a worker; false if none. */
  private boolean startNext(PartitionWork w, boolean asProbe) {
    ConsumerRecord<byte[], byte[]> r;
    while ((r = w.pending.poll()) != null) {
      if (w.tracker.start(r.offset())) {
        submit(w, r, asProbe);
        return true;
      }
    }
    return false;
  }

  private void submit(PartitionWork w, ConsumerRecord<byte[], byte[]> r, boolean asProbe) {
    StreamRecord record = StreamRecord.of(r, w.retry);
    running++;
    w.running++;
    if (asProbe) {
      clog.probeStarted(w, record);
    }
    try {
      workers.execute(() -> work(w, record));
    } catch (RejectedExecutionException e) {
      // Closing: the record stays unfinished and runs again at the partition's next owner.
      running--;
      w.running--;
      w.tracker.reopen(r.offset());
    }
  }

  private void work(PartitionWork w, StreamRecord record) {
    Throwable failure = null;
    try {
      handler.handle(record);
    } catch (Throwable t) {
      failure = t;
    }
    events.accept(new StreamEvents.Handled(w, record, failure)); // wakes the poll thread to settle it at once
  }

  /** The handler of a record of {@code w} returned. */
  void returned(PartitionWork w) {
    running--;
    w.running--;
  }

  /** Pauses every partition when {@code all}, else those with records waiting; resumes the others. */
  void adjustPauses(boolean all) {
    Set<TopicPartition> paused = consumer.paused();
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (PartitionWork w : works.values()) {
      boolean want = all || !w.pending.isEmpty();
      if (want && !paused.contains(w.tp)) {
        pause.add(w.tp);
      } else if (!want && paused.contains(w.tp)) {
        resume.add(w.tp);
      }
    }
    if (!pause.isEmpty()) {
      consumer.pause(pause);
    }
    if (!resume.isEmpty()) {
      consumer.resume(resume);
    }
  }

  void rewindAll() {
    for (PartitionWork w : works.values()) {
      rewind(w);
    }
  }

  /** Drops the records waiting and fetches again from the first unfinished one. */
  void rewind(PartitionWork w) {
    if (w.tracker == null) {
      return; // nothing fetched yet
    }
    w.pending.clear();
    consumer.seek(w.tp, w.tracker.committable());
  }
}
