package dev.ordo.client.stream;

import dev.ordo.client.DeadLetterNow;
import dev.ordo.client.internal.GroupPollLoop;
import dev.ordo.client.stream.internal.ClogGuard;
import dev.ordo.client.stream.internal.FailurePolicy;
import dev.ordo.client.stream.internal.OffsetTracker;
import dev.ordo.client.stream.internal.RetryCopies;
import dev.ordo.delay.DelayClient;
import dev.ordo.schema.DeadLetterReason;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
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
  private static final long WRITE_RETRY_BACKOFF_MS = 1_000;

  private enum State { NEW, RUNNING, CLOSING, CLOSED }

  private final StreamConsumerConfig config;
  private final String groupId;
  private final String retryTopic;
  private final String dlqTopic;
  private final FailurePolicy policy;
  private final ClogGuard guard;
  private final int maxInFlight;
  private final int partitionMaxInFlight;
  private final long commitIntervalMs;
  private final long revokeWaitMs;
  private final Time time;

  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final Counters counters = new Counters();
  private volatile long closeDeadline;
  private volatile Set<TopicPartition> assignment = Set.of();
  private volatile ClogState clogState = ClogState.FLOWING;

  // Poll thread only.
  private final Map<TopicPartition, PartitionWork> works = new LinkedHashMap<>();
  private final List<Settlement> deferred = new ArrayList<>();
  private Probe probe;
  private int running;
  private long nextCommit;

  private KafkaConsumer<byte[], byte[]> consumer;
  private KafkaProducer<byte[], byte[]> producer;
  private DelayClient delayClient;
  private ExecutorService workers;
  private GroupPollLoop loop;
  private StreamHandler handler;

  public StreamConsumer(Map<String, ?> config) {
    this(new StreamConsumerConfig(config));
  }

  public StreamConsumer(StreamConsumerConfig config) {
    this.config = config;
    this.time = config.time();
    this.groupId = config.groupId();
    this.retryTopic = config.retryTopic();
    this.dlqTopic = config.topics().dlq();
    this.policy = new FailurePolicy(config.maxAttempts(), config.backoff());
    this.guard = new ClogGuard(config.clogGuard());
    this.maxInFlight = config.maxInFlight();
    this.partitionMaxInFlight = config.partitionMaxInFlight();
    this.commitIntervalMs = config.commitInterval().toMillis();
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
    this.handler = handler;
    try {
      List<String> written = checkTopics();
      this.producer = new KafkaProducer<>(config.producerConfigs());
      // Fetch their metadata now: the first send to a topic otherwise waits for it, and a retry copy held
      // by the delay client for a short backoff would then miss its tier.
      written.forEach(producer::partitionsFor);
      this.delayClient = new DelayClient(config.delayConfig(), producer);
      this.consumer = new KafkaConsumer<>(config.consumerConfigs());
    } catch (RuntimeException e) {
      closeQuietly();
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
    this.loop = new GroupPollLoop(groupId + "-stream-poll", consumer, time);
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
    return clogState;
  }

  /** A snapshot of what this consumer did so far. */
  public StreamConsumerStats stats() {
    return counters.snapshot(clogState);
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
      if (state.get() == State.CLOSING && (idle() || now >= closeDeadline)) {
        commit(true, works.values());
        return GroupPollLoop.STOP;
      }
      runDeferred(now);
      if (guard.probeDue(now)) {
        startProbing();
      }
      dispatch();
      adjustPauses();
      clogState = guard.state();
      counters.running.set(running);
      if (now >= nextCommit) {
        commit(false, works.values());
        nextCommit = now + commitIntervalMs;
      }
      long timeout = POLL_MS;
      if (guard.state() == ClogState.CLOGGED) {
        timeout = Math.min(timeout, Math.max(0, guard.nextProbeAt() - now));
      }
      for (Settlement s : deferred) {
        timeout = Math.min(timeout, Math.max(0, s.retryAt - now));
      }
      return timeout;
    }

    @Override
    public void onRecords(ConsumerRecords<byte[], byte[]> records) {
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

    @Override
    public void onEnd(Throwable failure) {
      if (failure != null) {
        log.error("Stream consumer of group {} stopped on a fatal error; its uncommitted records run again at the"
            + " partitions' next owner", groupId, failure);
      }
      works.values().forEach(w -> w.revoked = true);
      works.clear();
      counters.running.set(0); // what still runs is abandoned
      assignment = Set.of();
      workers.shutdownNow();
      closeQuietly();
      state.set(State.CLOSED);
      if (failure != null) {
        terminated.completeExceptionally(failure);
      } else {
        terminated.complete(null);
      }
    }
  }

  private boolean idle() {
    for (PartitionWork w : works.values()) {
      if (w.running > 0 || w.settling > 0) {
        return false;
      }
    }
    return true;
  }

  private void drainEvents(long now) {
    Event e;
    while ((e = events.poll()) != null) {
      handle(e, now);
    }
  }

  private void handle(Event e, long now) {
    if (e instanceof Handled h) {
      onHandled(h, now);
    } else if (e instanceof Written w) {
      onWritten(w, now);
    }
  }

  // ---- handing out records ----

  private void dispatch() {
    if (state.get() != State.RUNNING) {
      return;
    }
    switch (guard.state()) {
      case CLOGGED -> { }
      case PROBING -> {
        if (probe == null) {
          for (PartitionWork w : works.values()) {
            if (startNext(w, true)) {
              counters.probes.incrementAndGet();
              log.info("Stream of group {} is clogged: probing with {}", groupId, probe);
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
      probe = new Probe(w, r.offset(), record);
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
    events.add(new Handled(w, record, failure));
    loop.wake(); // so that the record is settled at once
  }

  /** Which partitions should be paused: all while clogged or closing, else those with records waiting. */
  private void adjustPauses() {
    boolean all = state.get() != State.RUNNING || guard.state() == ClogState.CLOGGED
        || (guard.state() == ClogState.PROBING && probe != null);
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

  // ---- outcomes ----

  private void onHandled(Handled h, long now) {
    PartitionWork w = h.work();
    running--;
    w.running--;
    if (w.revoked) {
      return; // the partition moved on; its new owner runs the record again
    }
    long offset = h.record().offset();
    boolean isProbe = probe != null && probe.work() == w && probe.offset() == offset;
    if (isProbe) {
      probe = null;
    }
    Throwable failure = h.failure();
    if (failure == null) {
      counters.handled.incrementAndGet();
      w.tracker.finish(offset);
      if (isProbe) {
        guard.probeSucceeded(now);
        log.info("Stream of group {} flows again: the probe {} succeeded", groupId, h.record());
      } else {
        guard.record(false, now);
      }
      return;
    }
    counters.failed.incrementAndGet();
    if (failure instanceof DeadLetterNow) {
      // A verdict on the record, not a sign of an outage.
      if (isProbe) {
        guard.probeSucceeded(now);
      } else {
        guard.record(false, now);
      }
      settle(w, h.record(), failure);
      return;
    }
    if (isProbe) {
      guard.probeFailed(now);
      log.info("Stream of group {} stays clogged: the probe {} failed ({}); next probe in {} ms", groupId, h.record(),
          FailurePolicy.describe(failure), guard.backoffMs());
      settle(w, h.record(), failure); // this one record moves on through the tiers
      rewindAll();
      return;
    }
    if (guard.state() == ClogState.FLOWING) {
      if (!guard.record(true, now)) {
        settle(w, h.record(), failure);
        return;
      }
      int[] window = guard.window(now);
      counters.clogs.incrementAndGet();
      log.warn("Stream of group {} clogged: {} of the last {} records failed (last: {}: {}). Pausing every partition"
          + " at its first unfinished record instead of copying failures into the delay tiers; first probe in {} ms",
          groupId, window[1], window[0], h.record(), FailurePolicy.describe(failure), guard.backoffMs());
      rewindAll();
    }
    // Clogged: neither retried nor dead-lettered; it is fetched and run again.
    counters.reopened.incrementAndGet();
    w.tracker.reopen(offset);
    rewind(w);
  }

  /** Retries or dead-letters a failed record, as the policy says; it is finished once that is written. */
  private void settle(PartitionWork w, StreamRecord record, Throwable failure) {
    String error = FailurePolicy.describe(failure);
    FailurePolicy.Verdict verdict = policy.onFailure(failure, record.attempt(), ThreadLocalRandom.current().nextDouble());
    Settlement s = new Settlement(w, record, error);
    if (verdict instanceof FailurePolicy.Retry retry) {
      s.retry(retry.nextAttempt(), retry.delayMs());
      log.debug("Record {} failed ({}); attempt {} in {} ms", record, error, retry.nextAttempt(), retry.delayMs());
    } else {
      FailurePolicy.GiveUp giveUp = (FailurePolicy.GiveUp) verdict;
      s.deadLetter(giveUp.reason(), giveUp.detail());
      log.warn("Record {} goes to {}: {}; last error: {}", record, dlqTopic, giveUp.detail(), error);
    }
    w.settling++;
    write(s);
  }

  private void write(Settlement s) {
    CompletableFuture<RecordMetadata> written;
    try {
      StreamRecord r = s.record;
      if (s.reason == null) {
        written = delayClient.schedule(retryTopic, r.key(), r.value(),
            RetryCopies.retryHeaders(r, s.nextAttempt, s.error), Duration.ofMillis(s.delayMs));
      } else {
        CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
        producer.send(RetryCopies.deadLetter(dlqTopic, r, s.reason, s.detail, s.error, s.withRaw, time.milliseconds()),
            (metadata, e) -> {
              if (e != null) {
                f.completeExceptionally(e);
              } else {
                f.complete(metadata);
              }
            });
        written = f;
      }
    } catch (RuntimeException e) {
      written = CompletableFuture.failedFuture(e);
    }
    written.whenComplete((metadata, e) -> {
      events.add(new Written(s, e));
      loop.wake();
    });
  }

  private void onWritten(Written written, long now) {
    Settlement s = written.settlement();
    PartitionWork w = s.work;
    w.settling--;
    if (w.revoked) {
      return;
    }
    long offset = s.record.offset();
    Throwable e = written.error();
    if (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    if (e == null) {
      w.tracker.finish(offset);
      if (s.reason == null) {
        counters.retried.incrementAndGet();
      } else {
        counters.deadLettered.incrementAndGet();
      }
      return;
    }
    String what = s.reason == null ? "retry copy" : "dead letter";
    w.settling++;
    if (e instanceof RetriableException) {
      log.warn("Could not write the {} of record {}; trying again in {} ms", what, s.record, WRITE_RETRY_BACKOFF_MS, e);
      s.retryAt = now + WRITE_RETRY_BACKOFF_MS;
      deferred.add(s);
    } else if (s.reason == null) {
      log.error("Could not write the retry copy of record {} to {}; dead-lettering it", s.record, retryTopic, e);
      s.deadLetter(DeadLetterReason.INVALID, "its retry copy could not be written to " + retryTopic + ": "
          + FailurePolicy.describe(e));
      write(s);
    } else if (s.withRaw) {
      log.error("Could not write the dead letter of record {} to {}; writing it without its key and value",
          s.record, dlqTopic, e);
      s.withRaw = false;
      write(s);
    } else {
      w.settling--;
      log.error("Could not write even a dead letter without key and value for record {} to {}; skipping it."
          + " Last error of its handler: {}", s.record, dlqTopic, s.error, e);
      w.tracker.finish(offset);
    }
  }

  private void runDeferred(long now) {
    for (Iterator<Settlement> it = deferred.iterator(); it.hasNext(); ) {
      Settlement s = it.next();
      if (s.work.revoked) {
        it.remove();
      } else if (now >= s.retryAt) {
        it.remove();
        write(s);
      }
    }
  }

  // ---- clogging ----

  private void startProbing() {
    rewindAll();
    probe = null;
    clogState = ClogState.PROBING;
  }

  private void rewindAll() {
    for (PartitionWork w : works.values()) {
      rewind(w);
    }
  }

  /** Drops the records waiting and fetches again from the first unfinished one. */
  private void rewind(PartitionWork w) {
    if (w.tracker == null) {
      return; // nothing fetched yet
    }
    w.pending.clear();
    consumer.seek(w.tp, w.tracker.committable());
  }

  // ---- commits ----

  private void commit(boolean sync, Collection<PartitionWork> which) {
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

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      List<PartitionWork> leaving = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        PartitionWork w = works.get(tp);
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
        while (leaving.stream().anyMatch(w -> w.running > 0 || w.settling > 0)) {
          long left = deadline - time.milliseconds();
          if (left <= 0) {
            break;
          }
          Event e = events.poll(left, TimeUnit.MILLISECONDS);
          if (e != null) {
            handle(e, time.milliseconds());
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      commit(true, leaving);
      int dropped = leaving.stream().mapToInt(w -> w.running + w.settling).sum();
      drop(leaving);
      log.info("Stream consumer of group {} handed over {}{}", groupId, partitions,
          dropped == 0 ? "" : "; " + dropped + " records still running or being written are dropped and run again"
              + " at the new owner");
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      List<PartitionWork> lost = partitions.stream().map(works::get).filter(w -> w != null).toList();
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
        works.put(tp, new PartitionWork(tp, retry));
        if (retry) {
          retries.add(tp);
        }
      }
      if (!retries.isEmpty()) {
        // Retry copies written before the group ever committed this partition must not be skipped,
        // whatever auto.offset.reset says for the source topics.
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
      assignment = Set.copyOf(works.keySet());
      log.info("Stream consumer of group {} now owns {}", groupId, works.keySet());
    }

    private void drop(Collection<PartitionWork> gone) {
      for (PartitionWork w : gone) {
        w.revoked = true;
        works.remove(w.tp);
        if (probe != null && probe.work() == w) {
          probe = null; // another record probes
        }
      }
      assignment = Set.copyOf(works.keySet());
    }
  }

  // ---- start and stop ----

  /**
   * The topics it writes to must exist: a send to a missing topic would block the poll thread.
   *
   * @return those topics
   */
  private List<String> checkTopics() {
    List<String> needed = new ArrayList<>(List.of(retryTopic, dlqTopic));
    config.delayConfig().tiers().forEach(t -> needed.add(config.topics().delayTier(t)));
    List<String> missing = new ArrayList<>();
    try (Admin admin = Admin.create(config.adminConfigs())) {
      Map<String, KafkaFuture<TopicDescription>> found = admin.describeTopics(needed).topicNameValues();
      for (String topic : needed) {
        try {
          found.get(topic).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof UnknownTopicOrPartitionException) {
            missing.add(topic);
          } else {
            log.warn("Could not check that topic {} exists; going on", topic, e.getCause());
          }
        } catch (TimeoutException e) {
          log.warn("Could not check that topic {} exists within 30 s; going on", topic);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while checking the topics of group " + groupId, e);
        }
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("stream consumer of group " + groupId + ": topics " + missing + " do not exist."
          + " It writes retry copies to the delay tiers and " + retryTopic + ", and dead letters to " + dlqTopic
          + "; create them first (see docs/stream-consumer.md)");
    }
    return needed;
  }

  private void closeQuietly() {
    if (delayClient != null) {
      try {
        delayClient.close(Duration.ZERO); // held retry copies are dropped: their records were not committed
      } catch (RuntimeException e) {
        log.warn("Closing the delay client of group {} failed", groupId, e);
      }
    }
    if (producer != null) {
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.warn("Closing the producer of group {} failed", groupId, e);
      }
    }
    if (consumer != null) {
      try {
        consumer.close(Duration.ofSeconds(10));
      } catch (RuntimeException e) {
        log.warn("Closing the consumer of group {} failed", groupId, e);
      }
    }
  }

  // ---- state ----

  /** What the poll thread knows of one partition it owns. */
  private static final class PartitionWork {
    final TopicPartition tp;
    final boolean retry;
    final ArrayDeque<ConsumerRecord<byte[], byte[]>> pending = new ArrayDeque<>();
    OffsetTracker tracker; // from the first fetched record
    int running; // handed to workers, handler not returned
    int settling; // retry copy or dead letter being written
    long committed = -1;
    boolean revoked;

    PartitionWork(TopicPartition tp, boolean retry) {
      this.tp = tp;
      this.retry = retry;
    }
  }

  private record Probe(PartitionWork work, long offset, StreamRecord record) {
    @Override
    public String toString() {
      return record.toString();
    }
  }

  /** A failed record's retry copy or dead letter, until it is written. */
  private static final class Settlement {
    final PartitionWork work;
    final StreamRecord record;
    final String error;
    int nextAttempt;
    long delayMs;
    DeadLetterReason reason; // null: a retry copy
    String detail;
    boolean withRaw = true;
    long retryAt;

    Settlement(PartitionWork work, StreamRecord record, String error) {
      this.work = work;
      this.record = record;
      this.error = error;
    }

    void retry(int attempt, long delay) {
      this.nextAttempt = attempt;
      this.delayMs = delay;
      this.reason = null;
    }

    void deadLetter(DeadLetterReason why, String text) {
      this.reason = why;
      this.detail = text;
    }
  }

  private sealed interface Event permits Handled, Written {}

  private record Handled(PartitionWork work, StreamRecord record, Throwable failure) implements Event {}

  private record Written(Settlement settlement, Throwable error) implements Event {}

  private static final class Counters {
    final AtomicLong handled = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong retried = new AtomicLong();
    final AtomicLong deadLettered = new AtomicLong();
    final AtomicLong clogs = new AtomicLong();
    final AtomicLong probes = new AtomicLong();
    final AtomicLong reopened = new AtomicLong();
    final AtomicInteger running = new AtomicInteger();

    StreamConsumerStats snapshot(ClogState state) {
      return new StreamConsumerStats(handled.get(), failed.get(), retried.get(), deadLettered.get(), clogs.get(),
          probes.get(), reopened.get(), running.get(), state);
    }
  }
}
