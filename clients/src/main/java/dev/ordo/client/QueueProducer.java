package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.client.internal.PolicyLimits;
import dev.ordo.client.internal.StatsReader;
import dev.ordo.client.internal.StatsView;
import dev.ordo.schema.Item;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;

/**
 * Enqueues items: writes {@link Item} records to {@code <cluster>.items} and returns each item's
 * ID, its partition and offset, once Kafka has acknowledged the write (acks=all, idempotent).
 * Thread-safe; share one per process.
 *
 * <p>Partitioning: an item with a group key goes to the partition of the key's murmur2 hash (as
 * Kafka's own partitioner would), so a group's items share a partition and its fairness state; in a
 * namespace whose policy sets {@code shards: k}, to the least loaded of the group's k shards
 * ({@link dev.ordo.api.Shards}, decisions D62; read from the policies and stats this producer reads for
 * backpressure, so with {@link QueueProducerConfig#BACKPRESSURE_CONFIG} off it keeps to the key's hash); an
 * item with a deduplication ID and no group key to the partition of its namespace, topic and ID
 * ({@link dev.ordo.api.Dedup#routingKey}), so its duplicates meet it there (decisions D57); other
 * items use Kafka's sticky partitioner, which spreads them over all partitions batch by batch.
 *
 * <p>Deduplication: the queue refuses an item whose {@link EnqueueRequest#dedupId} it took in within
 * the window, but the ID this producer returns is always its own record's. To learn the first
 * item's ID of a duplicate, enqueue through {@link QueueClient#enqueue}.
 *
 * <p>The returned futures complete on the Kafka producer's I/O thread: do not block in stages
 * chained to them (use the {@code *Async} variants for heavy work).
 */
public final class QueueProducer implements AutoCloseable {
  private final ClusterTopics topics;
  private final int payloadLimit;
  private final int headersLimit;
  private final long backlogLimit;
  private final Producer<byte[], byte[]> producer;
  /** Made at the first enqueue (it reads the cluster's metadata); null when nothing limits backlogs. */
  private volatile StatsReader stats;
  private final boolean readsStats;
  private final QueueProducerConfig config;
  /** Items Confluent-framed through a schema registry, or single-object ({@link QueueProducerConfig#SCHEMA_REGISTRY_URL_CONFIG}). */
  private final dev.ordo.serde.WireFormat wire;
  private final PolicyLimits limits;
  private final long maxBlockMs;
  private final Time time;
  /** Set by {@link #close}: an enqueue after it fails with a {@link ClientClosedException}. */
  private volatile boolean closed;

  public QueueProducer(Map<String, ?> config) {
    this(new QueueProducerConfig(config));
  }

  public QueueProducer(QueueProducerConfig config) {
    this.topics = config.topics();
    this.payloadLimit = config.payloadMaxBytes();
    this.headersLimit = config.headersMaxBytes();
    this.backlogLimit = config.backlogMaxItems();
    this.time = config.time();
    this.producer = new KafkaProducer<>(config.producerConfigs());
    this.maxBlockMs = config.maxBlockMs();
    this.limits = config.backpressure() ? new PolicyLimits(topics.namespaces()) : null;
    this.readsStats = backlogLimit > 0 || limits != null;
    this.config = config;
    this.wire = config.wireFormat();
  }

  /**
   * The stats and policy reader, started at the first enqueue rather than by the constructor: it
   * fetches metadata, and a producer made while the cluster is away must still refuse bad input
   * (and its sends wait for the cluster as Kafka's do).
   */
  private StatsReader stats() {
    StatsReader s = stats;
    if (s == null && readsStats) {
      synchronized (this) {
        s = stats;
        if (s == null) {
          s = new StatsReader(new StatsView(topics.topicStats(), wire), limits, config.statsConsumerConfigs(), "ordo-producer-stats");
          stats = s;
        }
      }
    }
    return s;
  }

  /**
   * Writes one item. Bad input throws at once ({@link IllegalArgumentException} naming the field,
   * {@link PayloadTooLargeException}, {@link HeadersTooLargeException}); a namespace at its backlog limit (its policy's
   * {@code maxBacklog}, or {@link QueueProducerConfig#BACKLOG_MAX_ITEMS_CONFIG}) holds the call up to
   * {@code max.block.ms} for room, then fails the future with {@link BacklogFullException}; a Kafka
   * failure fails it with Kafka's exception.
   */
  public CompletableFuture<ItemId> enqueue(EnqueueRequest request) {
    return enqueue(request, Duration.ofMillis(maxBlockMs));
  }

  /**
   * {@link #enqueue(EnqueueRequest)}, waiting at most {@code backlogWait} for room in a full backlog
   * ({@link Duration#ZERO}: fail at once, as the HTTP API does with a 429).
   */
  public CompletableFuture<ItemId> enqueue(EnqueueRequest request, Duration backlogWait) {
    return enqueue(request, backlogWait, null);
  }

  /**
   * {@link #enqueue(EnqueueRequest, Duration)} with the header {@value dev.ordo.api.Dedup#REPLY_HEADER}
   * naming {@code replyTo}: the queue answers it when it takes the item in or refuses it as a duplicate.
   */
  CompletableFuture<ItemId> enqueue(EnqueueRequest request, Duration backlogWait, byte[] replyTo) {
    checkPayload(request);
    awaitPoliciesForDedup(request);
    BacklogFullException full = awaitRoom(request.namespace(), backlogWait.toMillis());
    if (full != null) {
      return CompletableFuture.failedFuture(full);
    }
    return send(request, replyTo);
  }

  /**
   * Writes several items; every request is checked before any is sent, so bad input writes
   * nothing. The future holds the IDs in request order, or fails with the first failure (items
   * whose write succeeded stay enqueued).
   */
  public CompletableFuture<List<ItemId>> enqueueAll(List<EnqueueRequest> requests) {
    return enqueueAll(requests, Duration.ofMillis(maxBlockMs));
  }

  /** {@link #enqueueAll(List)}, waiting at most {@code backlogWait} in all for room in full backlogs. */
  public CompletableFuture<List<ItemId>> enqueueAll(List<EnqueueRequest> requests, Duration backlogWait) {
    for (EnqueueRequest r : requests) {
      checkPayload(r);
    }
    long deadline = System.nanoTime() + backlogWait.toNanos();
    for (String namespace : requests.stream().map(EnqueueRequest::namespace).distinct().toList()) {
      BacklogFullException full = awaitRoom(namespace, Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
      if (full != null) {
        return CompletableFuture.failedFuture(full);
      }
    }
    List<CompletableFuture<ItemId>> sends = new ArrayList<>(requests.size());
    for (EnqueueRequest r : requests) {
      awaitPoliciesForDedup(r);
      sends.add(send(r, null));
    }
    return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .thenApply(v -> sends.stream().map(CompletableFuture::join).toList());
  }

  /** Sends everything buffered and waits for the acknowledgements. */
  public void flush() {
    producer.flush();
  }

  /** The partition count of {@code <cluster>.items} (waits for metadata on first use). */
  public int partitions() {
    return producer.partitionsFor(topics.items()).size();
  }

  private void checkPayload(EnqueueRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("request is missing");
    }
    if (request.payload().length > payloadLimit) {
      throw new PayloadTooLargeException(request.payload().length, payloadLimit);
    }
    if (!request.headers().isEmpty() && request.headers().sizeBytes() > headersLimit) {
      throw new HeadersTooLargeException(request.headers().sizeBytes(), headersLimit);
    }
  }

  /** Null when the namespace's backlog has room, waiting up to {@code waitMs} for it; else why not. */
  private BacklogFullException awaitRoom(String namespace, long waitMs) {
    long deadline = System.nanoTime() + waitMs * 1_000_000;
    awaitFirstRead(waitMs);
    BacklogFullException full = backlogFull(namespace);
    if (full == null || waitMs <= 0) {
      return full;
    }
    try {
      while (full != null) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          return full;
        }
        stats().view().awaitChange(Math.min(left, 100));
        full = backlogFull(namespace);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return full;
  }

  /**
   * A new producer knows no backlog and no policy until its reader has read the stats and policies as
   * far as they went when it started: until then, within the enqueue's own wait, it waits for that
   * rather than take every item. When the wait is 0 or runs out first, the item goes: over its
   * namespace's limit it waits in OVERFLOW, never lost.
   */
  private void awaitFirstRead(long waitMs) {
    if (!readsStats) {
      return;
    }
    CompletableFuture<Void> read = stats().view().caughtUp();
    if (read.isDone() || waitMs <= 0) {
      return;
    }
    try {
      read.get(waitMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // the limits as far as they are known
    }
  }

  /**
   * A grouped item with a deduplication ID is routed by its namespace's {@code shards} (decisions D62):
   * to the shard its ID hashes to, so its duplicates meet it. A producer that had not read the policies
   * yet would send it to the group's home instead, where a duplicate from a producer that has read them
   * would not meet it; so before its first such item a new producer waits, up to {@code max.block.ms}
   * whatever the call's own backlog wait, for its first read of the policies (once per producer).
   */
  private void awaitPoliciesForDedup(EnqueueRequest r) {
    if (limits != null && r.groupKey() != null && r.dedupId() != null) {
      awaitFirstRead(maxBlockMs);
    }
  }

  private BacklogFullException backlogFull(String namespace) {
    if (!readsStats) {
      return null;
    }
    StatsReader reader = stats(); // also what reads the policies' limits
    Long policyLimit = limits == null ? null : limits.maxBacklog(namespace);
    long limit = backlogLimit > 0 ? backlogLimit : Long.MAX_VALUE;
    if (policyLimit != null) {
      limit = Math.min(limit, policyLimit);
    }
    if (limit == Long.MAX_VALUE) {
      return null;
    }
    long backlog = reader.view().backlog(namespace);
    return backlog >= limit ? new BacklogFullException(namespace, backlog, limit) : null;
  }

  /**
   * The partition of a grouped item of a namespace that shards group keys (docs/queue.md, "Shuffle
   * sharding"; decisions D62): of the group's shards ({@link dev.ordo.api.Shards#of}), the one with the
   * smallest backlog of the item's (namespace, topic) by the stats this producer reads, counting what it
   * sent since; an item with a deduplication ID the one its ID hashes to, so its duplicates meet it.
   */
  private int shard(EnqueueRequest r, dev.ordo.schema.NamespacePolicy policy, int partitions) {
    int k = dev.ordo.api.Shards.forGroup(policy, r.topic(), r.groupKey(), partitions);
    int[] shards = dev.ordo.api.Shards.of(r.groupKey(), k, partitions);
    if (k == 1) {
      return shards[0];
    }
    if (r.dedupId() != null) {
      return dev.ordo.api.Shards.forDedup(shards, r.namespace(), r.topic(), r.dedupId());
    }
    StatsView view = stats().view();
    int chosen = dev.ordo.api.Shards.choose(shards, view.shardBacklogs(r.namespace(), r.topic(), shards));
    view.sent(r.namespace(), r.topic(), chosen);
    return chosen;
  }

  private CompletableFuture<ItemId> send(EnqueueRequest r, byte[] replyTo) {
    Item item = Item.newBuilder()
        .setNamespace(r.namespace())
        .setTopic(r.topic())
        .setPriority(r.priority())
        .setPayload(ByteBuffer.wrap(r.payload()))
        .setMetadata(r.metadata() == null ? null : ByteBuffer.wrap(r.metadata()))
        .setDeliverAfter(r.deliverAfterMs(time.milliseconds()))
        .setLeaseDurationMs(r.lease() == null ? null : r.lease().toMillis())
        .setTtlMs(r.ttl() == null ? null : r.ttl().toMillis())
        .setDeliverySemantics(dev.ordo.client.internal.PublicTypes.semantics(r.semantics()))
        .setMaxAttempts(r.maxAttempts())
        .setGroupKey(r.groupKey())
        .setTraceId(r.traceId())
        .build();
    byte[] key = r.groupKey() != null ? r.groupKey().getBytes(StandardCharsets.UTF_8)
        : r.dedupId() != null ? dev.ordo.api.Dedup.routingKey(r.namespace(), r.topic(), r.dedupId()) : null;
    Integer partition = null;
    if (key != null) {
      int n = partitions();
      dev.ordo.schema.NamespacePolicy sharded = r.groupKey() == null || limits == null ? null : limits.sharded(r.namespace());
      partition = sharded == null ? Utils.toPositive(Utils.murmur2(key)) % n : shard(r, sharded, n);
    }
    CompletableFuture<ItemId> result = new CompletableFuture<>();
    if (closed) {
      result.completeExceptionally(closed());
      return result;
    }
    try {
      // The headers go on the Kafka record (where any Kafka tool sees them), not in the item's field.
      RecordHeaders headers = null;
      if (!r.headers().isEmpty() || r.dedupId() != null || replyTo != null) {
        headers = new RecordHeaders();
        for (ItemHeaders.Entry e : r.headers().entries()) {
          headers.add(e.name(), e.value());
        }
        if (r.dedupId() != null) {
          headers.add(dev.ordo.api.Dedup.HEADER, r.dedupId().getBytes(StandardCharsets.UTF_8));
        }
        if (replyTo != null) {
          headers.add(dev.ordo.api.Dedup.REPLY_HEADER, replyTo);
        }
      }
      producer.send(new ProducerRecord<>(topics.items(), partition, key, wire.encode(OrdoSerdes.ITEM, topics.items(), item), headers),
          (metadata, error) -> {
            if (error != null) {
              result.completeExceptionally(error);
            } else {
              result.complete(new ItemId(metadata.partition(), metadata.offset()));
            }
          });
    } catch (RuntimeException e) {
      // Kafka's producer refuses a send once closed (IllegalStateException): a close that raced this one.
      result.completeExceptionally(closed && e instanceof IllegalStateException ? closed() : e);
    }
    return result;
  }

  private ClientClosedException closed() {
    return new ClientClosedException("the producer of Ordo cluster '" + topics.cluster() + "'");
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  /**
   * Exports the Kafka producer's own metrics (Micrometer's {@code KafkaClientMetrics}: send rates,
   * batch sizes, request latency, buffer use...) to {@code registry}, until this producer closes.
   */
  public void bindMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
    clientMeters.bind(registry, producer);
  }

  private final dev.ordo.client.internal.ClientMeters clientMeters = new dev.ordo.client.internal.ClientMeters();

  /** Sends what is buffered (waiting up to {@code timeout}) and releases the Kafka clients. */
  public void close(Duration timeout) {
    closed = true;
    if (stats != null) {
      stats.close();
    }
    producer.close(timeout);
    clientMeters.close();
  }
}
