package dev.ordo.delay;

import dev.ordo.api.Durations;
import dev.ordo.delay.internal.ClientFactory;
import dev.ordo.delay.internal.DeadLetters;
import dev.ordo.delay.internal.ForwardPlanner;
import dev.ordo.delay.internal.ForwardPlanner.Step;
import dev.ordo.delay.internal.PartitionProgress;
import dev.ordo.delay.internal.PauseSchedule;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.serde.OrdoSerdes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards the records of one tier topic {@code <cluster>.delay.<d>} when they are due: to the next
 * tier or to their target. Run it on a thread of its own ({@link #run()} returns after
 * {@link #close()}); {@link DelayTiers} runs one per tier. Any number of forwarders of a tier, on any
 * number of instances, share its partitions through the consumer group {@code <cluster>.delay.<d>.forwarder}.
 *
 * <p>The loop, one iteration:
 * <ol>
 *   <li>Resume the paused partitions whose head is due now.
 *   <li>Poll, blocking at most until the next paused partition or held record is due (never sleeping:
 *       polling keeps the consumer in its group however long a head waits).
 *   <li>Forward the records held aside that are due now (see 4).
 *   <li>For each partition's new records in offset order, {@link ForwardPlanner} decides. A record of
 *       tier d is released at its LogAppendTime + d (or its due time, if earlier), so records are released
 *       in offset order:
 *       <ul>
 *         <li>not released yet: seek back to it, pause the partition until it is, skip the rest of the batch;
 *         <li>released: produce it to the tier the router picks, or to its target if due;
 *         <li>released with less than the shortest tier to go: hold it aside in memory until its due time and
 *             go on with the records behind it, which may be due sooner (at most
 *             {@link PartitionProgress#MAX_PENDING} per partition; beyond that the partition waits at its head).
 *       </ul>
 *   <li>Commit the produced records and each partition's progress in one transaction
 *       ({@code sendOffsetsToTransaction} with the consumer's group metadata, so a forwarder that lost its
 *       partitions in a rebalance cannot commit). The committed offset is the first record not forwarded yet;
 *       its metadata lists the records held aside above it ({@link PartitionProgress}), so whoever reads the
 *       partition next skips exactly what was forwarded. Readers use read_committed: a record is forwarded once.
 * </ol>
 * A record that is not a {@link DelayedRecord} goes to {@code <cluster>.dlq} (reason MALFORMED, raw bytes
 * kept), as does one whose target is not a legal or existing topic or partition (INVALID); neither stops
 * the tier. A transaction that fails is aborted and the partitions it touched restart from their committed
 * progress; one that fails because a record cannot be written (too large, not authorized) sends that record
 * to the dlq on the next try. A fenced producer is replaced. Any other error ends {@link #run()} with it
 * (aborting the open transaction); {@link DelayTiers} then starts a new forwarder.
 */
public final class DelayForwarder implements Runnable, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DelayForwarder.class);
  private static final int MAX_SEND_FAILURES = 3;

  private final DelayTiersConfig config;
  private final Duration tier;
  private final String topic;
  private final String dlqTopic;
  private final ForwardPlanner planner;
  private final Time time;
  private final ClientFactory clients;

  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile Thread runner;
  private volatile Consumer<byte[], byte[]> consumer;

  private final AtomicLong toTier = new AtomicLong();
  private final AtomicLong toTarget = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong aborted = new AtomicLong();
  /** Told how late (ms past its due time, negative if early) each record goes to its target. */
  private volatile LongConsumer lateness = ms -> { };
  /** Records held aside in memory until due, as of the loop's last pass. */
  private volatile int heldCount;

  // Owned by the loop thread.
  private Producer<byte[], byte[]> producer;
  private boolean inTransaction;
  private boolean warnedTimestampType;
  private final PauseSchedule<TopicPartition> pauses = new PauseSchedule<>();
  private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
  private final Map<TopicPartition, PartitionProgress> committedProgress = new HashMap<>();
  private final Map<TopicPartition, TreeMap<Long, Held>> held = new HashMap<>();
  private final Map<TopicPartition, Map<Long, SendFailure>> sendFailures = new HashMap<>();

  /** A forwarder of {@code tier}, which must be one of {@code config}'s tiers. */
  public DelayForwarder(DelayTiersConfig config, Duration tier) {
    this(config, tier, Time.SYSTEM, ClientFactory.KAFKA);
  }

  DelayForwarder(DelayTiersConfig config, Duration tier, Time time, ClientFactory clients) {
    if (!config.tiers().contains(tier)) {
      throw new IllegalArgumentException("tier " + Durations.format(tier) + " is not one of the configured tiers "
          + config.tiers().stream().map(Durations::format).toList());
    }
    this.config = config;
    this.tier = tier;
    this.topic = config.topics().delayTier(tier);
    this.dlqTopic = config.topics().dlq();
    this.planner = new ForwardPlanner(tier, config.router());
    this.time = time;
    this.clients = clients;
  }

  public Duration tier() {
    return tier;
  }

  public String topic() {
    return topic;
  }

  /** Sets who is told how late each record goes to its target (metrics). */
  public void observeLateness(LongConsumer observer) {
    this.lateness = observer;
  }

  /** Records held aside in memory until their due time (a record less than the shortest tier from due). */
  public int held() {
    return heldCount;
  }

  public ForwarderStats stats() {
    return new ForwarderStats(toTier.get(), toTarget.get(), deadLettered.get(), dropped.get(), committed.get(),
        aborted.get());
  }

  /** Runs the forward loop on the calling thread until {@link #close()}. A forwarder runs once. */
  @Override
  public void run() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("forwarder of " + topic + " already ran; create a new one");
    }
    runner = Thread.currentThread();
    try {
      if (closing.get()) {
        return;
      }
      consumer = clients.consumer(config.forwarderConsumerConfigs(tier));
      if (closing.get()) {
        return;
      }
      producer = newProducer();
      consumer.subscribe(List.of(topic), new Rebalance());
      log.info("forwarding {} as {} (tiers {})", topic, config.forwarderGroupId(tier) + "-" + config.instanceId(),
          config.tiers().stream().map(Durations::format).toList());
      while (!closing.get()) {
        pollOnce();
      }
    } catch (WakeupException e) {
      if (!closing.get()) {
        throw e;
      }
    } finally {
      shutdown();
      stopped.countDown();
    }
  }

  /** Stops the loop and waits up to 30 s for it to end; the open transaction, if any, is aborted. */
  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  public void close(Duration timeout) {
    closing.set(true);
    Consumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    if (started.get() && Thread.currentThread() != runner) {
      try {
        if (!stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          log.warn("forwarder of {} did not stop within {}", topic, timeout);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void pollOnce() {
    List<TopicPartition> due = pauses.due(time.milliseconds());
    if (!due.isEmpty()) {
      Set<TopicPartition> owned = consumer.assignment();
      consumer.resume(due.stream().filter(owned::contains).toList());
    }
    long now = time.milliseconds();
    long timeout = Math.min(pauses.pollTimeout(now, config.maxPollMs()), Math.max(0, nextHeldDue() - now));
    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(timeout));
    now = time.milliseconds();
    if (!records.isEmpty() || nextHeldDue() <= now) {
      forward(records, now);
    }
    int h = 0;
    for (TreeMap<Long, Held> aside : held.values()) {
      h += aside.size();
    }
    heldCount = h;
  }

  /**
   * One transaction: the held records now due, then the new records in offset order as far as each
   * partition's first record that is not released yet; and the progress of every partition that moved.
   */
  private void forward(ConsumerRecords<byte[], byte[]> records, long now) {
    Map<String, Object> targetPartitions = new HashMap<>();
    List<Send> sends = new ArrayList<>();
    try {
      for (Map.Entry<TopicPartition, TreeMap<Long, Held>> e : held.entrySet()) {
        TopicPartition tp = e.getKey();
        PartitionProgress p = progress.get(tp);
        for (Held h : new ArrayList<>(e.getValue().values())) {
          if (h.until > now) {
            continue;
          }
          Outgoing out = outgoing(h.record, now, targetPartitions);
          if (out instanceof Outgoing.Later later) {
            e.getValue().put(h.record.offset(), new Held(h.record, later.until()));
          } else {
            e.getValue().remove(h.record.offset());
            send(tp, h.record.offset(), out, sends);
            p.forwarded(h.record.offset());
          }
        }
      }
      for (TopicPartition tp : records.partitions()) {
        PartitionProgress p = progress.computeIfAbsent(tp, k -> PartitionProgress.fresh());
        TreeMap<Long, Held> aside = held.computeIfAbsent(tp, k -> new TreeMap<>());
        for (ConsumerRecord<byte[], byte[]> record : records.records(tp)) {
          long offset = record.offset();
          if (p.isForwarded(offset) || aside.containsKey(offset)) {
            continue;
          }
          Outgoing out = outgoing(record, now, targetPartitions);
          if (out instanceof Outgoing.Later later) {
            if (later.outOfLine() && p.pendingCount() < PartitionProgress.MAX_PENDING) {
              aside.put(offset, new Held(record, later.until()));
              p.held(offset);
              continue;
            }
            // Not released yet, or too many held aside (then until one of them has gone): wait at the
            // head, the partition paused.
            long until = later.until();
            if (later.outOfLine()) {
              for (Held h : aside.values()) {
                until = Math.min(until, h.until);
              }
            }
            consumer.seek(tp, offset);
            consumer.pause(List.of(tp));
            pauses.pause(tp, until);
            break;
          }
          send(tp, offset, out, sends);
          p.forwarded(offset);
        }
      }
      if (inTransaction) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : dirtyPartitions()) {
          PartitionProgress p = progress.get(tp);
          offsets.put(tp, new OffsetAndMetadata(p.committedOffset(), p.metadata()));
        }
        producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
        producer.commitTransaction();
        inTransaction = false;
        committed.incrementAndGet();
        offsets.keySet().forEach(tp -> committedProgress.put(tp, progress.get(tp).copy()));
        for (Send send : sends) {
          if (send.kind != null) {
            send.kind.counter(this).incrementAndGet();
          }
          Map<Long, SendFailure> failures = sendFailures.get(send.tp);
          if (failures != null) {
            failures.remove(send.offset);
          }
        }
      }
    } catch (ProducerFencedException | InvalidProducerEpochException | OutOfOrderSequenceException
        | UnsupportedVersionException | TransactionalIdAuthorizationException | ClusterAuthorizationException
        | TimeoutException e) {
      // The producer is unusable or the transaction's outcome unknown: a new producer with the same
      // transactional id completes or aborts it, and the committed offsets say where to go on.
      log.warn("forwarder of {}: transaction failed ({}); replacing the producer and restoring committed progress",
          topic, e.toString());
      aborted.incrementAndGet();
      replaceProducer();
      restore(consumer.assignment());
    } catch (KafkaException e) {
      aborted.incrementAndGet();
      if (!abort()) {
        replaceProducer();
        restore(consumer.assignment());
        return;
      }
      boolean blamed = blame(sends);
      restore(dirtyPartitions());
      if (isRebalance(e)) {
        log.info("forwarder of {}: transaction aborted by a rebalance ({}); going on", topic, e.toString());
      } else if (!blamed) {
        log.warn("forwarder of {}: transaction aborted ({}); retrying in {} ms", topic, e.toString(),
            config.errorBackoffMs());
        backOff();
      }
    }
  }

  private void send(TopicPartition tp, long offset, Outgoing out, List<Send> sends) {
    if (!inTransaction) {
      producer.beginTransaction();
      inTransaction = true;
    }
    if (out instanceof Outgoing.Produce produce) {
      SendFailure suspect = sendFailures.getOrDefault(tp, Map.of()).get(offset);
      Send send = new Send(tp, offset, produce.kind(), suspect != null && suspect.count == 0);
      sends.add(send);
      if (send.alone) {
        producer.flush(); // what went before is written, so an error of this send is its own
      }
      producer.send(produce.record(), send);
      if (send.alone) {
        producer.flush();
      }
    }
  }

  private long nextHeldDue() {
    long next = Long.MAX_VALUE;
    for (TreeMap<Long, Held> aside : held.values()) {
      for (Held h : aside.values()) {
        next = Math.min(next, h.until);
      }
    }
    return next;
  }

  /** Partitions whose progress moved since their last commit (a fresh one only once it examined a record). */
  private Set<TopicPartition> dirtyPartitions() {
    Set<TopicPartition> dirty = new HashSet<>();
    progress.forEach((tp, p) -> {
      if (p.frontier() >= 0 && !p.equals(committedProgress.get(tp))) {
        dirty.add(tp);
      }
    });
    return dirty;
  }

  /** What to do with one record at {@code now}. */
  private Outgoing outgoing(ConsumerRecord<byte[], byte[]> record, long now, Map<String, Object> targetPartitions) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    SendFailure failure = sendFailures.getOrDefault(tp, Map.of()).get(record.offset());
    if (failure != null && failure.count > 0) {
      if (failure.count >= MAX_SEND_FAILURES) {
        log.error("forwarder of {}: dropping {}-{}@{}: neither it nor its dead letter could be written: {}",
            topic, record.topic(), record.partition(), record.offset(), failure.error);
        dropped.incrementAndGet();
        return new Outgoing.Skip();
      }
      boolean withRaw = failure.count < 2;
      return deadLetter(record, DeadLetterReason.INVALID, "could not write the record: " + failure.error, withRaw, now);
    }
    DelayedRecord envelope;
    try {
      envelope = OrdoSerdes.DELAYED_RECORD.decode(record.value());
    } catch (RuntimeException e) {
      return deadLetter(record, DeadLetterReason.MALFORMED, "not a DelayedRecord: " + e.getMessage(), true, now);
    }
    String problem = DelayedRecords.topicProblem(envelope.getTargetTopic());
    if (problem != null) {
      return deadLetter(record, DeadLetterReason.INVALID, problem, true, now);
    }
    if (record.timestampType() != TimestampType.LOG_APPEND_TIME && !warnedTimestampType) {
      warnedTimestampType = true;
      log.warn("{} has {} timestamps; delay tiers need message.timestamp.type=LogAppendTime, "
          + "or records leave the tier by their producers' clocks", topic, record.timestampType());
    }
    Step step = planner.decide(record.timestamp(), envelope.getDueAt(), now);
    if (step instanceof Step.Wait wait) {
      return new Outgoing.Later(wait.until(), false);
    }
    if (step instanceof Step.Hold hold) {
      return new Outgoing.Later(hold.until(), true);
    }
    Route route = ((Step.Forward) step).route();
    if (route instanceof Route.Tier next) {
      String nextTopic = config.topics().delayTier(next.delay());
      return new Outgoing.Produce(new ProducerRecord<>(nextTopic, null, null, record.key(), record.value()), Kind.TIER);
    }
    String targetProblem = targetProblem(envelope, targetPartitions);
    if (targetProblem != null) {
      return deadLetter(record, DeadLetterReason.INVALID, targetProblem, true, now);
    }
    try {
      lateness.accept(now - envelope.getDueAt());
    } catch (RuntimeException e) {
      log.warn("the lateness observer of {} failed; forwarding goes on", topic, e); // metrics never stop a record
    }
    return new Outgoing.Produce(DelayedRecords.targetRecord(envelope, now), Kind.TARGET);
  }

  /** Null when the target topic (and partition) exist, else why not. Memoized per batch: an unknown topic blocks. */
  private String targetProblem(DelayedRecord envelope, Map<String, Object> targetPartitions) {
    String target = envelope.getTargetTopic();
    Object known = targetPartitions.computeIfAbsent(target, t -> {
      try {
        List<PartitionInfo> partitions = producer.partitionsFor(t);
        return partitions.size();
      } catch (TimeoutException e) {
        return "target topic '" + t + "' not found: " + e.getMessage();
      } catch (KafkaException e) {
        if (e instanceof InvalidTopicException || e instanceof TopicAuthorizationException) {
          return "cannot write target topic '" + t + "': " + e;
        }
        throw e;
      }
    });
    if (known instanceof String problem) {
      return problem;
    }
    Integer partition = envelope.getTargetPartition();
    if (partition != null && partition >= (Integer) known) {
      return "target partition " + partition + " does not exist: '" + target + "' has " + known + " partitions";
    }
    return null;
  }

  private Outgoing deadLetter(ConsumerRecord<byte[], byte[]> record, DeadLetterReason reason, String detail,
      boolean withRaw, long now) {
    log.warn("forwarder of {}: {}-{}@{} to {}: {} {}", topic, record.topic(), record.partition(), record.offset(),
        dlqTopic, reason, detail);
    return new Outgoing.Produce(DeadLetters.record(dlqTopic, record, reason, detail, withRaw, now), Kind.DEAD_LETTER);
  }

  /**
   * Remembers the records whose own send failed the transaction; true if there were any, or if it
   * cannot tell which: a transactional producer fails every batch not sent yet with the error of the
   * batch that failed, so several sends may carry one record's error. Those become suspects, sent
   * alone (flushed before and after) on the next try, which tells the faulty one from the others.
   */
  private boolean blame(List<Send> sends) {
    List<Send> failed = new ArrayList<>();
    Send firstAlone = null;
    for (Send send : sends) {
      if (isOwnFault(send.error)) {
        failed.add(send);
        if (send.alone && firstAlone == null) {
          firstAlone = send;
        }
      }
    }
    Send culprit = firstAlone != null ? firstAlone : failed.size() == 1 ? failed.get(0) : null;
    if (culprit == null) {
      for (Send send : failed) {
        Map<Long, SendFailure> failures = sendFailures.computeIfAbsent(send.tp, k -> new HashMap<>());
        failures.putIfAbsent(send.offset, new SendFailure(0, send.error.toString()));
      }
      if (!failed.isEmpty()) {
        log.info("forwarder of {}: {} records of an aborted transaction failed with one error ({}); "
            + "retrying them one by one", topic, failed.size(), failed.get(0).error.toString());
      }
      return !failed.isEmpty();
    }
    Exception e = culprit.error;
    SendFailure previous = sendFailures.computeIfAbsent(culprit.tp, k -> new HashMap<>()).get(culprit.offset);
    sendFailures.get(culprit.tp).put(culprit.offset,
        new SendFailure(previous == null ? 1 : previous.count + 1, e.toString()));
    log.warn("forwarder of {}: record {}@{} could not be written ({}); it goes to {}", topic, culprit.tp,
        culprit.offset, e.toString(), dlqTopic);
    return true;
  }

  /** Errors that come from the record itself (its size, its topic), not from the cluster's state. */
  private static boolean isOwnFault(Exception e) {
    return e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidRecordException || e instanceof InvalidTopicException
        || e instanceof TopicAuthorizationException;
  }

  /** The group moved on (rebalance, new generation): nothing to wait for, the next poll catches up. */
  private static boolean isRebalance(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CommitFailedException || t instanceof RebalanceInProgressException
          || t instanceof IllegalGenerationException || t instanceof UnknownMemberIdException
          || t instanceof FencedInstanceIdException || t instanceof FencedMemberEpochException) {
        return true;
      }
    }
    return false;
  }

  private boolean abort() {
    if (!inTransaction) {
      return true;
    }
    try {
      producer.abortTransaction();
      inTransaction = false;
      return true;
    } catch (KafkaException e) {
      log.warn("forwarder of {}: abort failed ({})", topic, e.toString());
      return false;
    }
  }

  /**
   * Forgets what this forwarder did in {@code partitions} since their last commit: reloads their
   * committed progress, drops the records held aside and reads again from the committed offsets.
   */
  private void restore(Collection<TopicPartition> partitions) {
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
      held.remove(tp);
    }
  }

  /** Pauses every owned partition for the error backoff; the loop keeps polling meanwhile. */
  private void backOff() {
    long until = time.milliseconds() + config.errorBackoffMs();
    Set<TopicPartition> owned = consumer.assignment();
    for (TopicPartition tp : owned) {
      Long current = pauses.resumeTime(tp);
      pauses.pause(tp, current == null ? until : Math.max(current, until));
    }
    consumer.pause(owned);
  }

  private Producer<byte[], byte[]> newProducer() {
    Producer<byte[], byte[]> p = clients.producer(config.forwarderProducerConfigs(tier));
    try {
      p.initTransactions();
      return p;
    } catch (RuntimeException e) {
      p.close(Duration.ZERO);
      throw e;
    }
  }

  private void replaceProducer() {
    inTransaction = false;
    try {
      producer.close(Duration.ZERO);
    } catch (RuntimeException e) {
      log.debug("closing the old producer of {} failed", topic, e);
    }
    producer = null;
    producer = newProducer();
  }

  private void shutdown() {
    if (producer != null) {
      try {
        abort();
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.warn("forwarder of {}: closing the producer failed ({})", topic, e.toString());
      }
    }
    Consumer<byte[], byte[]> c = consumer;
    if (c != null) {
      try {
        c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
      } catch (RuntimeException e) {
        log.warn("forwarder of {}: closing the consumer failed ({})", topic, e.toString());
      }
    }
    log.info("forwarder of {} stopped: {}", topic, stats());
  }

  /** Partitions come and go only inside poll(), when no transaction is open. */
  private final class Rebalance implements ConsumerRebalanceListener {
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
      sendFailures.keySet().removeAll(partitions);
    }
  }

  private enum Kind {
    TIER, TARGET, DEAD_LETTER;

    AtomicLong counter(DelayForwarder f) {
      return switch (this) {
        case TIER -> f.toTier;
        case TARGET -> f.toTarget;
        case DEAD_LETTER -> f.deadLettered;
      };
    }
  }

  private sealed interface Outgoing {
    /** Not yet: at {@code until}; {@code outOfLine}: held aside so the records behind go on, else at the head. */
    record Later(long until, boolean outOfLine) implements Outgoing {}

    record Produce(ProducerRecord<byte[], byte[]> record, Kind kind) implements Outgoing {}

    record Skip() implements Outgoing {}
  }

  /** How often a record's own send failed a transaction (0: a suspect, sent alone next time), and why. */
  private record SendFailure(int count, String error) {}

  private record Held(ConsumerRecord<byte[], byte[]> record, long until) {}

  /** One send of the open transaction and, once completed, its error. */
  private static final class Send implements Callback {
    final TopicPartition tp;
    final long offset;
    final Kind kind;
    /** Sent alone, flushed before and after: an error is this record's own. */
    final boolean alone;
    volatile Exception error;

    Send(TopicPartition tp, long offset, Kind kind, boolean alone) {
      this.tp = tp;
      this.offset = offset;
      this.kind = kind;
      this.alone = alone;
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
      error = exception;
    }
  }
}
