package dev.ordo.delay;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.serde.OrdoSerdes;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.utils.Time;

/**
 * Schedules any record for any topic at any time: {@link #schedule} wraps it in a {@link DelayedRecord}
 * envelope and writes it to the first delay tier of its route; the forwarders carry it through the
 * tiers and produce its key, value and headers to the target topic at or after its due time, never
 * before. Delays from 0 to days; a delay of d takes about d / (longest tier) hops.
 *
 * <p>Where the wait happens:
 * <ul>
 *   <li>due already: written to the target at once;
 *   <li>less than the shortest tier ahead: held by this client and written to the target at the due time;
 *   <li>otherwise: into the longest tier that fits. The part of the delay tiers cannot express (less than
 *       the shortest tier) is waited here before the write when {@code ordo.delay.client.hold.residual}
 *       is true (the default), else at the head of the last tier by its forwarder.
 * </ul>
 * The returned future completes with the metadata of that first write (a tier record, or the target
 * record itself) once the broker acknowledged it: from then on the record is durable and will be
 * delivered. Until then it lives only in this process. Thread-safe.
 */
public final class DelayClient implements AutoCloseable {
  private final Producer<byte[], byte[]> producer;
  private final boolean ownsProducer;
  private final TierRouter router;
  private final ClusterTopics topics;
  private final Duration hopAllowance;
  private final boolean holdResidual;
  private final Time time;
  private final ScheduledThreadPoolExecutor timer;
  private final Set<CompletableFuture<RecordMetadata>> held = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** A client with its own idempotent producer, from the settings {@link DelayTiersConfig} describes. */
  public static DelayClient create(Map<String, ?> config) {
    return new DelayClient(new DelayTiersConfig(config));
  }

  /** A client with its own idempotent producer. */
  public DelayClient(DelayTiersConfig config) {
    this(config, new KafkaProducer<>(config.clientProducerConfigs()), true, Time.SYSTEM);
  }

  /**
   * A client writing with {@code producer} (byte arrays, preferably idempotent with acks=all), which
   * stays the caller's: {@link #close()} flushes it but does not close it.
   */
  public DelayClient(DelayTiersConfig config, Producer<byte[], byte[]> producer) {
    this(config, producer, false, Time.SYSTEM);
  }

  DelayClient(DelayTiersConfig config, Producer<byte[], byte[]> producer, boolean ownsProducer, Time time) {
    this.producer = producer;
    this.ownsProducer = ownsProducer;
    this.router = config.router();
    this.topics = config.topics();
    this.hopAllowance = config.hopAllowance();
    this.holdResidual = config.clientHoldsResidual();
    this.time = time;
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "ordo-delay-client-" + config.topics().cluster());
      t.setDaemon(true);
      return t;
    });
    this.timer.setRemoveOnCancelPolicy(true);
  }

  /** Schedules {@code value} for {@code topic}, partitioned by its key, at {@code dueAt}. */
  public CompletableFuture<RecordMetadata> schedule(String topic, byte[] key, byte[] value, Iterable<Header> headers,
      Instant dueAt) {
    return schedule(topic, null, key, value, headers, dueAt);
  }

  /**
   * Schedules {@code value} for {@code partition} of {@code topic} (null: the producer's partitioner on
   * the key) at {@code dueAt}. Key, value and headers may be null.
   *
   * @return the metadata of the first write, once acknowledged
   * @throws IllegalArgumentException for an illegal topic name, a negative partition or a null due time
   * @throws IllegalStateException after {@link #close()}
   */
  public CompletableFuture<RecordMetadata> schedule(String topic, Integer partition, byte[] key, byte[] value,
      Iterable<Header> headers, Instant dueAt) {
    if (dueAt == null) {
      throw new IllegalArgumentException("dueAt is missing");
    }
    if (closed) {
      throw new IllegalStateException("DelayClient is closed");
    }
    long now = time.milliseconds();
    long due = dueAt.toEpochMilli();
    DelayedRecord envelope = DelayedRecords.envelope(topic, partition, key, value, headers, due, now);
    CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
    long sendAt = sendAt(due, now);
    if (sendAt <= now) {
      write(envelope, result);
    } else {
      hold(envelope, result, sendAt - now);
    }
    return result;
  }

  /** Schedules {@code value} for {@code topic} {@code delay} from now. */
  public CompletableFuture<RecordMetadata> schedule(String topic, byte[] key, byte[] value, Iterable<Header> headers,
      Duration delay) {
    return schedule(topic, null, key, value, headers, Instant.ofEpochMilli(time.milliseconds()).plus(delay));
  }

  /** How many scheduled records this client still holds in memory (not yet written). */
  public int held() {
    return held.size();
  }

  /** Writes the records still held (waiting at most until the shortest tier has passed), then flushes. */
  @Override
  public void close() {
    close(router.shortest().plusSeconds(30));
  }

  /**
   * Waits up to {@code timeout} for held records to be written, then flushes the producer (and closes
   * it if this client created it). Records still held after the timeout are not written: their futures
   * fail with an {@link IllegalStateException}.
   */
  public void close(Duration timeout) {
    closed = true;
    timer.shutdown();
    try {
      if (!timer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        timer.shutdownNow();
      }
    } catch (InterruptedException e) {
      timer.shutdownNow();
      Thread.currentThread().interrupt();
    }
    for (CompletableFuture<RecordMetadata> f : held) {
      f.completeExceptionally(new IllegalStateException("DelayClient closed before the record was written"));
    }
    if (ownsProducer) {
      producer.close(timeout);
    } else {
      producer.flush();
    }
  }

  private long sendAt(long due, long now) {
    if (holdResidual) {
      return router.firstHop(due, now, hopAllowance).sendAt();
    }
    Route route = router.route(due, now);
    return route instanceof Route.Target target ? Math.max(now, target.notBefore()) : now;
  }

  private void hold(DelayedRecord envelope, CompletableFuture<RecordMetadata> result, long delayMs) {
    held.add(result);
    try {
      timer.schedule(() -> {
        held.remove(result);
        write(envelope, result);
      }, delayMs, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      held.remove(result);
      result.completeExceptionally(new IllegalStateException("DelayClient is closed", e));
    }
  }

  /** Writes along the route the record has now; a timer that fired a little early waits again. */
  private void write(DelayedRecord envelope, CompletableFuture<RecordMetadata> result) {
    long now = time.milliseconds();
    Route route = router.route(envelope.getDueAt(), now);
    ProducerRecord<byte[], byte[]> record;
    if (route instanceof Route.Target target) {
      if (!target.isDue(now)) {
        hold(envelope, result, target.notBefore() - now);
        return;
      }
      record = DelayedRecords.targetRecord(envelope, now);
    } else {
      Route.Tier tier = (Route.Tier) route;
      record = new ProducerRecord<>(topics.delayTier(tier.delay()), null, null,
          DelayedRecords.bytes(envelope.getKey()), OrdoSerdes.DELAYED_RECORD.encode(envelope));
    }
    try {
      producer.send(record, (metadata, e) -> {
        if (e != null) {
          result.completeExceptionally(e);
        } else {
          result.complete(metadata);
        }
      });
    } catch (KafkaException | IllegalStateException e) {
      result.completeExceptionally(e);
    }
  }
}
