package dev.ordo.client.purge;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Names;
import dev.ordo.client.internal.KafkaProps;
import dev.ordo.schema.Command;
import dev.ordo.schema.Purge;
import dev.ordo.schema.PurgeProgress;
import dev.ordo.schema.PurgeStatus;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Purges of a topic's items (docs/operations.md, "In an incident"; decisions D56): every item, or
 * those enqueued before a time, leased ones only when asked. A job runs in the queue itself, each
 * partition deleting its own items at {@code ordo.purge.rate.per.second} and keeping its progress with
 * them, so it goes on through restarts and failovers and counts each item once.
 *
 * <p>{@link #start}:
 * <ol>
 *   <li>finds, for each partition of {@code <cluster>.items}, one past its last record (a job covers
 *       the items there when it is created; later ones are not its business);</li>
 *   <li>writes the job's PENDING progress for every partition to {@code <cluster>.purges}, so that it can
 *       be followed at once;</li>
 *   <li>sends a {@code Purge} command to every partition of {@code <cluster>.commands}.</li>
 * </ol>
 * Thread-safe.
 */
public final class TopicPurges implements AutoCloseable {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // records are built before any is encoded
  }

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ClusterTopics topics;
  private final Map<String, Object> kafkaConfig;
  private final KafkaProducer<byte[], byte[]> producer;

  /**
   * @param kafkaConfig {@code bootstrap.servers} and any Kafka client settings (security, SASL, SSL)
   * @param cluster the Ordo cluster name ({@code --cluster})
   */
  public TopicPurges(Map<String, Object> kafkaConfig, String cluster) {
    this.topics = new ClusterTopics(cluster);
    this.kafkaConfig = Map.copyOf(kafkaConfig);
    this.producer = new KafkaProducer<>(KafkaProps.durableWriter(kafkaConfig), new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  /**
   * Starts purging the topic's items: those enqueued before {@code enqueuedBefore} (null: every
   * item), leaving leased ones alone unless {@code includeLeased}. Returns the job as written (PENDING).
   */
  public PurgeJobView start(String namespace, String topic, Instant enqueuedBefore, boolean includeLeased) {
    Names.check("namespace", namespace);
    Names.check("topic", topic);
    String id = "t-" + HexFormat.of().formatHex(RANDOM.generateSeed(6));
    long now = System.currentTimeMillis();
    Map<Integer, Long> ends = itemEnds();
    int partitions = ends.size();
    Long before = enqueuedBefore == null ? null : enqueuedBefore.toEpochMilli();
    List<Future<?>> sent = new ArrayList<>();
    List<PurgeProgress> pending = new ArrayList<>();
    for (Map.Entry<Integer, Long> e : ends.entrySet()) {
      PurgeProgress p = PurgeProgress.newBuilder().setJobId(id).setNamespace(namespace).setTopic(topic)
          .setPartition(e.getKey()).setPartitions(partitions).setEnqueuedBefore(before).setIncludeLeased(includeLeased)
          .setStatus(PurgeStatus.PENDING).setNext(0).setEndOffset(e.getValue()).setCreatedAt(now).setUpdatedAt(now)
          .build();
      pending.add(p);
      sent.add(producer.send(new ProducerRecord<>(topics.purges(), 0, key(id, e.getKey()),
          OrdoSerdes.PURGE_PROGRESS.encode(p))));
    }
    await(sent, "the purge job " + id + " to " + topics.purges());
    sent.clear();
    for (Map.Entry<Integer, Long> e : ends.entrySet()) {
      Purge purge = new Purge(id, namespace, topic, before, includeLeased, e.getValue(), partitions, now);
      sent.add(producer.send(new ProducerRecord<>(topics.commands(), e.getKey(), id.getBytes(StandardCharsets.UTF_8),
          OrdoSerdes.COMMAND.encode(new Command(null, now, purge, false, null)))));
    }
    await(sent, "the purge commands of job " + id + " to " + topics.commands());
    return view(pending);
  }

  /** The job {@code id} as its partitions last reported it, if there is one. */
  public Optional<PurgeJobView> job(String id) {
    List<PurgeProgress> parts = read().get(id);
    return parts == null ? Optional.empty() : Optional.of(view(parts));
  }

  /** The purge jobs of a topic, newest first. */
  public List<PurgeJobView> jobs(String namespace, String topic) {
    List<PurgeJobView> out = new ArrayList<>();
    for (List<PurgeProgress> parts : read().values()) {
      PurgeProgress any = parts.get(0);
      if (any.getNamespace().equals(namespace) && any.getTopic().equals(topic)) {
        out.add(view(parts));
      }
    }
    out.sort(Comparator.comparing(PurgeJobView::createdAt).reversed());
    return out;
  }

  /** A job summed over its partitions' latest progress. */
  static PurgeJobView view(List<PurgeProgress> parts) {
    PurgeProgress first = parts.get(0);
    Map<String, Long> purged = new TreeMap<>();
    long leasedLeft = 0;
    long scanned = 0;
    int done = 0;
    boolean started = false;
    Long startedAt = null;
    long finishedAt = 0;
    for (PurgeProgress p : parts) {
      p.getPurged().forEach((state, n) -> purged.merge(state, n, Long::sum));
      leasedLeft += p.getLeasedLeft();
      scanned += p.getScanned();
      if (p.getStatus() == PurgeStatus.DONE) {
        done++;
        finishedAt = Math.max(finishedAt, p.getFinishedAt() == null ? p.getUpdatedAt() : p.getFinishedAt());
      }
      if (p.getStatus() != PurgeStatus.PENDING) {
        started = true;
        if (p.getStartedAt() != null) {
          startedAt = startedAt == null ? p.getStartedAt() : Math.min(startedAt, p.getStartedAt());
        }
      }
    }
    int partitions = first.getPartitions();
    PurgeJobView.Status status = done >= partitions ? PurgeJobView.Status.DONE
        : started ? PurgeJobView.Status.RUNNING : PurgeJobView.Status.PENDING;
    return new PurgeJobView(first.getJobId(), first.getNamespace(), first.getTopic(),
        first.getEnqueuedBefore() == null ? null : Instant.ofEpochMilli(first.getEnqueuedBefore()),
        first.getIncludeLeased(), status, purged, leasedLeft, scanned, partitions, done,
        Instant.ofEpochMilli(first.getCreatedAt()), startedAt == null ? null : Instant.ofEpochMilli(startedAt),
        status == PurgeJobView.Status.DONE ? Instant.ofEpochMilli(finishedAt) : null);
  }

  /** Every job's latest progress per partition, by job, as the topic holds them now (read to its end). */
  private Map<String, List<PurgeProgress>> read() {
    Map<String, Map<Integer, PurgeProgress>> byJob = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      TopicPartition tp = new TopicPartition(topics.purges(), 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp), TIMEOUT).get(tp);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (consumer.position(tp, TIMEOUT) < end) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topics.purges() + " to its end within " + TIMEOUT);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          if (r.value() == null) {
            continue;
          }
          try {
            PurgeProgress p = OrdoSerdes.PURGE_PROGRESS.decode(r.value());
            byJob.computeIfAbsent(p.getJobId(), j -> new TreeMap<>()).put(p.getPartition(), p);
          } catch (OrdoSerdeException e) {
            // not a record of ours: skipped
          }
        }
      }
    }
    Map<String, List<PurgeProgress>> out = new HashMap<>();
    byJob.forEach((job, parts) -> out.put(job, new ArrayList<>(parts.values())));
    return out;
  }

  /**
   * For each partition of {@code <cluster>.items}, one past its last record a read_committed reader
   * sees: its end offset, less transaction markers and aborted records at its end, which the queue
   * never takes in (its intake must reach a job's end for the job to be done).
   */
  private Map<Integer, Long> itemEnds() {
    Map<Integer, Long> out = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      List<TopicPartition> parts = consumer.partitionsFor(topics.items(), TIMEOUT).stream()
          .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts, TIMEOUT);
      for (TopicPartition tp : parts) {
        out.put(tp.partition(), lastRecordEnd(consumer, tp, ends.get(tp)));
      }
    }
    return out;
  }

  private static long lastRecordEnd(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long end) {
    long window = 64;
    while (true) {
      long from = Math.max(0, end - window);
      consumer.assign(List.of(tp));
      consumer.seek(tp, from);
      long last = -1;
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (consumer.position(tp, TIMEOUT) < end) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + tp + " to its end within " + TIMEOUT);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          last = Math.max(last, r.offset());
        }
      }
      if (last >= 0 || from == 0) {
        return last + 1;
      }
      window *= 8;
    }
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    return new KafkaConsumer<>(KafkaProps.positionReader(kafkaConfig), new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
  }

  private static byte[] key(String id, int partition) {
    return (id + "/" + partition).getBytes(StandardCharsets.UTF_8);
  }

  private static void await(List<Future<?>> sent, String what) {
    try {
      for (Future<?> f : sent) {
        f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing " + what, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not write " + what + ": " + (e.getCause() != null ? e.getCause() : e), e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
