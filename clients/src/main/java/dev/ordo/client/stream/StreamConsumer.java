package dev.ordo.client.stream;

import dev.ordo.client.DeadLetterNow;
import dev.ordo.client.internal.GroupPollLoop;
import dev.ordo.client.stream.internal.ClogGuard;
import dev.ordo.client.stream.internal.FailurePolicy;
import dev.ordo.client.stream.internal.OffsetTracker;
import dev.ordo.delay.DelayClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link StreamHandler} on every record of ordinary Kafka topics, with non-blocking retries:
 * a failed record travels the delay tiers to a retry topic and comes back after an exponential
 * backoff, while its partition goes on (Meta's Async tier's "stream" sources, see
 * {@code docs/stream-consumer.md}).
 *
 * <p>How it works, step by step (one poll thread, a pool of worker threads):
 * <ol>
 *   <li><b>Consume.</b> A group consumer subscribes to the source topics and the retry topic
 *       ({@code <group.id>.retry} by default), read_committed, no auto commit.</li>
 *   <li><b>Work.</b> Fetched records wait per partition and are handed to workers in offset order,
 *       at most {@code partition.max.in.flight} per partition and {@code max.in.flight} in all; a
 *       partition with records waiting is paused until they are handed out (the poll loop never
 *       sleeps, so the consumer stays in its group). Records of a partition finish in any order.</li>
 *   <li><b>Commit.</b> Per partition an {@link OffsetTracker} knows the first record not finished;
 *       offsets are committed up to it, every {@code commit.interval.ms}. A record is finished when its
 *       handler succeeded, or when its retry copy or dead letter was durably written.</li>
 *   <li><b>Retry.</b> A handler that throws: the record is scheduled through {@link DelayClient} to the
 *       retry topic after the backoff of its attempt, with {@link RetryHeaders} carrying the next
 *       attempt, where it was first read and the error; after its last attempt (or on
 *       {@link DeadLetterNow}) it goes to {@code <cluster>.dlq} as a {@code DeadLetter} with its raw
 *       bytes. A write that fails retriably is tried again a second later; one refused for good turns
 *       into a dead letter (reason INVALID).</li>
 *   <li><b>Clog.</b> A {@link ClogGuard} counts outcomes over a sliding window. When most records
 *       fail (an outage), copying them all into the tiers would move the whole stream there: instead
 *       every partition is paused and rewound to its first unfinished record, failures from then on are
 *       neither copied nor committed (they are fetched again), and after a backoff one record probes
 *       the handler. Success: the stream flows again. Failure: that one record is retried through the
 *       tiers like any failure, and the next probe waits twice as long (capped).</li>
 *   <li><b>Rebalance.</b> On revoke it waits up to {@code revoke.wait.ms} for the partitions' running
 *       records and their writes, commits what is finished and lets go; later results are dropped (the
 *       new owner runs those records again). Lost partitions are dropped without a commit.</li>
 *   <li><b>Close.</b> It stops handing out records, lets running ones finish for the grace period,
 *       commits what is finished, interrupts the rest and leaves the group.</li>
 * </ol>
 * Delivery is at least once: records above a partition's committed offset that were finished run again
 * after a crash or a rebalance.
 */
public final class StreamConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StreamConsumer.class);
  private static final long POLL_MS = 100;

  private enum State { NEW, RUNNING, CLOSING, CLOSED }

  private final StreamConsumerConfig config;
  private final String groupId;
  private final String retryTopic;
  private final FailurePolicy policy;
  private final long revokeWaitMs;
  private final Time time;

  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final LinkedBlockingQueue<StreamEvents.Event> events = new LinkedBlockingQueue<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final StreamCounters counters = new StreamCounters();
  private final StreamClog clog;
  private volatile long closeDeadline;
  private volatile Set<TopicPartition> assignment = Set.of();

  // Poll thread only, from start.
  private PartitionDispatch dispatch;
  private StreamSettlements settlements;
  private StreamCommits commits;

  private StreamClients clients;
  private ExecutorService workers;
  private GroupPollLoop loop;

  public StreamConsumer(Map<String, ?> config) {
    this(new StreamConsumerConfig(config));
  }

  public StreamConsumer(StreamConsumerConfig config) {
    this.config = config;
    this.time = config.time();
    this.groupId = config.groupId();
    this.retryTopic = config.retryTopic();
    this.policy = new FailurePolicy(config.maxAttempts(), config.backoff());
    this.clog = new StreamClog(new ClogGuard(config.clogGuard()), groupId, counters);
    this.revokeWaitMs = config.revokeWait().toMillis();
  }

  /**
   * Checks that the topics it writes to exist (the retry topic, the dlq and the delay tiers), joins the
   * group and starts handling records with {@code handler}; returns once the poll thread runs.
   *
   * @throws IllegalStateException if one of those topics does not exist, or it was started before
   */
  public void start(StreamHandler handler) {
    if (handler == null) {
      throw new IllegalArgumentException("handler is missing");
    }
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException("stream consumer of group " + groupId + " was already started or closed");
    }
    try {
      this.clients = StreamClients.open(config);
    } catch (RuntimeException e) {
      state.set(State.CLOSED);
      terminated.completeExceptionally(e);
      throw e;
    }
    AtomicInteger n = new AtomicInteger();
    this.workers = Executors.newFixedThreadPool(config.threads(), r -> {
      Thread t = new Thread(r, groupId + "-stream-worker-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    List<String> topics = new ArrayList<>(config.sourceTopics());
    topics.add(retryTopic);
    this.loop = new GroupPollLoop(groupId + "-stream-poll", clients.consumer(), time);
    this.dispatch = new PartitionDispatch(clients.consumer(), workers, handler, this::post, clog, config.maxInFlight(),
        config.partitionMaxInFlight());
    this.settlements = new StreamSettlements(policy, clients.delayClient(), clients.producer(), retryTopic,
        config.topics().dlq(), time, counters, this::post);
    this.commits = new StreamCommits(clients.consumer(), loop, groupId, config.commitInterval().toMillis());
    loop.start(topics, new Rebalance(), new Turns());
  }

  /**
   * {@link #start} and wait until {@link #close} is called from another thread.
   *
   * @throws ExecutionException if the consumer stopped on a fatal Kafka error
   */
  public void run(StreamHandler handler) throws InterruptedException, ExecutionException {
    start(handler);
    terminated.get();
  }

  /** The partitions (of source topics and the retry topic) this consumer owns now. */
  public Set<TopicPartition> assignment() {
    return assignment;
  }

  /** The clog guard's state now. */
  public ClogState clogState() {
    return clog.published();
  }

  /** A snapshot of what this consumer did so far. */
  public StreamConsumerStats stats() {
    return counters.snapshot(clog.published());
  }

  /** The retry topic this consumer copies failed records to and reads them back from. */
  public String retryTopic() {
    return retryTopic;
  }

  /** Completes when the consumer stopped: normally after {@link #close}, exceptionally on a fatal error. */
  public CompletableFuture<Void> terminated() {
    return terminated.copy();
  }

  @Override
  public void close() {
    close(config.closeGrace());
  }

  /**
   * Stops handing out records, lets running ones finish for up to {@code grace} (and their retry copies
   * be written), commits what is finished, interrupts the rest (their records run again at the next
   * owner), leaves the group and closes the Kafka clients.
   */
  public void close(Duration grace) {
    if (state.compareAndSet(State.NEW, State.CLOSED)) {
      terminated.complete(null);
      return;
    }
    if (state.get() == State.RUNNING) {
      closeDeadline = time.milliseconds() + grace.toMillis(); // before the poll thread can see CLOSING
      state.compareAndSet(State.RUNNING, State.CLOSING);
    }
    GroupPollLoop poll = loop;
    if (poll != null) {
      poll.join(grace.plusSeconds(60));
    }
  }

  // ---- the poll thread ----

  /** The poll thread's turns: settle, hand out, pause and commit, then take what the poll brought. */
  private final class Turns implements GroupPollLoop.Turn {
    @Override
    public long beforePoll(long now) {
      drainEvents(now);
      if (state.get() == State.CLOSING && (dispatch.idle() || now >= closeDeadline)) {
        commits.commit(true, dispatch.all());
        return GroupPollLoop.STOP;
      }
      settlements.retryDue(now);
      if (clog.probeDue(now)) {
        dispatch.rewindAll();
        clog.startProbing();
      }
      if (state.get() == State.RUNNING) {
        dispatch.dispatch();
      }
      dispatch.adjustPauses(state.get() != State.RUNNING || clog.pausesAll());
      clog.publish();
      counters.running.set(dispatch.running());
      commits.commitIfDue(now, dispatch.all());
      return settlements.pollTimeout(now, clog.pollTimeout(now, POLL_MS));
    }

    @Override
    public void onRecords(ConsumerRecords<byte[], byte[]> records) {
      dispatch.take(records);
    }

    @Override
    public void onEnd(Throwable failure) {
      if (failure != null) {
        log.error("Stream consumer of group {} stopped on a fatal error; its uncommitted records run again at the"
            + " partitions' next owner", groupId, failure);
      }
      dispatch.clear();
      counters.running.set(0); // what still runs is abandoned
      assignment = Set.of();
      workers.shutdownNow();
      clients.closeQuietly();
      state.set(State.CLOSED);
      if (failure != null) {
        terminated.completeExceptionally(failure);
      } else {
        terminated.complete(null);
      }
    }
  }

  /** From a worker or a producer callback: the poll thread takes the event at once. */
  private void post(StreamEvents.Event event) {
    events.add(event);
    loop.wake();
  }

  private void drainEvents(long now) {
    StreamEvents.Event e;
    while ((e = events.poll()) != null) {
      handle(e, now);
    }
  }

  private void handle(StreamEvents.Event e, long now) {
    if (e instanceof StreamEvents.Handled h) {
      onHandled(h, now);
    } else if (e instanceof StreamEvents.Written w) {
      settlements.onWritten(w, now);
    }
  }

  private void onHandled(StreamEvents.Handled h, long now) {
    PartitionWork w = h.work();
    dispatch.returned(w);
    if (w.revoked) {
      return; // the partition moved on; its new owner runs the record again
    }
    Throwable failure = h.failure();
    (failure == null ? counters.handled : counters.failed).incrementAndGet();
    switch (clog.handled(w, h.record(), failure, now)) {
      case FINISH -> w.tracker.finish(h.record().offset());
      case SETTLE -> settlements.settle(w, h.record(), failure);
      case SETTLE_AND_REWIND_ALL -> {
        settlements.settle(w, h.record(), failure);
        dispatch.rewindAll();
      }
      case CLOG -> {
        dispatch.rewindAll();
        reopen(w, h.record());
      }
      case REOPEN -> reopen(w, h.record());
    }
  }

  /** Clogged: the record is neither retried nor dead-lettered; it is fetched and runs again. */
  private void reopen(PartitionWork w, StreamRecord record) {
    counters.reopened.incrementAndGet();
    w.tracker.reopen(record.offset());
    dispatch.rewind(w);
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      List<PartitionWork> leaving = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        PartitionWork w = dispatch.get(tp);
        if (w != null) {
          w.pending.clear();
          leaving.add(w);
        }
      }
      if (leaving.isEmpty()) {
        return;
      }
      long deadline = time.milliseconds() + revokeWaitMs;
      try {
        while (leaving.stream().anyMatch(PartitionWork::busy)) {
          long left = deadline - time.milliseconds();
          if (left <= 0) {
            break;
          }
          StreamEvents.Event e = events.poll(left, TimeUnit.MILLISECONDS);
          if (e != null) {
            handle(e, time.milliseconds());
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      commits.commit(true, leaving);
      int dropped = leaving.stream().mapToInt(w -> w.running + w.settling).sum();
      drop(leaving);
      log.info("Stream consumer of group {} handed over {}{}", groupId, partitions,
          dropped == 0 ? "" : "; " + dropped + " records still running or being written are dropped and run again"
              + " at the new owner");
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      List<PartitionWork> lost = partitions.stream().map(dispatch::get).filter(w -> w != null).toList();
      drop(lost);
      log.warn("Stream consumer of group {} lost partitions {} without handing them over; their uncommitted records"
          + " run again at the new owner", groupId, partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (partitions.isEmpty()) {
        return;
      }
      Set<TopicPartition> retries = new HashSet<>();
      for (TopicPartition tp : partitions) {
        boolean retry = tp.topic().equals(retryTopic);
        dispatch.add(new PartitionWork(tp, retry));
        if (retry) {
          retries.add(tp);
        }
      }
      if (!retries.isEmpty()) {
        commits.readUncommittedRetriesFromStart(retries);
      }
      assignment = dispatch.owned();
      log.info("Stream consumer of group {} now owns {}", groupId, dispatch.all().stream().map(w -> w.tp).toList());
    }

    private void drop(Collection<PartitionWork> gone) {
      for (PartitionWork w : gone) {
        dispatch.remove(w);
        clog.dropped(w); // another record probes
      }
      assignment = dispatch.owned();
    }
  }
}
