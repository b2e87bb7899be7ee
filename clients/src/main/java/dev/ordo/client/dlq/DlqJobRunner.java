package dev.ordo.client.dlq;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.client.dlq.internal.DlqLog;
import dev.ordo.client.dlq.internal.DlqState;
import dev.ordo.client.dlq.internal.JobCancels;
import dev.ordo.client.dlq.internal.JobRanges;
import dev.ordo.client.dlq.internal.RedrivePacer;
import dev.ordo.client.dlq.internal.Redrives;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqJobKind;
import dev.ordo.schema.DlqJobStatus;
import dev.ordo.schema.DlqMark;
import dev.ordo.schema.DlqMarkState;
import dev.ordo.schema.DlqRange;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the redrive and purge jobs of a cluster ({@link DeadLetters#redrive}, {@link DeadLetters#purge}),
 * one at a time in the order they were created, so that no dead letter is redriven twice and none
 * is lost, also when a runner dies in the middle of a job (docs/decisions/0027-dlq-jobs-on-compacted-topic.md):
 *
 * <ol>
 *   <li><b>One runner works.</b> Every runner joins the consumer group {@code <cluster>-dlq-jobs} on
 *       {@code <cluster>.dlq.state}, which has one partition: its owner is the one runner at work.
 *       A runner that dies or hangs loses it (session timeout, {@code max.poll.interval.ms}) and
 *       another one takes over.</li>
 *   <li><b>Fencing.</b> The owner's producer has the fixed transactional id {@code <cluster>-dlq-jobs}.
 *       Its {@code initTransactions} fences any earlier owner's producer and aborts the transaction
 *       that one left open, so a hung runner that wakes up can write nothing.</li>
 *   <li><b>State.</b> Then it reads {@code <cluster>.dlq.state} read_committed to its end: every job
 *       with its progress, and every mark (dead letter REDRIVEN or PURGED).</li>
 *   <li><b>Batches.</b> For the first unfinished job it reads the next dead letters of the job's
 *       ranges of {@code <cluster>.dlq}, as many as the job's rate allows now (at most 500), and
 *       decides for each ({@link Redrives}): not selected, already marked (skipped), or sent back.
 *       In one transaction it writes the new items (to {@code <cluster>.items}, with the headers
 *       {@value DeadLetters#REDRIVEN_FROM_HEADER} and {@value DeadLetters#REDRIVE_JOB_HEADER}),
 *       a mark per dead letter naming the new item's ID (known once the items are flushed, before
 *       the commit), and the job's record with its ranges advanced past the batch.</li>
 *   <li><b>Commit.</b> Items, marks and progress become visible together or not at all: the queue
 *       reads {@code <cluster>.items} read_committed (it runs exactly-once), so the items of an
 *       aborted batch never reach it, and the next owner starts from the last committed progress.
 *       Marks are checked too, so a dead letter selected by two jobs goes back once.</li>
 *   <li><b>Cancel.</b> Before each batch it looks for unfinished jobs with a cancel request
 *       ({@link DeadLetters#cancel}, key {@code c/<job id>}, read with the rest of the state) and
 *       writes such a job CANCELLED in a transaction of its own ({@link JobCancels}). The batches
 *       committed before stay; no other batch of the job is started. The request is durable, so a
 *       runner that takes over a job whose owner died stops it rather than resuming it.</li>
 * </ol>
 *
 * <p>The rate is a token bucket ({@link RedrivePacer}); the runner waits for tokens in its poll,
 * never by sleeping. Every {@code ordo server} runs one runner.
 */
public final class DlqJobRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DlqJobRunner.class);
  static final int BATCH_MAX = 500;
  static final int SCAN_MAX = 5_000;
  private static final long IDLE_POLL_MS = 200;
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

  /** A fault-injection point for tests: called in each batch's transaction, just before its commit. */
  @FunctionalInterface
  public interface BatchHook {
    void beforeCommit(String jobId, int sent) throws InterruptedException;
  }

  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private final ClusterTopics topics;
  private final Map<String, Object> consumerConfig;
  private final Map<String, Object> producerConfig;
  private final BatchHook hook;
  private final Time time;
  private final Thread thread;
  private final TopicPartition statePartition;
  private final DlqState state = new DlqState();
  private final Map<String, RedrivePacer> pacers = new HashMap<>();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong fenced = new AtomicLong();
  private volatile boolean closing;
  private volatile boolean owner;
  private boolean loaded;
  private KafkaConsumer<byte[], byte[]> consumer;
  private KafkaProducer<byte[], byte[]> producer;
  private DlqLog log;
  /** How the queue writes dead letters: {@code ordo.schema.registry.url} in the config. */
  private final dev.ordo.serde.WireFormat wire;
  private int itemPartitions;

  public DlqJobRunner(Map<String, ?> config, String cluster) {
    this(config, cluster, (job, sent) -> { });
  }

  /**
   * @param config Kafka client settings, {@code consumer.}/{@code producer.} prefixed per client
   * @param hook called before each commit (tests inject faults there)
   */
  public DlqJobRunner(Map<String, ?> config, String cluster, BatchHook hook) {
    this(config, cluster, hook, Time.SYSTEM);
  }

  /** {@code time}: the clock of the runner's waits and job times (a mock one in tests). */
  public DlqJobRunner(Map<String, ?> config, String cluster, BatchHook hook, Time time) {
    this.topics = new ClusterTopics(cluster);
    this.wire = dev.ordo.client.internal.Wire.of(config);
    this.consumerConfig = KafkaProps.of(config, KafkaProps.CONSUMER_PREFIX, Set.of());
    this.producerConfig = KafkaProps.of(config, KafkaProps.PRODUCER_PREFIX, Set.of());
    this.hook = hook;
    this.time = java.util.Objects.requireNonNull(time, "time");
    this.statePartition = new TopicPartition(topics.dlqState(), 0);
    this.thread = new Thread(this::run, "ordo-dlq-jobs-" + cluster);
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** Whether this runner is the one at work (it owns the state partition and has loaded it). */
  public boolean isWorking() {
    return owner && loaded;
  }

  /** Batches this runner committed. */
  public long batchesCommitted() {
    return committed.get();
  }

  /** Times this runner found itself fenced by another. */
  public long timesFenced() {
    return fenced.get();
  }

  private void run() {
    Map<String, Object> c = new HashMap<>(consumerConfig);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, topics.cluster() + "-dlq-jobs");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Map<String, Object> reader = new HashMap<>(consumerConfig);
    try {
      consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      log = new DlqLog(reader, topics.dlq());
      consumer.subscribe(List.of(topics.dlqState()), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          if (partitions.contains(statePartition)) {
            stopWork("its partition was revoked");
          }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
          if (partitions.contains(statePartition)) {
            stopWork("it left the group");
          }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          if (partitions.contains(statePartition)) {
            owner = true;
            loaded = false;
          }
        }
      });
      long pollMs = IDLE_POLL_MS;
      while (!closing) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(pollMs))) {
          state.apply(r.key(), r.value());
        }
        pollMs = IDLE_POLL_MS;
        if (owner && !loaded) {
          try {
            load();
          } catch (KafkaException e) {
            LOG.warn("Dead-letter job runner of {} could not take over; trying again: {}", topics.cluster(), e.toString());
            dropProducer();
            pollMs = 1000;
            continue;
          }
        }
        if (owner && loaded) {
          pollMs = Math.max(0, Math.min(IDLE_POLL_MS, work()));
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (!closing) {
        LOG.error("The dead-letter job runner of {} stopped", topics.cluster(), e);
      }
    } finally {
      dropProducer();
      if (log != null) {
        log.close();
      }
      if (consumer != null) {
        consumer.close(Duration.ofSeconds(5));
      }
    }
  }

  private void stopWork(String why) {
    if (owner) {
      LOG.info("Dead-letter job runner of {} stops working: {}", topics.cluster(), why);
    }
    owner = false;
    loaded = false;
    dropProducer();
  }

  /** Steps 2 and 3: fence earlier owners, then read the state to its end. */
  private void load() {
    dropProducer();
    Map<String, Object> p = new HashMap<>(producerConfig);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topics.cluster() + "-dlq-jobs");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    producer.initTransactions();
    itemPartitions = producer.partitionsFor(topics.items()).size();
    long end = consumer.endOffsets(List.of(statePartition)).get(statePartition);
    consumer.seekToBeginning(List.of(statePartition));
    state.clear();
    pacers.clear();
    long deadline = time.milliseconds() + 60_000;
    while (consumer.position(statePartition) < end) {
      if (time.milliseconds() > deadline) {
        throw new KafkaException("could not read " + topics.dlqState() + " to its end within 60 s");
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        state.apply(r.key(), r.value());
      }
      if (!owner) {
        return; // revoked meanwhile
      }
    }
    loaded = true;
    LOG.info("Dead-letter job runner of {} at work ({} jobs known)", topics.cluster(), state.jobs().size());
  }

  /** Step 4 and 5 for one batch of the first unfinished job; returns how long to wait before the next. */
  private long work() throws InterruptedException {
    long cancelAt = time.milliseconds();
    Optional<DlqJob> stop = state.jobs().stream()
        .map(j -> JobCancels.stop(j, state.cancel(j.getId()), cancelAt))
        .flatMap(Optional::stream)
        .min(Comparator.comparingLong(DlqJob::getCreatedAt).thenComparing(DlqJob::getId));
    if (stop.isPresent()) {
      // A cancelled job stops before its next batch, whether it is the one running or one waiting.
      Long retry = inTransaction(stop.get().getId(), () -> writeCancelled(stop.get()));
      return retry == null ? 0 : retry;
    }
    Optional<DlqJob> next = state.jobs().stream()
        .filter(j -> j.getStatus() == DlqJobStatus.PENDING || j.getStatus() == DlqJobStatus.RUNNING)
        .min(Comparator.comparingLong(DlqJob::getCreatedAt).thenComparing(DlqJob::getId));
    if (next.isEmpty()) {
      return IDLE_POLL_MS;
    }
    DlqJob job = next.get();
    long now = time.milliseconds();
    RedrivePacer pacer = pacers.computeIfAbsent(job.getId(),
        id -> new RedrivePacer(job.getKind() == DlqJobKind.PURGE ? null : job.getRatePerSecond(), now));
    int allowed = pacer.available(now, BATCH_MAX);
    if (allowed == 0) {
      return pacer.waitMs(now);
    }
    Batch batch;
    try {
      batch = collect(job, allowed, now);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      LOG.warn("Job {}: could not read {} ({}); trying again", job.getId(), topics.dlq(), e.getMessage());
      return 1000;
    }
    Long retry = inTransaction(job.getId(), () -> commit(job, batch, now));
    if (retry != null) {
      return retry;
    }
    pacer.take(now, batch.sends.size());
    return 0;
  }

  /** One transaction of the runner's producer, begun and committed by {@code body}. */
  @FunctionalInterface
  private interface Transaction {
    void run() throws InterruptedException;
  }

  /**
   * Runs a transaction of job {@code jobId}; returns null when it committed, else how long to wait
   * before trying again (it was aborted, or this runner was fenced and stops working).
   */
  private Long inTransaction(String jobId, Transaction body) throws InterruptedException {
    try {
      body.run();
      return null;
    } catch (ProducerFencedException | InvalidProducerEpochException e) {
      fenced.incrementAndGet();
      LOG.warn("Dead-letter job runner of {} was fenced by another; its transaction for job {} is aborted",
          topics.cluster(), jobId);
      stopWork("fenced");
      return IDLE_POLL_MS;
    } catch (KafkaException e) {
      LOG.warn("Job {}: the transaction failed and is aborted; trying again: {}", jobId, e.toString());
      try {
        producer.abortTransaction();
      } catch (KafkaException abortFailed) {
        loaded = false; // a new producer, fenced in again
      }
      return 1000L;
    }
  }

  /** Writes a job CANCELLED ({@link JobCancels#stop}), in a transaction of its own: it sends nothing more. */
  private void writeCancelled(DlqJob cancelled) {
    producer.beginTransaction();
    producer.send(new ProducerRecord<>(topics.dlqState(), 0, DlqState.jobKey(cancelled.getId()),
        OrdoSerdes.DLQ_JOB.encode(cancelled)));
    producer.commitTransaction();
    committed.incrementAndGet();
    state.put(cancelled);
    pacers.remove(cancelled.getId());
    LOG.info("Job {} cancelled: {} handled, {} skipped, {} dead letters read; the rest are left as they are",
        cancelled.getId(), cancelled.getHandled(), cancelled.getSkipped(), cancelled.getScanned());
  }

  /** What one batch does: the records to send, the dead letters to purge, the job's progress after it. */
  private static final class Batch {
    final List<DeadLetterId> sentFrom = new ArrayList<>();
    final List<ProducerRecord<byte[], byte[]>> sends = new ArrayList<>();
    final List<DeadLetterId> purged = new ArrayList<>();
    final List<DlqRange> ranges = new ArrayList<>();
    long scanned;
    long skipped;

    int handled() {
      return sends.size() + purged.size();
    }
  }

  private Batch collect(DlqJob job, int allowed, long now) {
    Batch b = new Batch();
    boolean full = false;
    for (DlqRange range : job.getRanges()) {
      if (full || range.getNext() >= range.getEnd()) {
        b.ranges.add(range);
        continue;
      }
      long upTo = log.read(range.getPartition(), range.getNext(), range.getEnd(), r -> {
        DeadLetterId id = new DeadLetterId(r.partition(), r.offset());
        b.scanned++;
        Redrives.Step step = Redrives.decide(job, id, decode(r.value()), r.headers(), state.mark(id.toString()),
            topics, itemPartitions, now);
        if (step instanceof Redrives.Skip) {
          b.skipped++;
        } else if (step instanceof Redrives.Send send) {
          b.sentFrom.add(id);
          b.sends.add(send.record());
        } else if (step instanceof Redrives.Purge) {
          b.purged.add(id);
        }
        return b.handled() < allowed && b.scanned < SCAN_MAX;
      }, READ_TIMEOUT);
      b.ranges.add(new DlqRange(range.getPartition(), upTo, range.getEnd()));
      full = b.handled() >= allowed || b.scanned >= SCAN_MAX;
    }
    return b;
  }

  private void commit(DlqJob job, Batch b, long now) throws InterruptedException {
    producer.beginTransaction();
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : b.sends) {
      sent.add(producer.send(r));
    }
    producer.flush();
    List<DlqMark> marks = new ArrayList<>();
    for (int i = 0; i < sent.size(); i++) {
      RecordMetadata md;
      try {
        md = sent.get(i).get();
      } catch (ExecutionException e) {
        throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
      }
      String to = md.topic().equals(topics.items()) ? new ItemId(md.partition(), md.offset()).toString()
          : md.topic() + "-" + md.partition() + "@" + md.offset();
      marks.add(new DlqMark(b.sentFrom.get(i).toString(), DlqMarkState.REDRIVEN, job.getId(), now, to));
    }
    for (DeadLetterId id : b.purged) {
      marks.add(new DlqMark(id.toString(), DlqMarkState.PURGED, job.getId(), now, null));
    }
    for (DlqMark m : marks) {
      producer.send(new ProducerRecord<>(topics.dlqState(), 0, DlqState.markKey(m.getDeadLetterId()),
          OrdoSerdes.DLQ_MARK.encode(m)));
    }
    boolean done = JobRanges.remaining(b.ranges) == 0;
    DlqJob progressed = DlqJob.newBuilder(job)
        .setRanges(b.ranges)
        .setStatus(done ? DlqJobStatus.DONE : DlqJobStatus.RUNNING)
        .setUpdatedAt(now)
        .setFinishedAt(done ? now : null)
        .setScanned(job.getScanned() + b.scanned)
        .setHandled(job.getHandled() + b.handled())
        .setSkipped(job.getSkipped() + b.skipped)
        .setUpdates(job.getUpdates() + 1)
        .build();
    producer.send(new ProducerRecord<>(topics.dlqState(), 0, DlqState.jobKey(job.getId()),
        OrdoSerdes.DLQ_JOB.encode(progressed)));
    hook.beforeCommit(job.getId(), b.sends.size());
    producer.commitTransaction();
    committed.incrementAndGet();
    state.put(progressed);
    marks.forEach(state::put);
    if (done) {
      pacers.remove(job.getId());
      LOG.info("Job {} done: {} handled, {} skipped, {} dead letters read", job.getId(), progressed.getHandled(),
          progressed.getSkipped(), progressed.getScanned());
    }
  }

  private DeadLetter decode(byte[] value) {
    try {
      return wire.decode(OrdoSerdes.DEAD_LETTER, value);
    } catch (OrdoSerdeException e) {
      return null;
    }
  }

  private void dropProducer() {
    if (producer != null) {
      try {
        producer.close(Duration.ZERO);
      } catch (RuntimeException e) {
        LOG.debug("closing the job runner's producer", e);
      }
      producer = null;
    }
  }

  /** Stops between batches (a batch under way is committed or aborted first) and leaves the group. */
  @Override
  public void close() {
    closing = true;
    if (consumer != null) {
      consumer.wakeup();
    }
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
