package dev.ordo.delay;

import dev.ordo.api.Durations;
import dev.ordo.delay.internal.ClientFactory;
import dev.ordo.delay.internal.ForwardPlanner;
import dev.ordo.delay.internal.PartitionProgress;
import dev.ordo.schema.DelayedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
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
 *
 * <p>Inside: {@link OutgoingDecider} decides what becomes of a record ({@link Outgoing}), {@link TargetTopics}
 * whether its target exists; {@link ForwarderPartitions} keeps each partition's progress, held records
 * ({@link HeldRecords}) and pauses and restores them on a rebalance; {@link SendBlame} remembers whose send
 * failed a transaction; {@link ForwarderProducer} is the transactional producer's life cycle. This class runs
 * the loop and its transactions.
 */
public final class DelayForwarder implements Runnable, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DelayForwarder.class);

  private final DelayTiersConfig config;
  private final Duration tier;
  private final String topic;
  private final Time time;
  private final ClientFactory clients;
  private final OutgoingDecider decider;
  private final SendBlame blame;
  private final ForwarderProducer producer;
  private final ForwarderCounters counters = new ForwarderCounters();

  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile Thread runner;
  private volatile Consumer<byte[], byte[]> consumer;

  /** Told how late (ms past its due time, negative if early) each record goes to its target. */
  private volatile LongConsumer lateness = ms -> { };
  /** Records held aside in memory until due, as of the loop's last pass. */
  private volatile int heldCount;

  // Owned by the loop thread; made once the consumer is.
  private ForwarderPartitions partitions;

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
    this.time = time;
    this.clients = clients;
    this.decider = new OutgoingDecider(config, tier);
    this.blame = new SendBlame(topic, config.topics().dlq());
    this.producer = new ForwarderProducer(clients, () -> config.forwarderProducerConfigs(tier), topic);
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
    return counters.stats();
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
      producer.open();
      partitions = new ForwarderPartitions(consumer, blame);
      consumer.subscribe(List.of(topic), partitions);
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
    partitions.resumeDue(time.milliseconds());
    long now = time.milliseconds();
    long timeout = partitions.pollTimeout(now, config.maxPollMs());
    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(timeout));
    now = time.milliseconds();
    if (!records.isEmpty() || partitions.held().nextDue() <= now) {
      forward(records, now);
    }
    heldCount = partitions.held().size();
  }

  /**
   * One transaction: the held records now due, then the new records in offset order as far as each
   * partition's first record that is not released yet; and the progress of every partition that moved.
   */
  private void forward(ConsumerRecords<byte[], byte[]> records, long now) {
    TargetTopics targets = new TargetTopics(producer::partitionsFor);
    List<ForwardSend> sends = new ArrayList<>();
    try {
      forwardHeld(now, targets, sends);
      forwardNew(records, now, targets, sends);
      if (producer.inTransaction()) {
        commit(sends);
      }
    } catch (ProducerFencedException | InvalidProducerEpochException | OutOfOrderSequenceException
        | UnsupportedVersionException | TransactionalIdAuthorizationException | ClusterAuthorizationException
        | TimeoutException e) {
      // The producer is unusable or the transaction's outcome unknown: a new producer with the same
      // transactional id completes or aborts it, and the committed offsets say where to go on.
      log.warn("forwarder of {}: transaction failed ({}); replacing the producer and restoring committed progress",
          topic, e.toString());
      counters.aborted();
      producer.replace();
      partitions.restoreAll();
    } catch (KafkaException e) {
      counters.aborted();
      if (!producer.abort()) {
        producer.replace();
        partitions.restoreAll();
        return;
      }
      boolean blamed = blame.blame(sends);
      partitions.restore(partitions.dirty());
      if (isRebalance(e)) {
        log.info("forwarder of {}: transaction aborted by a rebalance ({}); going on", topic, e.toString());
      } else if (!blamed) {
        log.warn("forwarder of {}: transaction aborted ({}); retrying in {} ms", topic, e.toString(),
            config.errorBackoffMs());
        partitions.backOff(time.milliseconds() + config.errorBackoffMs());
      }
    }
  }

  /** The records held aside that are due at {@code now}: forwarded, or held again if not released yet. */
  private void forwardHeld(long now, TargetTopics targets, List<ForwardSend> sends) {
    for (Map.Entry<TopicPartition, HeldRecords.Aside> e : partitions.held().partitions()) {
      TopicPartition tp = e.getKey();
      HeldRecords.Aside aside = e.getValue();
      PartitionProgress p = partitions.progress(tp);
      for (HeldRecords.Held h : aside.due(now)) {
        Outgoing out = decide(h.record(), now, targets);
        if (out instanceof Outgoing.Later later) {
          aside.hold(h.record(), later.until());
        } else {
          aside.release(h.record().offset());
          send(tp, h.record().offset(), out, sends);
          p.forwarded(h.record().offset());
        }
      }
    }
  }

  /** Each partition's new records in offset order, up to the first that is not released yet. */
  private void forwardNew(ConsumerRecords<byte[], byte[]> records, long now, TargetTopics targets,
      List<ForwardSend> sends) {
    for (TopicPartition tp : records.partitions()) {
      PartitionProgress p = partitions.progressOrFresh(tp);
      HeldRecords.Aside aside = partitions.held().of(tp);
      for (ConsumerRecord<byte[], byte[]> record : records.records(tp)) {
        long offset = record.offset();
        if (p.isForwarded(offset) || aside.contains(offset)) {
          continue;
        }
        Outgoing out = decide(record, now, targets);
        if (out instanceof Outgoing.Later later) {
          if (later.outOfLine() && p.pendingCount() < PartitionProgress.MAX_PENDING) {
            aside.hold(record, later.until());
            p.held(offset);
            continue;
          }
          // Not released yet, or too many held aside (then until one of them has gone): wait at the
          // head, the partition paused.
          long until = later.outOfLine() ? Math.min(later.until(), aside.earliestDue()) : later.until();
          partitions.waitAtHead(tp, offset, until);
          break;
        }
        send(tp, offset, out, sends);
        p.forwarded(offset);
      }
    }
  }

  private void commit(List<ForwardSend> sends) {
    Map<TopicPartition, OffsetAndMetadata> offsets = partitions.offsetsToCommit();
    producer.commit(offsets, consumer.groupMetadata());
    counters.committed();
    partitions.committed(offsets.keySet());
    for (ForwardSend send : sends) {
      counters.sent(send.kind);
    }
    blame.committed(sends);
  }

  /** What to do with {@code record} at {@code now}; counts a record dropped, tells the lateness of one delivered. */
  private Outgoing decide(ConsumerRecord<byte[], byte[]> record, long now, TargetTopics targets) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    Outgoing out = decider.decide(record, blame.failure(tp, record.offset()), targets, now);
    if (out instanceof Outgoing.Skip) {
      counters.dropped();
    } else if (out instanceof Outgoing.Produce produce && produce.kind() == Outgoing.Kind.TARGET) {
      try {
        lateness.accept(produce.lateMs());
      } catch (RuntimeException e) {
        log.warn("the lateness observer of {} failed; forwarding goes on", topic, e); // metrics never stop a record
      }
    }
    return out;
  }

  /** Begins the transaction if none is open (for a skipped record too: its progress is committed) and sends. */
  private void send(TopicPartition tp, long offset, Outgoing out, List<ForwardSend> sends) {
    producer.begin();
    if (out instanceof Outgoing.Produce produce) {
      ForwardSend send = new ForwardSend(tp, offset, produce.kind(), blame.isSuspect(tp, offset));
      sends.add(send);
      producer.send(produce.record(), send);
    }
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

  private void shutdown() {
    producer.close();
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
}
