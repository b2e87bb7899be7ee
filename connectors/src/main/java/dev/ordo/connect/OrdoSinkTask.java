package dev.ordo.connect;

import dev.ordo.client.QueueProducer;
import dev.ordo.connect.internal.Mapped;
import dev.ordo.connect.internal.PendingSends;
import dev.ordo.connect.internal.RecordMapper;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues the records of its partitions through Ordo's {@link QueueProducer}, at least once:
 * <ol>
 *   <li>{@code put}: each record is mapped ({@link RecordMapper}); a good one is sent
 *       asynchronously and its future kept; a bad one goes to Connect's error handling (the
 *       errant record reporter, so {@code errors.tolerance} and the dead-letter topic apply), or,
 *       with {@code errors.tolerance=none}, fails the task with the reason.</li>
 *   <li>{@code preCommit} (before the worker commits the consumer offsets, every
 *       {@code offset.flush.interval.ms}, and before partitions are revoked or the task stops):
 *       flush the producer and wait for every outstanding send. All acknowledged: the offsets
 *       handed to {@code put} are committed. One failed: throw, so the worker commits nothing and
 *       rewinds the consumer to the last committed offsets; those records are sent again.</li>
 * </ol>
 * So a record's offset is committed only after its item is on {@code <cluster>.items}; a task that
 * stops or crashes sends again at most the records after the last commit (duplicates, never losses).
 */
public final class OrdoSinkTask extends SinkTask {
  private static final Logger log = LoggerFactory.getLogger(OrdoSinkTask.class);
  /** How long a commit waits for outstanding sends before it gives up and rewinds. */
  private static final long SEND_WAIT_MS = Duration.ofMinutes(2).toMillis();

  private RecordMapper mapper;
  private QueueProducer producer;
  private ErrantRecordReporter reporter;
  private boolean tolerateErrors;
  private final PendingSends pending = new PendingSends();

  @Override
  public String version() {
    return OrdoSinkConnector.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    OrdoSinkConfig config = new OrdoSinkConfig(props);
    mapper = config.mapper();
    tolerateErrors = "all".equalsIgnoreCase(props.getOrDefault("errors.tolerance", "none"));
    try {
      reporter = context.errantRecordReporter();
    } catch (NoSuchMethodError | NoClassDefFoundError oldWorker) {
      reporter = null; // a worker before Kafka 2.6
    }
    producer = new QueueProducer(config.producerSettings());
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    for (SinkRecord record : records) {
      Mapped mapped = mapper.map(record);
      if (mapped instanceof Mapped.Item item) {
        pending.add(producer.enqueue(item.request()));
      } else {
        bad(record, ((Mapped.Rejected) mapped).reason());
      }
    }
  }

  private void bad(SinkRecord record, String reason) {
    BadRecordException error = new BadRecordException("record " + record.topic() + "-" + record.kafkaPartition()
        + "@" + record.kafkaOffset() + " is not an item: " + reason);
    if (tolerateErrors && reporter != null) {
      reporter.report(record, error); // the worker waits for this before it commits the record's offset
    } else {
      throw error;
    }
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (pending.size() > 0) {
      producer.flush();
      Throwable failed;
      try {
        failed = pending.awaitAll(SEND_WAIT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RetriableException("interrupted while waiting for enqueues; not committing", e);
      }
      if (failed != null) {
        log.warn("An enqueue failed; not committing, the worker rewinds to the last committed offsets", failed);
        throw new RetriableException("an enqueue failed, so these offsets are not committed: " + failed, failed);
      }
    }
    return offsets;
  }

  @Override
  public void flush(Map<TopicPartition, OffsetAndMetadata> offsets) {
    preCommit(offsets);
  }

  @Override
  public void stop() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(30));
    }
  }

  /** A record that does not make an item; the message says which setting and field and why. */
  public static final class BadRecordException extends DataException {
    public BadRecordException(String message) {
      super(message);
    }
  }
}
