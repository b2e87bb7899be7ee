package dev.ordo.client.dlq;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.dlq.internal.Conversions;
import dev.ordo.client.dlq.internal.DlqCursor;
import dev.ordo.client.dlq.internal.DlqLog;
import dev.ordo.client.dlq.internal.DlqState;
import dev.ordo.client.dlq.internal.JobCancels;
import dev.ordo.client.dlq.internal.JobRanges;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqJobKind;
import dev.ordo.schema.DlqJobStatus;
import dev.ordo.schema.DlqMark;
import dev.ordo.schema.DlqRange;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The dead letters of one Ordo cluster, for operators: list them, show one, start redrive and purge
 * jobs, read their progress and cancel them (docs/operations.md, "Dead letters"). Kafka only, like the
 * other clients: dead letters are the records of {@code <cluster>.dlq}, named by their position
 * ({@link DeadLetterId}); what became of each (redriven, purged) and the jobs are on the compacted
 * {@code <cluster>.dlq.state}. The jobs themselves are run by a {@link DlqJobRunner} (every
 * {@code ordo server} runs one; one of them works at a time). Thread-safe.
 *
 * <p>Settings: Kafka client settings ({@code bootstrap.servers}, security...), a key prefixed with
 * {@code consumer.} or {@code producer.} for that client only.
 */
public final class DeadLetters implements AutoCloseable {
  /** Header of a redriven item's (or record's) Kafka record: the dead letter it came from. */
  public static final String REDRIVEN_FROM_HEADER = "ordo.redriven.from";
  /** Header of a redriven item's (or record's) Kafka record: the redrive job that sent it. */
  public static final String REDRIVE_JOB_HEADER = "ordo.redrive.job";
  /** Most dead letters one page holds. */
  public static final int MAX_LIMIT = 1000;
  /** Most dead letters one page reads: a selective filter answers a short page and a cursor instead of reading on. */
  public static final int SCAN_BUDGET = 10_000;

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final SecureRandom RANDOM = new SecureRandom();

  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private final ClusterTopics topics;
  private final Map<String, Object> consumerConfig;
  private final KafkaProducer<byte[], byte[]> producer;
  /** Reads {@code <cluster>.dlq.state}; guarded by {@code this}, as {@link #state}. */
  private final KafkaConsumer<byte[], byte[]> stateReader;
  private final TopicPartition statePartition;
  private final DlqState state = new DlqState();
  /** How the queue writes dead letters: {@code ordo.schema.registry.url} in the config. */
  private final dev.ordo.serde.WireFormat wire;

  /**
   * @param config Kafka client settings ({@code bootstrap.servers}...), {@code consumer.}/{@code producer.} prefixed per client
   * @param cluster the Ordo cluster ({@code --cluster})
   */
  public DeadLetters(Map<String, ?> config, String cluster) {
    this.topics = new ClusterTopics(cluster);
    this.wire = dev.ordo.client.internal.Wire.of(config);
    this.consumerConfig = KafkaProps.of(config, KafkaProps.CONSUMER_PREFIX, Set.of());
    Map<String, Object> p = KafkaProps.of(config, KafkaProps.PRODUCER_PREFIX, Set.of());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    this.stateReader = new KafkaConsumer<>(KafkaProps.positionReader(consumerConfig), new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    this.statePartition = new TopicPartition(topics.dlqState(), 0);
    stateReader.assign(List.of(statePartition));
    stateReader.seekToBeginning(List.of(statePartition));
  }

  public ClusterTopics topics() {
    return topics;
  }

  /**
   * One page of dead letters, in {@code <cluster>.dlq} order (partition, then offset).
   *
   * @param filter which dead letters ({@link DeadLetterFilter#ANY} for all)
   * @param statuses which of them: {@code DEAD} lists those still dead (redriven and purged ones
   *     are left out); empty means any
   * @param limit at most this many, 1 to {@value #MAX_LIMIT}
   * @param cursor the last page's {@link DeadLetterPage#nextCursor()}, or null for the first page
   */
  public DeadLetterPage list(DeadLetterFilter filter, Set<DeadLetterStatus> statuses, int limit, String cursor) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", got " + limit);
    }
    DlqCursor start = cursor == null ? new DlqCursor(0, 0) : DlqCursor.decode(cursor);
    syncState();
    List<DeadLetterInfo> found = new ArrayList<>();
    long[] scanned = {0};
    try (DlqLog log = new DlqLog(consumerConfig, topics.dlq())) {
      TreeMap<Integer, Long> ends = new TreeMap<>(log.ends());
      if (start.partition() >= Math.max(1, ends.size())) {
        throw new IllegalArgumentException("cursor names partition " + start.partition() + " but " + topics.dlq()
            + " has " + ends.size());
      }
      Map<Integer, Long> begins = log.begins();
      Map<Integer, Long> fromOffsets = filter.from() == null ? null : log.offsetsAt(filter.from().toEpochMilli());
      for (Map.Entry<Integer, Long> e : ends.tailMap(start.partition()).entrySet()) {
        int p = e.getKey();
        long end = e.getValue();
        long pos = Math.max(begins.getOrDefault(p, 0L), p == start.partition() ? start.offset() : 0);
        if (fromOffsets != null) {
          pos = Math.max(pos, fromOffsets.getOrDefault(p, end));
        }
        boolean[] full = {false};
        long next = log.read(p, pos, end, r -> {
          scanned[0]++;
          DeadLetter letter = decode(r.value());
          if (Conversions.matches(filter, letter)) {
            DeadLetterInfo info = info(r, letter);
            if (statuses.isEmpty() || statuses.contains(info.status())) {
              found.add(info);
            }
          }
          full[0] = found.size() >= limit || scanned[0] >= SCAN_BUDGET;
          return !full[0];
        }, TIMEOUT);
        if (full[0]) {
          String nextCursor = next < end ? new DlqCursor(p, next).encode()
              : ends.higherKey(p) != null ? new DlqCursor(ends.higherKey(p), 0).encode() : null;
          return new DeadLetterPage(found, nextCursor, scanned[0]);
        }
      }
    }
    return new DeadLetterPage(found, null, scanned[0]);
  }

  /** The dead letter at {@code id}, with what became of it; empty when there is no such record. */
  public Optional<DeadLetterInfo> get(DeadLetterId id) {
    syncState();
    try (DlqLog log = new DlqLog(consumerConfig, topics.dlq())) {
      if (id.partition() >= log.partitionCount()) {
        return Optional.empty();
      }
      return log.at(id.partition(), id.offset(), TIMEOUT).map(r -> info(r, decode(r.value())));
    }
  }

  /**
   * Starts a redrive job: its definition goes to {@code <cluster>.dlq.state}, and a
   * {@link DlqJobRunner} of the cluster runs it. Returns at once with the job (PENDING).
   *
   * @throws UnknownDeadLetterException when an ID names no record of {@code <cluster>.dlq}
   */
  public DlqJobView redrive(RedriveRequest request) {
    DlqJob.Builder job = newJob("r-", DlqJobKind.REDRIVE, request.selection())
        .setTargetNamespace(request.namespace())
        .setTargetTopic(request.topic())
        .setPriority(request.priority())
        .setRatePerSecond(request.ratePerSecond())
        .setDelayMs(request.delay() == null ? null : request.delay().toMillis());
    return write(job.build());
  }

  /**
   * Starts a purge job: each selected dead letter is marked PURGED, so it is not listed as dead any
   * more and no redrive sends it back. The records stay on {@code <cluster>.dlq} until its retention.
   */
  public DlqJobView purge(DeadLetterSelection selection) {
    return write(newJob("p-", DlqJobKind.PURGE, selection).build());
  }

  /** A job and its progress; empty when there is no such job. */
  public Optional<DlqJobView> job(String id) {
    syncState();
    synchronized (this) {
      return state.job(id).map(j -> Conversions.view(j, state.cancel(id)));
    }
  }

  /**
   * Cancels a PENDING or RUNNING job: a cancel request goes to {@code <cluster>.dlq.state}, and the
   * {@link DlqJobRunner} at work stops the job before its next batch (or, after a failover, the one
   * that takes over, instead of resuming it). Returns at once with the job, CANCELLING until the
   * runner wrote it CANCELLED. Dead letters the job handled before stay handled (redriven ones stay
   * in the queue); the others stay dead. Cancelling a job again before it stopped writes nothing more.
   * A job that finishes meanwhile stays DONE.
   *
   * @throws UnknownDlqJobException when no job has this ID
   * @throws DlqJobFinishedException when the job is DONE, FAILED or CANCELLED
   */
  public DlqJobView cancel(String jobId) {
    syncState();
    JobCancels.Decision decision;
    DlqJob job;
    synchronized (this) {
      job = state.job(jobId).orElseThrow(() -> new UnknownDlqJobException(jobId));
      decision = JobCancels.request(job, state.cancel(jobId), System.currentTimeMillis());
    }
    if (decision instanceof JobCancels.Finished) {
      throw new DlqJobFinishedException(Conversions.view(job));
    }
    if (decision instanceof JobCancels.Write w) {
      send(DlqState.cancelKey(jobId), OrdoSerdes.DLQ_CANCEL.encode(w.request()), "the cancel of job " + jobId);
      synchronized (this) {
        state.put(w.request());
      }
    }
    return job(jobId).orElseThrow(() -> new UnknownDlqJobException(jobId));
  }

  private DlqJob.Builder newJob(String prefix, DlqJobKind kind, DeadLetterSelection selection) {
    long now = System.currentTimeMillis();
    List<DlqRange> ranges;
    try (DlqLog log = new DlqLog(consumerConfig, topics.dlq())) {
      Map<Integer, Long> begins = log.begins();
      Map<Integer, Long> ends = log.ends();
      if (!selection.ids().isEmpty()) {
        ranges = JobRanges.forIds(selection.ids(), begins, ends);
      } else {
        DeadLetterFilter f = selection.filter();
        ranges = JobRanges.forFilter(begins, ends, f.from() == null ? null : log.offsetsAt(f.from().toEpochMilli()));
      }
    }
    return DlqJob.newBuilder()
        .setId(prefix + HexFormat.of().formatHex(randomBytes()))
        .setKind(kind)
        .setStatus(DlqJobStatus.PENDING)
        .setCreatedAt(now)
        .setUpdatedAt(now)
        .setIds(selection.ids().stream().map(DeadLetterId::toString).toList())
        .setFilter(selection.ids().isEmpty() ? Conversions.toRecord(selection.filter()) : null)
        .setRanges(ranges);
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[6];
    RANDOM.nextBytes(b);
    return b;
  }

  private DlqJobView write(DlqJob job) {
    send(DlqState.jobKey(job.getId()), OrdoSerdes.DLQ_JOB.encode(job), "job " + job.getId());
    synchronized (this) {
      state.put(job);
    }
    return Conversions.view(job);
  }

  private void send(byte[] key, byte[] value, String what) {
    try {
      producer.send(new ProducerRecord<>(topics.dlqState(), 0, key, value)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted while writing " + what, e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new KafkaException("could not write " + what + " to " + topics.dlqState() + ": "
          + (e.getCause() != null ? e.getCause() : e), e);
    }
  }

  /** Reads {@code <cluster>.dlq.state} up to its end now, so an answer includes every job and mark written before. */
  private synchronized void syncState() {
    long end = stateReader.endOffsets(List.of(statePartition), TIMEOUT).get(statePartition);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (stateReader.position(statePartition, TIMEOUT) < end) {
      if (System.nanoTime() > deadline) {
        throw new org.apache.kafka.common.errors.TimeoutException("could not read " + topics.dlqState()
            + " to its end within " + TIMEOUT);
      }
      for (ConsumerRecord<byte[], byte[]> r : stateReader.poll(Duration.ofMillis(100))) {
        state.apply(r.key(), r.value());
      }
    }
  }

  private DeadLetterInfo info(ConsumerRecord<byte[], byte[]> r, DeadLetter letter) {
    DeadLetterId id = new DeadLetterId(r.partition(), r.offset());
    Optional<DlqMark> mark;
    synchronized (this) {
      mark = state.mark(id.toString());
    }
    return Conversions.info(id, letter, r.value(), r.timestamp(), mark);
  }

  private DeadLetter decode(byte[] value) {
    try {
      return wire.decode(OrdoSerdes.DEAD_LETTER, value);
    } catch (OrdoSerdeException e) {
      return null;
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
    synchronized (this) {
      stateReader.close(Duration.ofSeconds(5));
    }
  }
}
