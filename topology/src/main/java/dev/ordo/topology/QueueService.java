package dev.ordo.topology;

import dev.ordo.api.ClusterTopics;
import dev.ordo.serde.AvroCodec;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.SchemaRegistryClient;
import dev.ordo.serde.WireFormat;
import dev.ordo.topology.internal.EarlyAnswers;
import dev.ordo.topology.internal.OversizedRecordHandler;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Ordo instance's share of the queue: a Kafka Streams application running
 * {@link QueueTopology}. Any number of instances with the same cluster name share the
 * partitions; Kafka's group protocol moves tasks between them.
 */
public final class QueueService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QueueService.class);
  /** Numbers the early answers' producers of this JVM, for distinct client ids (and JMX names). */
  private static final java.util.concurrent.atomic.AtomicInteger EARLY_PRODUCERS =
      new java.util.concurrent.atomic.AtomicInteger();

  private final QueueMetrics metrics = new QueueMetrics();
  private final KafkaStreams streams;
  private final KafkaStreamsMetrics streamsMetrics;
  /** The producer of early answers (decisions D39); null when {@link QueueConfig#REPLY_EARLY_CONFIG} is off. */
  private final Producer<byte[], byte[]> earlyAnswerProducer;

  /**
   * @param streamsOverrides Kafka Streams settings; must hold {@code bootstrap.servers} and
   *     {@code state.dir}; Ordo's defaults (application id from the cluster, exactly_once_v2,
   *     commit interval 20 ms, a stream thread per core but one, up to the partition count, RocksDB's
   *     memory bounded by {@link BoundedRocksDbMemory}, small fetches per partition) apply where not given
   * @param queue the queue settings ({@link QueueConfig})
   * @param partitions partition count of the cluster's co-partitioned topics
   */
  public QueueService(Map<String, Object> streamsOverrides, Map<String, Object> queue, int partitions) {
    this(streamsOverrides, queue, partitions, null);
  }

  /**
   * The same, exporting to {@code registry} (null: no metrics but {@link #metrics()}): per-topic
   * meters ({@link TopicMeters}), the queue's counters and Kafka Streams' own metrics.
   */
  public QueueService(Map<String, Object> streamsOverrides, Map<String, Object> queue, int partitions,
      MeterRegistry registry) {
    QueueConfig config = new QueueConfig(queue);
    registerSchemas(config);
    Map<String, Object> props = streamsProperties(config, streamsOverrides, partitions);
    props.put(OversizedRecordHandler.METRICS_CONFIG, metrics);
    Properties p = new Properties();
    p.putAll(props);
    TopicMeters meters = registry == null ? TopicMeters.NONE : new TopicMeters(registry,
        config.getInt(QueueConfig.METRICS_TOPICS_MAX_CONFIG),
        Duration.ofMillis(config.getLong(QueueConfig.METRICS_TOPICS_IDLE_MS_CONFIG)), metrics, System::currentTimeMillis);
    this.earlyAnswerProducer = config.getBoolean(QueueConfig.REPLY_EARLY_CONFIG)
        ? new KafkaProducer<>(earlyAnswerProducerConfig(props, config.topics().applicationId()),
            new ByteArraySerializer(), new ByteArraySerializer())
        : null;
    if (earlyAnswerProducer != null) {
      try {
        // Asks for the topic's metadata without waiting (max.block.ms 0), so that the first answers can go early.
        earlyAnswerProducer.partitionsFor(config.topics().deliveries());
      } catch (org.apache.kafka.common.KafkaException e) {
        log.debug("The early answers' producer has no metadata yet: {}", e.toString());
      }
    }
    EarlyAnswers early = earlyAnswerProducer == null ? EarlyAnswers.NONE : new EarlyAnswers(earlyAnswerProducer, metrics,
        config.getBoolean(QueueConfig.REPLY_EARLY_ALL_CONFIG));
    try {
      long clockOffset = config.getLong(QueueConfig.CLOCK_OFFSET_CONFIG);
      this.streams = clockOffset == 0 ? new KafkaStreams(QueueTopology.build(config, metrics, meters, partitions, early), p)
          : new KafkaStreams(QueueTopology.build(config, metrics, meters, partitions, early), p,
              new dev.ordo.topology.internal.OffsetTime(clockOffset));
    } catch (RuntimeException e) {
      if (earlyAnswerProducer != null) {
        earlyAnswerProducer.close(Duration.ZERO); // a Kafka Streams setting was refused: nothing will answer
      }
      throw e;
    }
    if (registry != null) {
      this.streamsMetrics = new KafkaStreamsMetrics(streams);
      streamsMetrics.bindTo(registry);
    } else {
      this.streamsMetrics = null;
    }
    this.streams.setUncaughtExceptionHandler(e -> {
      log.error("Queue stream thread failed; replacing it", e);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
    });
  }

  /** Ordo's Kafka Streams defaults for {@code config}, overridden key by key by {@code streamsOverrides}. */
  static Map<String, Object> streamsProperties(QueueConfig config, Map<String, Object> streamsOverrides,
      int partitions) {
    Map<String, Object> props = new HashMap<>(QueueTopology.streamsDefaults(config.topics()));
    // Fail over within seconds rather than the default 45 s when an instance dies.
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6_000);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, defaultStreamThreads(partitions));
    // Records too large for Kafka: logged with their input record, counted, skipped under at-least-once.
    props.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, OversizedRecordHandler.class);
    // One block cache and write buffer manager for every RocksDB store of the process (decisions D33).
    Map<String, Object> rocksDb = QueueTopology.rocksDbDefaults(config);
    props.putAll(rocksDb);
    Object setter = streamsOverrides.get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
    if (setter != null && !rocksDb.isEmpty() && !BoundedRocksDbMemory.class.getName().equals(
        setter instanceof Class<?> c ? c.getName() : String.valueOf(setter).trim())) {
      log.info("{} {} replaces Ordo's bound on RocksDB's memory ({} is ignored)",
          StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, setter, QueueConfig.ROCKSDB_MEMORY_BYTES_CONFIG);
    }
    props.putAll(streamsOverrides);
    // Ordo's default names the main consumer, which Kafka Streams ranks above a consumer-wide or
    // unprefixed setting: a user's setting of either kind replaces it.
    String fetchBytes = ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG;
    if (!streamsOverrides.containsKey(StreamsConfig.mainConsumerPrefix(fetchBytes))
        && (streamsOverrides.containsKey(fetchBytes) || streamsOverrides.containsKey(StreamsConfig.consumerPrefix(fetchBytes)))) {
      props.remove(StreamsConfig.mainConsumerPrefix(fetchBytes));
    }
    // The same for the producers' batch size, and their linger under at-least-once (decisions D66).
    String batchSize = ProducerConfig.BATCH_SIZE_CONFIG;
    if (streamsOverrides.containsKey(batchSize) && !streamsOverrides.containsKey(StreamsConfig.producerPrefix(batchSize))) {
      props.remove(StreamsConfig.producerPrefix(batchSize));
    }
    String linger = ProducerConfig.LINGER_MS_CONFIG;
    if (StreamsConfig.AT_LEAST_ONCE.equals(props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))
        && !streamsOverrides.containsKey(linger) && !streamsOverrides.containsKey(StreamsConfig.producerPrefix(linger))) {
      props.put(StreamsConfig.producerPrefix(linger), QueueTopology.AT_LEAST_ONCE_PRODUCER_LINGER_MS);
    }
    return props;
  }

  /**
   * The settings of the producer of early answers, from the Kafka Streams {@code props}: their
   * producer settings (bootstrap servers, security, anything {@code producer.}-prefixed, which wins as
   * it does for Kafka Streams' producers), then what an early answer needs: no transaction, no linger,
   * one acknowledgement (an answer lost with a broker is a wait that runs out, not lost data), and no
   * blocking of the stream thread that sends ({@code max.block.ms} 0: a record the producer cannot take
   * at once goes with the transaction instead).
   */
  static Map<String, Object> earlyAnswerProducerConfig(Map<String, Object> props, String applicationId) {
    Map<String, Object> producer = new HashMap<>();
    java.util.Set<String> names = ProducerConfig.configNames();
    props.forEach((k, v) -> {
      if (names.contains(k)) {
        producer.put(k, v);
      }
    });
    String prefix = StreamsConfig.PRODUCER_PREFIX;
    props.forEach((k, v) -> {
      if (k.startsWith(prefix) && names.contains(k.substring(prefix.length()))) {
        producer.put(k.substring(prefix.length()), v);
      }
    });
    producer.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    producer.put(ProducerConfig.CLIENT_ID_CONFIG, applicationId + "-early-answers-" + EARLY_PRODUCERS.incrementAndGet());
    producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    producer.put(ProducerConfig.ACKS_CONFIG, "1");
    producer.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    // Each answer goes alone, and a batch takes its whole size from the producer's memory at once:
    // the stream producers' large batches (decisions D66) would hold 16 times Kafka's 16 KiB per answer.
    producer.put(ProducerConfig.BATCH_SIZE_CONFIG, 16_384);
    producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 0);
    producer.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    producer.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    return producer;
  }

  /**
   * With a schema registry ({@link QueueConfig#SCHEMA_REGISTRY_URL_CONFIG}): registers the schema of each
   * record type under its topic's subject, compatibility BACKWARD, before any record is read or written,
   * so producers in other languages find Ordo's item and command schemas there and the stream threads
   * never call the registry to write. A registry that refuses (an incompatible older schema under the
   * subject) or cannot be reached fails the start, naming the subject.
   */
  static void registerSchemas(QueueConfig config) {
    WireFormat wire = config.wireFormat();
    if (!wire.confluent()) {
      return;
    }
    ClusterTopics t = config.topics();
    Map<String, AvroCodec<?>> subjects = new java.util.LinkedHashMap<>();
    subjects.put(t.items(), OrdoSerdes.ITEM);
    subjects.put(t.commands(), OrdoSerdes.COMMAND);
    subjects.put(t.deliveries(), OrdoSerdes.DELIVERY);
    subjects.put(t.dlq(), OrdoSerdes.DEAD_LETTER);
    subjects.put(t.topicStats(), OrdoSerdes.TOPIC_STATS);
    subjects.forEach((topic, codec) -> {
      try {
        int id = wire.register(topic, codec);
        log.info("Schema {} registered as id {} under {} ({})", codec.schema().getFullName(), id,
            WireFormat.subject(topic), WireFormat.COMPATIBILITY);
      } catch (SchemaRegistryClient.RegistryException e) {
        throw new org.apache.kafka.common.config.ConfigException("cannot register " + codec.schema().getFullName()
            + " under " + WireFormat.subject(topic) + " in the schema registry ("
            + QueueConfig.SCHEMA_REGISTRY_URL_CONFIG + "): " + e.getMessage());
      }
    });
  }

  /**
   * A stream thread per core but one, at least one, and no more than the partitions to share among
   * them (decisions D14). A partition's records go through one thread, so one thread is the queue's
   * ceiling on a machine with cores to spare; the core left over is for what else runs beside the
   * stream threads (their producers' network threads, RocksDB's compactions, the garbage collector,
   * the embedded broker when there is one). Measured on 2 cores (ordo bench, full run): a second
   * thread took throughput from about 16,000 to 18,500 items/s exactly-once and 23,700 at-least-once,
   * but at-least-once p99 at half load from about 35 ms to 53 ms.
   *
   * @param partitions the cluster's partition count; 0 when unknown (one thread)
   */
  static int defaultStreamThreads(int partitions) {
    return Math.max(1, Math.min(Runtime.getRuntime().availableProcessors() - 1, partitions));
  }

  public void start() {
    streams.start();
  }

  public KafkaStreams streams() {
    return streams;
  }

  public QueueMetrics metrics() {
    return metrics;
  }

  public boolean isRunning() {
    return streams.state() == KafkaStreams.State.RUNNING;
  }

  @Override
  public void close() {
    streams.close(Duration.ofSeconds(30));
    if (earlyAnswerProducer != null) {
      earlyAnswerProducer.close(Duration.ofSeconds(5));
    }
    if (streamsMetrics != null) {
      streamsMetrics.close();
    }
  }
}
