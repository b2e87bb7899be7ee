package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.api.Names;
import dev.ordo.client.internal.AckBatcher;
import dev.ordo.client.internal.BreakerMeters;
import dev.ordo.client.internal.ClientMeters;
import dev.ordo.client.internal.Commands;
import dev.ordo.client.internal.DemandPlan;
import dev.ordo.client.internal.DequeueDemands;
import dev.ordo.client.internal.DequeueTimes;
import dev.ordo.client.internal.Dequeues;
import dev.ordo.client.internal.GiveBacks;
import dev.ordo.client.internal.ItemCommands;
import dev.ordo.client.internal.PartitionBreakers;
import dev.ordo.client.internal.PendingRequests;
import dev.ordo.client.internal.Replies;
import dev.ordo.client.internal.RequestChannel;
import dev.ordo.client.internal.StatsView;
import dev.ordo.schema.Acks;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.Outcomes;
import dev.ordo.schema.Requester;
import dev.ordo.serde.WireFormat;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.utils.Time;

/**
 * A requester of the queue with a fixed reply partition: dequeues items and sends ack, nack,
 * extend, release and cancel, each answered through {@code <cluster>.deliveries}; also reads the
 * active-topics table. Thread-safe, built for many concurrent calls (an HTTP front end holds one
 * per server); one background thread reads the replies.
 *
 * <p>A dequeue, step by step (decisions D50: a partition never grants a dequeue more than it asked,
 * and a dequeue never ends while items granted to it are on their way):
 * <ol>
 *   <li>it takes a requester id of its own, {@code <client id>/<incarnation>/d<n>}, and registers;</li>
 *   <li>it plans where to ask ({@link DemandPlan#fromStats}): from the per-partition ready counts and
 *       head priorities of {@code <cluster>.topics} (less what this client was handed since), the
 *       partitions with the best heads are asked for as many items as they hold until the counts are
 *       covered. Each is a <em>once</em> demand: the partition leases what it has at once, keeps
 *       nothing open, and when it had fewer says how many it granted. The dequeue waits until every
 *       partition asked has sent exactly that, and ends as soon as it has, with what came (like SQS,
 *       it returns what is ready rather than wait for more). A round that brought nothing (the stats
 *       were stale) is followed by another plan, at most three;</li>
 *   <li>when the stats show nothing to take, it long-polls: a standing demand on every partition for
 *       a share of what is still wanted ({@link DemandPlan#longPoll}), refreshed every
 *       {@code ordo.client.demand.refresh.ms}; it ends {@code ordo.client.dequeue.gather.ms} after
 *       the first item arrives (time for the other partitions to offer better items), or at the end of
 *       the wait, and cancels its demands;</li>
 *   <li>an item granted to a dequeue that has ended (its demand's cancel crossed it) or beyond its
 *       counts goes to another open dequeue of this client that still wants it, else back to the
 *       queue unseen ({@code Release.returned}, counted by reason): the queue undoes the lease as if
 *       it had never been granted, so an at-most-once item is ready again, not lost.</li>
 * </ol>
 *
 * <p>Commands on an item go to the item's partition with a requester id of their own,
 * {@code <client id>/<incarnation>/c<n>}; the future completes with the queue's {@link CommandOutcome} (APPLIED,
 * STALE_LEASE, UNKNOWN_ITEM) or fails with a {@link TimeoutException} after
 * {@code ordo.client.request.timeout.ms}. An item ID naming a partition the cluster does not have
 * is answered UNKNOWN_ITEM locally.
 *
 * <p>Futures complete on a callback pool of this client, never on the poll thread, so a stage
 * chained to them may block (even on another call of this client).
 */
public final class QueueClient implements AutoCloseable {
  // A facade: each concern is a class of dev.ordo.client.internal that owns its state. RequestChannel
  // (the producer, requester ids, running), PendingRequests (what waits for an answer, its timeouts),
  // ItemCommands (commands on one item), AckBatcher (acks many to a command), Dequeues and
  // DequeueDemands (dequeues in progress, where they ask), GiveBacks (leases given back unseen),
  // Replies (the poll thread and its consumer).
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);
  /** The most acks one command carries. */
  static final int MAX_ACK_BATCH = AckBatcher.MAX_ACK_BATCH;

  private final ClusterTopics topics;
  private final String clientId;
  private final Time time;
  /** Single-object, or Confluent framing through a schema registry ({@link QueueClientConfig#SCHEMA_REGISTRY_URL_CONFIG}). */
  private final WireFormat wire;
  private final StatsView stats;
  private final ExecutorService callbacks;
  private final RequestChannel channel;
  private final PendingRequests requests;
  private final ItemCommands commands;
  private final AckBatcher acks;
  private final GiveBacks giveBacks;
  private final DequeueDemands demands;
  private final Dequeues dequeues;
  private final Replies replies;
  private final ClientMeters clientMeters = new ClientMeters();

  public QueueClient(Map<String, ?> config) {
    this(new QueueClientConfig(config));
  }

  public QueueClient(QueueClientConfig config) {
    this.topics = config.topics();
    this.time = config.time();
    this.clientId = config.clientId();
    String requesterPrefix = RequestChannel.requesterPrefix(clientId);
    this.wire = config.wireFormat();
    this.stats = new StatsView(topics.topicStats(), wire);
    PartitionBreakers breakers = new PartitionBreakers(config.breakerTimeouts(), config.breakerOpen().toMillis());
    AtomicInteger callbackThreads = new AtomicInteger();
    this.callbacks = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, clientId + "-callbacks-" + callbackThreads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    Producer<byte[], byte[]> producer = new KafkaProducer<>(config.producerConfigs());
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config.consumerConfigs());
    int replyPartition;
    try {
      replyPartition = Replies.assign(consumer, topics, stats, config.replyPartition(), clientId, METADATA_TIMEOUT);
    } catch (RuntimeException e) {
      consumer.close(Duration.ZERO);
      producer.close(Duration.ZERO);
      callbacks.shutdown();
      throw e;
    }
    this.channel = new RequestChannel(topics, clientId, requesterPrefix, replyPartition, producer);
    this.requests = new PendingRequests(channel, callbacks, time, config.requestTimeout().toMillis());
    this.commands = new ItemCommands(requests);
    this.acks = new AckBatcher(channel, requests, callbacks, time, config.ackLinger().toMillis(), clientId);
    this.giveBacks = new GiveBacks(channel, time);
    DequeueTimes times = DequeueTimes.of(config);
    this.demands = new DequeueDemands(channel, stats, breakers, times);
    this.dequeues = new Dequeues(channel, demands, stats, giveBacks, callbacks, time, times, config.dequeueMaxItems());
    this.replies = new Replies(consumer, wire, stats, channel, requests, dequeues, time, clientId);
    replies.start();
  }

  public String clientId() {
    return clientId;
  }

  /** The partition of {@code <cluster>.deliveries} this client reads. */
  public int replyPartition() {
    return channel.replyPartition();
  }

  public ClusterTopics topics() {
    return topics;
  }

  /** The partition count of {@code <cluster>.commands} (from cached metadata). */
  public int partitions() {
    return channel.partitions();
  }

  // ---- dequeue ----

  /**
   * Leases up to {@code topics.get(t)} items of each topic {@code t} of {@code namespace} (the key
   * {@code *} means any topic), best priority first. Returns shortly after the first items arrive,
   * with what arrived by then; when nothing is ready it waits up to {@code wait} (at least
   * {@code ordo.client.dequeue.min.wait.ms}) for items to become ready, and returns an empty list if
   * none do. Every returned item is leased to the caller, who must ack, nack or release it (or let
   * its lease run out).
   *
   * @throws IllegalArgumentException naming the bad argument: a namespace or topic name, a count
   *     below 1 or a total over {@code ordo.client.dequeue.max.items}, a negative wait
   */
  public CompletableFuture<List<QueueItem>> dequeue(String namespace, Map<String, Integer> topics, Duration wait) {
    return dequeues.open(namespace, topics, wait);
  }

  /** {@link #dequeue(String, Map, Duration)} of up to {@code count} items of one topic ({@code *}: any). */
  public CompletableFuture<List<QueueItem>> dequeue(String namespace, String topic, int count, Duration wait) {
    return dequeue(namespace, Map.of(topic == null ? "" : topic, count), wait);
  }

  // ---- commands ----

  /** {@link #ack(ItemId, String)} of the item on the lease it was handed with. */
  public CompletableFuture<CommandOutcome> ack(QueueItem item) {
    return ack(item.id(), item.leaseId());
  }

  /** Deletes the item if {@code leaseId} is its current lease. */
  public CompletableFuture<CommandOutcome> ack(ItemId id, String leaseId) {
    return commands.ack(id, leaseId, null);
  }

  /** {@link #nack(ItemId, String, NackOptions)} of the item on the lease it was handed with. */
  public CompletableFuture<CommandOutcome> nack(QueueItem item, NackOptions options) {
    return nack(item.id(), item.leaseId(), options);
  }

  /** Gives the item back as failed: ready again after {@code delay} with new {@code metadata} if not null. */
  public CompletableFuture<CommandOutcome> nack(ItemId id, String leaseId, Duration delay, byte[] metadata) {
    return nack(id, leaseId, NackOptions.retryAfter(delay).withMetadata(metadata));
  }

  /**
   * Gives the item back as failed (one attempt used): ready again after the options' delay, or
   * dead-lettered when asked or when its attempts are used up (the outcome's {@code deadLetterReason} says so).
   */
  public CompletableFuture<CommandOutcome> nack(ItemId id, String leaseId, NackOptions options) {
    return commands.nack(id, leaseId, options, null);
  }

  /**
   * A {@link LeaseConsumer}'s nack of a failed handler's item: nobody waits on its answer, so it does
   * not ask the queue to commit at once (decisions D19), and completes with others of the same poll.
   */
  CompletableFuture<Outcome> nackBatched(DeliveredItem item, NackOptions options) {
    return commands.nackBatched(ItemId.parse(item.getItemId()), item.getLeaseId(), options);
  }

  /** {@link #extend(ItemId, String, Duration)} of the item on the lease it was handed with. */
  public CompletableFuture<CommandOutcome> extend(QueueItem item, Duration lease) {
    return extend(item.id(), item.leaseId(), lease);
  }

  /** Heartbeat: the lease now ends {@code lease} from when the queue applies this; see the outcome's leaseExpiresAt. */
  public CompletableFuture<CommandOutcome> extend(ItemId id, String leaseId, Duration lease) {
    return commands.extend(id, leaseId, lease, null);
  }

  /** {@link #release(ItemId, String)} of the item on the lease it was handed with. */
  public CompletableFuture<CommandOutcome> release(QueueItem item) {
    return release(item.id(), item.leaseId());
  }

  /** Gives the item back unused: ready again at its place, the delivery not counted as an attempt. */
  public CompletableFuture<CommandOutcome> release(ItemId id, String leaseId) {
    return commands.release(id, leaseId, null);
  }

  /** Deletes the item in whatever state, leased or not; a consumer holding it loses its lease. */
  public CompletableFuture<CommandOutcome> cancel(ItemId id) {
    return commands.cancel(id, null);
  }

  /**
   * This client's commands on items, applied only to items of the namespaces that {@code patterns}
   * match ({@link dev.ordo.api.NamespacePattern}: a namespace, a prefix such as {@code team-a.*}, or
   * {@code *}). The queue leaves an item of another namespace as it is and answers INVALID with the
   * outcome's {@code forbiddenNamespace} set. The HTTP API sends its callers' commands so, limited
   * to the namespaces each may consume. Null: any namespace, as this client's own commands.
   */
  public Scoped within(Collection<String> patterns) {
    return new Scoped(ItemCommands.scope(patterns));
  }

  /** Commands on items limited to some namespaces: see {@link #within}. */
  public final class Scoped {
    private final List<String> scope;

    private Scoped(List<String> scope) {
      this.scope = scope;
    }

    /** As {@link QueueClient#ack(ItemId, String)}, limited to the scope's namespaces. */
    public CompletableFuture<CommandOutcome> ack(ItemId id, String leaseId) {
      return commands.ack(id, leaseId, scope);
    }

    /** As {@link QueueClient#nack(ItemId, String, NackOptions)}, limited to the scope's namespaces. */
    public CompletableFuture<CommandOutcome> nack(ItemId id, String leaseId, NackOptions options) {
      return commands.nack(id, leaseId, options, scope);
    }

    /** As {@link QueueClient#extend(ItemId, String, Duration)}, limited to the scope's namespaces. */
    public CompletableFuture<CommandOutcome> extend(ItemId id, String leaseId, Duration lease) {
      return commands.extend(id, leaseId, lease, scope);
    }

    /** As {@link QueueClient#release(ItemId, String)}, limited to the scope's namespaces. */
    public CompletableFuture<CommandOutcome> release(ItemId id, String leaseId) {
      return commands.release(id, leaseId, scope);
    }

    /** As {@link QueueClient#cancel(ItemId)}, limited to the scope's namespaces. */
    public CompletableFuture<CommandOutcome> cancel(ItemId id) {
      return commands.cancel(id, scope);
    }

    /** As {@link QueueClient#ackAll}, each ack limited to the scope's namespaces. */
    public List<CompletableFuture<CommandOutcome>> ackAll(List<Map.Entry<ItemId, String>> items) {
      return acks.ackAll(items, scope);
    }
  }

  // ---- enqueue with an answer ----

  /**
   * Enqueues through {@code producer} and waits for the queue's answer, which names the item that
   * holds (decisions D57): for a request with a {@link EnqueueRequest#dedupId} refused as a duplicate,
   * the first item's ID and {@code duplicate} true. Step by step:
   * <ol>
   *   <li>it takes a requester id of its own, {@code <client id>/<incarnation>/e<n>}, and registers;</li>
   *   <li>the producer writes the item with the header {@value dev.ordo.api.Dedup#REPLY_HEADER} naming
   *       this client's reply partition and that id (and the deduplication ID's header);</li>
   *   <li>the partition that takes the item in answers on {@code <cluster>.deliveries}, at once
   *       (an early answer, decisions D39): taken in, or a duplicate of the item it names.</li>
   * </ol>
   * A request without a deduplication ID does not wait: it completes with its own ID once Kafka has
   * the record, as {@link QueueProducer#enqueue} does. Bad input throws as there; no answer within
   * {@code ordo.client.request.timeout.ms} fails the future with a {@link TimeoutException} (the item
   * may have been taken in).
   */
  public CompletableFuture<Enqueued> enqueue(QueueProducer producer, EnqueueRequest request, Duration backlogWait) {
    if (request != null && request.dedupId() == null) {
      return producer.enqueue(request, backlogWait).thenApplyAsync(id -> new Enqueued(id, false), callbacks);
    }
    String what = request == null ? "" : request.namespace() + "/" + request.topic() + " " + request.dedupId();
    return requests.enqueue(what, replyTo -> producer.enqueue(request, backlogWait, replyTo));
  }

  // ---- acks, heartbeats and demands of a lease consumer ----

  /**
   * A {@link LeaseConsumer}'s own ack: sent with the other acks to the same partition that come
   * within {@link QueueClientConfig#ACK_LINGER_CONFIG} as one {@link Acks} command, answered by one
   * {@link Outcomes} record, and completed with others of the same poll (its stages never block).
   */
  CompletableFuture<Outcome> ackBatched(DeliveredItem item) {
    return acks.ackBatched(item);
  }

  /**
   * Acks many items at once, for a caller that waits on them (the HTTP API's batch ack): the acks of
   * each partition travel as one {@link Acks} command, answered by one {@link Outcomes} record, and
   * the queue commits as soon as it answered. One future per item, in the order given, with its
   * {@link CommandOutcome}; an item ID naming a partition the cluster does not have is answered
   * UNKNOWN_ITEM locally.
   *
   * @throws IllegalArgumentException for a missing item ID or lease (nothing is sent then)
   */
  public List<CompletableFuture<CommandOutcome>> ackAll(List<Map.Entry<ItemId, String>> items) {
    return acks.ackAll(items, null);
  }

  /** A {@link LeaseConsumer}'s own heartbeat: completed with others of the same poll. */
  CompletableFuture<Outcome> extendBatched(ItemId id, String leaseId, Duration lease) {
    return commands.extendBatched(id, leaseId, lease);
  }

  /** Sends the demand of a {@link LeaseConsumer}, which reads its replies itself. */
  CompletableFuture<RecordMetadata> sendDemand(int partition, Requester requester, String namespace,
      Map<String, Integer> counts, long validForMs, boolean replace) {
    return channel.send(Commands.demand(topics, partition, requester, namespace, counts, validForMs, replace,
        time.milliseconds(), false));
  }

  /** Sends a {@link LeaseConsumer}'s standing demand under flow control (Demand.limit). */
  CompletableFuture<RecordMetadata> sendFlowDemand(int partition, Requester requester, String namespace,
      Map<String, Integer> counts, long validForMs, long limit, long received) {
    return channel.send(Commands.flowDemand(topics, partition, requester, namespace, counts, validForMs, limit,
        received, time.milliseconds()));
  }

  /** Releases an item its application saw (a plain release: an at-most-once item is dropped), telling nobody. */
  void releaseQuietly(DeliveredItem item) {
    giveBacks.releaseQuietly(item);
  }

  // ---- give-backs ----

  /** Items of finished dequeues handed to other open dequeues instead of being given back, since start. */
  public long handedOver() {
    return dequeues.handedOver();
  }

  /** Leases this client gave back unseen, by reason, since start. */
  public Map<GiveBackReason, Long> givenBack() {
    return giveBacks.counts();
  }

  /**
   * Gives back, fire and forget, the lease of an item nobody was handed: the queue undoes it as if
   * never granted ({@code Release.returned}), so an at-most-once item is ready again rather than
   * dropped, and counts it by {@code reason}. Only for items this library never gave its caller or
   * handler.
   */
  void giveBack(DeliveredItem item, GiveBackReason reason) {
    giveBacks.giveBack(item, reason);
  }

  /**
   * Gives back, fire and forget, the leases of items that a caller of {@link #dequeue} took for its own
   * callers and never handed on (the SQS endpoint's prefetch, docs/sqs.md): each is undone as if never
   * granted ({@code Release.returned}: ready again at its place, the attempt given back) and counted by
   * {@code reason} in {@link #givenBack}, with one log line for all. Only for items nobody was handed.
   */
  public void giveBackUnseen(List<QueueItem> items, GiveBackReason reason) {
    giveBacks.giveBackUnseen(items, reason);
  }

  // ---- active topics ----

  /**
   * The namespace's topics with their counts, from {@code <cluster>.topics}; completes once the
   * table has been read up to where it ended when this client started, at once afterwards.
   */
  public CompletableFuture<List<TopicActivity>> activeTopics(String namespace) {
    Names.check("namespace", namespace);
    return stats.caughtUp().thenApplyAsync(v -> stats.activeTopics(namespace, time.milliseconds()), callbacks);
  }

  /**
   * Every namespace's topics with their counts, from {@code <cluster>.topics}, sorted by namespace and
   * topic; completes as {@link #activeTopics(String)} does.
   */
  public CompletableFuture<List<TopicActivity>> activeTopics() {
    return stats.caughtUp().thenApplyAsync(v -> stats.activeTopics(time.milliseconds()), callbacks);
  }

  /** How this client reads the queue's records. */
  WireFormat wireFormat() {
    return wire;
  }

  // ---- metrics and closing ----

  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  /**
   * Exports the Kafka producer's and consumer's own metrics (Micrometer's {@code KafkaClientMetrics})
   * to {@code registry}, until this client closes.
   */
  public void bindMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
    clientMeters.bind(registry, channel.producer());
    clientMeters.bind(registry, replies.consumer());
    BreakerMeters.bind(registry, demands.breakers(), partitions(), clientId, time);
  }

  /** Fails what is pending, releases items of unfinished dequeues, and closes the Kafka clients. */
  public void close(Duration timeout) {
    clientMeters.close();
    if (!channel.running() && !replies.isAlive()) {
      return;
    }
    acks.flushAll();
    acks.shutdown();
    channel.stop();
    replies.wakeup();
    replies.join(timeout);
    channel.closeProducer(timeout);
    callbacks.shutdown();
  }

  /**
   * Stops as a killed process would: reading ends and the Kafka clients are dropped without sending
   * anything more, pending calls left as they are. Package-private: the seam through which tests of
   * this package (and {@link LeaseConsumer#halt}) crash a client.
   */
  void halt() {
    replies.halting();
    channel.stop();
    replies.wakeup();
    channel.closeProducer(Duration.ZERO);
    acks.shutdownNow();
    replies.join(Duration.ofSeconds(10));
    callbacks.shutdownNow();
  }
}
