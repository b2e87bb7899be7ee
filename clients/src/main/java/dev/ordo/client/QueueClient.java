package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Deliveries;
import dev.ordo.api.ItemId;
import dev.ordo.api.Names;
import dev.ordo.client.internal.AckBatcher;
import dev.ordo.client.internal.BreakerMeters;
import dev.ordo.client.internal.Commands;
import dev.ordo.client.internal.DemandPlan;
import dev.ordo.client.internal.GiveBacks;
import dev.ordo.client.internal.ItemCommands;
import dev.ordo.client.internal.PartitionBreakers;
import dev.ordo.client.internal.PendingDequeue;
import dev.ordo.client.internal.PendingRequests;
import dev.ordo.client.internal.PublicTypes;
import dev.ordo.client.internal.RequestChannel;
import dev.ordo.client.internal.Selection;
import dev.ordo.client.internal.StatsView;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger log = LoggerFactory.getLogger(QueueClient.class);
  private static final Duration POLL = Duration.ofMillis(20);
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);
  /** Demand outlives the moment it is needed by this much, to cover the trip to the queue. */
  private static final long DEMAND_SLACK_MS = 200;

  private final ClusterTopics topics;
  private final String clientId;
  private final int replyPartition;
  private final long requestTimeoutMs;
  private final long gatherMs;
  /**
   * How long past its deadline a dequeue waits for the answers of the partitions it asked once: their
   * items are on their way, and given back if they come later.
   */
  private final long answerGraceMs;
  private static final long ANSWER_GRACE_MS = 2_000;
  /** {@link QueueClientConfig#DEQUEUE_STICKY_CONFIG}. */
  private final long stickyMs;
  /**
   * How long the partitions asked by exact plans recently took to send their first items (written
   * by the poll thread only; a dequeue's wait and {@link PendingDequeue#roundTimeout} grow with it).
   */
  private volatile long recentAnswerMs;
  /** Exact dequeues that ended before any item came, the latest {@value #ENDED_EMPTY_KEPT}; poll thread only. */
  private final Map<String, PendingDequeue> endedEmpty = new java.util.LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, PendingDequeue> eldest) {
      return size() > ENDED_EMPTY_KEPT;
    }
  };
  private static final int ENDED_EMPTY_KEPT = 256;
  /**
   * The latest leases handed to callers ({@code <item id>/<lease id>}, the latest {@value #HANDED_OUT_KEPT});
   * poll thread only. A delivery that comes again on one of them after its dequeue ended is the caller's,
   * not a late grant to give back.
   */
  private final Map<String, Boolean> handedOut = new java.util.LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > HANDED_OUT_KEPT;
    }
  };
  private static final int HANDED_OUT_KEPT = 8_192;
  private final long minWaitMs;
  private final long refreshMs;
  private final int maxItems;
  private final Time time;
  private final RequestChannel channel;
  private final GiveBacks giveBacks;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final StatsView stats;
  /** A dequeue breaker per queue partition: one that stops answering is left out for a while (D58). */
  private final PartitionBreakers breakers;
  private final ExecutorService callbacks;
  private final Map<String, PendingDequeue> dequeues = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong handedOver = new java.util.concurrent.atomic.AtomicLong();
  /** The partition that served this client's dequeues last, which its next ones prefer among equals. */
  private volatile int lastServed = -1;
  private final PendingRequests requests;
  private final ItemCommands commands;
  private final AckBatcher acks;
  private final Thread thread;
  private volatile boolean halted;
  private long lastWarning; // poll thread only

  /** The most acks one command carries. */
  static final int MAX_ACK_BATCH = AckBatcher.MAX_ACK_BATCH;

  /** How often the poll thread looks for requests past their timeout. */
  private static final long TIMEOUT_SWEEP_MS = 50;
  private long nextTimeoutSweep; // poll thread only

  /** Single-object, or Confluent framing through a schema registry ({@link QueueClientConfig#SCHEMA_REGISTRY_URL_CONFIG}). */
  private final dev.ordo.serde.WireFormat wire;

  public QueueClient(Map<String, ?> config) {
    this(new QueueClientConfig(config));
  }

  public QueueClient(QueueClientConfig config) {
    this.topics = config.topics();
    this.time = config.time();
    this.clientId = config.clientId();
    this.requestTimeoutMs = config.requestTimeout().toMillis();
    this.gatherMs = config.dequeueGather().toMillis();
    this.answerGraceMs = Math.min(config.requestTimeout().toMillis(), ANSWER_GRACE_MS);
    this.stickyMs = config.dequeueSticky().toMillis();
    this.minWaitMs = config.dequeueMinWait().toMillis();
    this.refreshMs = config.demandRefresh().toMillis();
    this.maxItems = config.dequeueMaxItems();
    String requesterPrefix = RequestChannel.requesterPrefix(clientId);
    this.wire = config.wireFormat();
    this.stats = new StatsView(topics.topicStats(), wire);
    this.breakers = new PartitionBreakers(config.breakerTimeouts(), config.breakerOpen().toMillis());
    AtomicInteger callbackThreads = new AtomicInteger();
    this.callbacks = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, clientId + "-callbacks-" + callbackThreads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    Producer<byte[], byte[]> producer = new KafkaProducer<>(config.producerConfigs());
    this.consumer = new KafkaConsumer<>(config.consumerConfigs());
    try {
      int partitions = consumer.partitionsFor(topics.deliveries(), METADATA_TIMEOUT).size();
      if (partitions == 0) {
        throw new IllegalStateException("topic " + topics.deliveries() + " does not exist: is the Ordo cluster '"
            + topics.cluster() + "' set up?");
      }
      int commands = consumer.partitionsFor(topics.commands(), METADATA_TIMEOUT).size();
      if (commands != partitions) {
        throw new IllegalStateException(topics.commands() + " has " + commands + " partitions but "
            + topics.deliveries() + " has " + partitions + ": the cluster's topics must be co-partitioned");
      }
      int configured = config.replyPartition();
      this.replyPartition = configured >= 0 ? configured
          : Utils.toPositive(Utils.murmur2(clientId.getBytes(StandardCharsets.UTF_8))) % partitions;
      if (replyPartition >= partitions) {
        throw new IllegalArgumentException(QueueClientConfig.REPLY_PARTITION_CONFIG + " " + replyPartition
            + " is not a partition of " + topics.deliveries() + " (" + partitions + " partitions)");
      }
      TopicPartition replies = new TopicPartition(topics.deliveries(), replyPartition);
      List<TopicPartition> statsParts = stats.partitions(consumer, METADATA_TIMEOUT);
      List<TopicPartition> all = new ArrayList<>(statsParts);
      all.add(replies);
      consumer.assign(all);
      consumer.seekToEnd(List.of(replies));
      // Resolve the position now: a demand sent before it is known could be answered before it.
      consumer.position(replies, METADATA_TIMEOUT);
      consumer.seekToBeginning(statsParts);
      stats.start(consumer, statsParts, METADATA_TIMEOUT);
    } catch (RuntimeException e) {
      consumer.close(Duration.ZERO);
      producer.close(Duration.ZERO);
      callbacks.shutdown();
      throw e;
    }
    this.channel = new RequestChannel(topics, clientId, requesterPrefix, replyPartition, producer);
    this.requests = new PendingRequests(channel, callbacks, time, requestTimeoutMs);
    this.commands = new ItemCommands(requests);
    this.acks = new AckBatcher(channel, requests, callbacks, time, config.ackLinger().toMillis(), clientId);
    this.giveBacks = new GiveBacks(channel, time);
    this.thread = new Thread(this::pollLoop, clientId + "-replies");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  public String clientId() {
    return clientId;
  }

  /** The partition of {@code <cluster>.deliveries} this client reads. */
  public int replyPartition() {
    return replyPartition;
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
    Names.check("namespace", namespace);
    if (topics == null || topics.isEmpty()) {
      throw new IllegalArgumentException("topics is missing: name at least one topic with a count, or * for any");
    }
    topics.forEach((topic, count) -> {
      if (!Selection.ANY_TOPIC.equals(topic)) {
        Names.check("topic", topic);
      }
      if (count == null || count < 1) {
        throw new IllegalArgumentException("count for topic " + topic + " must be at least 1, got " + count);
      }
    });
    long total = topics.values().stream().mapToLong(Integer::longValue).sum();
    if (total > maxItems) {
      throw new IllegalArgumentException("a dequeue may ask for at most " + maxItems + " items, got " + total);
    }
    if (wait == null || wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative, got " + wait);
    }
    if (!channel.running()) {
      return CompletableFuture.failedFuture(channel.closed());
    }
    long now = time.milliseconds();
    // A server that answers slowly (a cold or loaded one) gets at least three of its recent answer
    // times: a dequeue that ends before its answer comes leaves the items leased to it to be released,
    // work that slows the server further.
    long waitMs = Math.max(wait.toMillis(), Math.max(minWaitMs, Math.min(3 * recentAnswerMs, requestTimeoutMs / 2)));
    PendingDequeue q = new PendingDequeue(channel.nextId('d'), namespace, topics,
        now + waitMs, now + refreshMs);
    dequeues.put(q.requesterId(), q);
    sendDemands(q, q.wanted(), now);
    return handedTo(q);
  }

  /**
   * The caller's future of {@code q}: its items as {@link QueueItem}s. A caller that completes it first
   * (cancels it, or times it out) ends the dequeue; items that complete a dequeue its caller gave up
   * meanwhile are given back.
   */
  private CompletableFuture<List<QueueItem>> handedTo(PendingDequeue q) {
    CompletableFuture<List<QueueItem>> result = new CompletableFuture<>();
    result.whenComplete((items, e) -> q.future().cancel(false)); // a no-op once the dequeue completed it
    q.future().whenComplete((items, e) -> {
      if (e != null) {
        result.completeExceptionally(e instanceof java.util.concurrent.CompletionException c && c.getCause() != null
            ? c.getCause() : e);
      } else if (!result.complete(PublicTypes.items(items))) {
        items.forEach(item -> giveBack(item, GiveBackReason.CANCELLED)); // the caller cancelled meanwhile
      }
    });
    return result;
  }

  /** {@link #dequeue(String, Map, Duration)} of up to {@code count} items of one topic ({@code *}: any). */
  public CompletableFuture<List<QueueItem>> dequeue(String namespace, String topic, int count, Duration wait) {
    return dequeue(namespace, Map.of(topic == null ? "" : topic, count), wait);
  }

  /** Exact rounds a dequeue asks before it long-polls for what the stats could not give it. */
  private static final int MAX_EXACT_ROUNDS = 3;

  /**
   * Plans what {@code counts} still wants: a round of once demands to the partitions the stats show
   * holding the best items ({@link DemandPlan#fromStats}), or, when the stats show nothing to take (or
   * the dequeue has had its exact rounds), a long poll on every partition. Before the stats table is
   * read (a new client) it long-polls.
   */
  private void sendDemands(PendingDequeue q, Map<String, Integer> counts, long now) {
    int partitions = partitions();
    unreserve(q); // a new plan counts on items anew
    Set<Integer> allowed = breakers.allowed(partitions, now); // a partition whose breaker is open is not asked
    List<DemandPlan.Entry> ready = stats.caughtUp().isDone() ? stats.readyEntries(q.namespace()) : List.of();
    ready = ready.stream().filter(e -> allowed.contains(e.partition())).toList();
    DemandPlan plan = DemandPlan.fromStats(counts, ready, partitions, new DemandPlan.Sticky(lastServed, stickyMs));
    if (plan.asks().isEmpty() || q.rounds() >= MAX_EXACT_ROUNDS) {
      longPoll(q, counts, now, allowed);
      return;
    }
    // What the stats do not cover is asked of every partition, as a long poll's share: of the partitions
    // asked once, within their once demand (they may hold more than their stats said); of the others,
    // as standing demands.
    Map<Integer, Map<String, Integer>> once = new java.util.TreeMap<>(plan.asks());
    DemandPlan shares = plan.exact() ? null : DemandPlan.longPoll(uncovered(counts, plan), List.copyOf(allowed));
    if (shares != null) {
      shares.asks().forEach((p, share) -> once.computeIfPresent(p, (x, asked) -> merged(asked, share)));
    }
    Requester requester = new Requester(q.requesterId(), replyPartition);
    long roundTimeout = Math.max(PendingDequeue.roundTimeout(gatherMs, recentAnswerMs), minWaitMs);
    q.askedOnce(once, now, roundTimeout);
    q.reserve(plan.takes());
    plan.takes().forEach((entry, n) -> stats.reserve(q.namespace(), entry, n));
    long validFor = Math.min(q.deadline() - now, 2 * refreshMs) + DEMAND_SLACK_MS;
    once.forEach((p, asked) -> channel.send(Commands.demand(topics, p, requester, q.namespace(), asked, validFor, true,
        now, true, true, true)).whenComplete((m, e) -> failOnError(q, e)));
    if (shares != null) {
      Map<Integer, Map<String, Integer>> others = new java.util.TreeMap<>(shares.asks());
      others.keySet().removeAll(once.keySet());
      q.longPolled(others, now);
      others.keySet().forEach(p -> channel.send(Commands.demand(topics, p, requester, q.namespace(), shares.asks().get(p), validFor,
          true, now, true, false)).whenComplete((m, e) -> failOnError(q, e)));
    }
  }

  /** What {@code counts} wants beyond what {@code plan} asks, by key. */
  private static Map<String, Integer> uncovered(Map<String, Integer> counts, DemandPlan plan) {
    Map<String, Integer> left = new HashMap<>(counts);
    plan.asks().values().forEach(asked -> asked.forEach((key, n) -> left.merge(key, -n, Integer::sum)));
    left.values().removeIf(n -> n <= 0);
    return left;
  }

  private static Map<String, Integer> merged(Map<String, Integer> a, Map<String, Integer> b) {
    Map<String, Integer> out = new java.util.TreeMap<>(a);
    b.forEach((key, n) -> out.merge(key, n, Integer::sum));
    return out;
  }

  /**
   * Standing demands for a share of {@code counts} ({@link DemandPlan#longPoll}) on every partition but
   * those whose once demand has items on their way (what comes from those is the once demand's).
   */
  private void longPoll(PendingDequeue q, Map<String, Integer> counts, long now) {
    longPoll(q, counts, now, breakers.allowed(partitions(), now));
  }

  /** {@link #longPoll(PendingDequeue, Map, long)} on the partitions of {@code allowed} (their breakers closed). */
  private void longPoll(PendingDequeue q, Map<String, Integer> counts, long now, Set<Integer> allowed) {
    List<Integer> free = new ArrayList<>();
    Set<Integer> awaiting = q.awaitingOnce();
    for (int p = 0, n = partitions(); p < n; p++) {
      if (!awaiting.contains(p) && allowed.contains(p)) {
        free.add(p);
      }
    }
    if (counts.isEmpty() || free.isEmpty()) {
      q.longPolled(Map.of(), now);
      return;
    }
    DemandPlan plan = DemandPlan.longPoll(counts, free);
    Requester requester = new Requester(q.requesterId(), replyPartition);
    long validFor = Math.min(q.deadline() - now, 2 * refreshMs) + DEMAND_SLACK_MS;
    q.longPolled(plan.asks(), now);
    plan.asks().forEach((p, asked) -> channel.send(Commands.demand(topics, p, requester, q.namespace(), asked, validFor, true,
        now, true, false)).whenComplete((m, e) -> failOnError(q, e)));
  }

  private static void failOnError(PendingDequeue q, Throwable e) {
    if (e != null) {
      q.fail(e);
    }
  }

  /** Gives back what the dequeue still counts on, so other dequeues plan with those items. */
  private void unreserve(PendingDequeue q) {
    q.dropReservations().forEach((entry, n) -> stats.reserve(q.namespace(), entry, -n));
  }

  /** Cancels the standing demands of a long poll: nothing more is leased to the dequeue after them. */
  private void cancelDemands(PendingDequeue q, long now) {
    Requester requester = new Requester(q.requesterId(), replyPartition);
    for (int p : q.lingering()) {
      channel.send(Commands.demand(topics, p, requester, q.namespace(), Map.of(), 1, true, now, false))
          .whenComplete((m, e) -> {
            if (e != null) {
              log.warn("Could not cancel the demand of {}; it lapses by itself", q.requesterId(), e);
            }
          });
    }
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

  /**
   * An item leased for a dequeue that no longer takes it (it came late, or was surplus): to another
   * open dequeue of this client that wants it ({@link PendingDequeue#takes}), else given back unseen
   * for {@code reason}. Poll thread only.
   */
  private void passOn(DeliveredItem item, String from, GiveBackReason reason) {
    PendingDequeue other = PendingDequeue.taker(dequeues.values(), item, from);
    if (other != null) {
      String entry = DemandPlan.entryKey(ItemId.parse(item.getItemId()).partition(), item.getTopic());
      if (other.useReservation(entry)) {
        stats.reserve(other.namespace(), entry, -1);
      }
      other.handOver(item, time.milliseconds());
      handedOver.incrementAndGet();
    } else {
      giveBack(item, reason);
    }
  }

  /** Items of finished dequeues handed to other open dequeues instead of being given back, since start. */
  public long handedOver() {
    return handedOver.get();
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

  // ---- the poll thread ----

  private void pollLoop() {
    try {
      while (channel.running()) {
        try {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
            if (r.topic().equals(stats.topic())) {
              stats.apply(r);
            } else {
              onReply(r);
            }
          }
          requests.completeCollected();
          stats.checkCaughtUp(consumer);
        } catch (WakeupException e) {
          continue; // close() asked us to stop
        } catch (KafkaException e) {
          long now = time.milliseconds();
          if (now - lastWarning > 10_000) {
            lastWarning = now;
            log.warn("Reading replies of client {} failed; retrying", clientId, e);
          }
        }
        long now = time.milliseconds();
        for (PendingDequeue q : dequeues.values()) {
          step(q, now);
        }
        if (now >= nextTimeoutSweep) {
          requests.failTimedOut(now);
          nextTimeoutSweep = now + TIMEOUT_SWEEP_MS;
        }
      }
    } catch (RuntimeException e) {
      log.error("The reply thread of client {} failed; the client stops", clientId, e);
      channel.stop();
    } finally {
      if (!halted) {
        failPending();
      }
      consumer.close(halted ? Duration.ZERO : Duration.ofSeconds(5));
    }
  }

  /** How this client reads the queue's records. */
  dev.ordo.serde.WireFormat wireFormat() {
    return wire;
  }

  private void onReply(ConsumerRecord<byte[], byte[]> record) {
    Delivery delivery;
    try {
      delivery = wire.decode(OrdoSerdes.DELIVERY, record.value());
    } catch (OrdoSerdeException e) {
      log.warn("Skipping undecodable delivery at {}-{}@{}: {}", record.topic(), record.partition(), record.offset(),
          e.getMessage());
      return;
    }
    String requesterId = delivery.getRequesterId();
    if (delivery.getBody() instanceof dev.ordo.schema.Enqueued answer && channel.isOwn(requesterId, 'e')) {
      requests.enqueued(requesterId, answer);
    } else if (delivery.getBody() instanceof Outcomes many && channel.isOwn(requesterId, 'c')) {
      requests.outcomes(requesterId, many);
    } else if (delivery.getBody() instanceof Outcome outcome && channel.isOwn(requesterId, 'c')) {
      requests.outcome(requesterId, outcome);
    } else if (channel.isOwn(requesterId, 'd')) {
      PendingDequeue q = dequeues.get(requesterId);
      if (delivery.getBody() instanceof Outcome o && o.getCommand() == CommandKind.DEMAND && o.getPartition() != null) {
        if (q != null) {
          int partition = o.getPartition();
          breakers.answered(partition, time.milliseconds());
          for (String key : q.answeredOnce(partition, o.getGranted() == null ? -1 : o.getGranted())) {
            stats.exhausted(q.namespace(), key, partition); // it had fewer than its stats showed
          }
        }
        return;
      }
      for (DeliveredItem item : Deliveries.items(delivery)) {
        int from = ItemId.parse(item.getItemId()).partition();
        breakers.answered(from, time.milliseconds());
        stats.taken(item.getNamespace(), item.getTopic(), from);
        lastServed = from;
        if (q != null) {
          String entry = DemandPlan.entryKey(from, item.getTopic());
          if (q.useReservation(entry)) {
            stats.reserve(q.namespace(), entry, -1);
          }
        }
        if (q == null || q.future().isDone()) {
          if (handedOut.containsKey(item.getItemId() + "/" + item.getLeaseId())) {
            log.debug("Item {} came again on a lease its caller holds; ignored", item.getItemId());
            continue; // never give back a lease a caller was handed
          }
          PendingDequeue ended = endedEmpty.remove(requesterId);
          if (ended != null) {
            observeAnswer(ended.answerTime(time.milliseconds()));
          }
          passOn(item, requesterId, GiveBackReason.LATE); // arrived after its dequeue finished
        } else {
          observeAnswer(q.offer(item, from, time.milliseconds()));
        }
      }
    }
  }

  /** A first item of an exact plan came {@code answerMs} after its demands (-1: not such an item). */
  private void observeAnswer(long answerMs) {
    if (answerMs >= 0) {
      recentAnswerMs += (answerMs - recentAnswerMs) / 4; // a moving average over the last few; poll thread only
    }
  }

  private void step(PendingDequeue q, long now) {
    if (q.future().isDone() || q.failure() != null) {
      // Cancelled by the caller, or a demand could not be sent.
      dequeues.remove(q.requesterId());
      unreserve(q);
      cancelDemands(q, now);
      q.received().forEach(item -> giveBack(item, GiveBackReason.CANCELLED));
      if (q.failure() != null) {
        callbacks.execute(() -> q.future().completeExceptionally(q.failure()));
      }
    } else if (askMore(q, now)) {
      return; // a partition that served its whole share is asked once for the rest
    } else if (q.shouldFinish(now, gatherMs, answerGraceMs)) {
      dequeues.remove(q.requesterId());
      if (q.received().isEmpty() && q.rounds() > 0) {
        endedEmpty.put(q.requesterId(), q); // its answer is late: when it comes, it says how late
      }
      unreserve(q);
      cancelDemands(q, now);
      Selection s = Selection.of(q.wanted(), q.received());
      s.chosen().forEach(item -> handedOut.put(item.getItemId() + "/" + item.getLeaseId(), Boolean.TRUE));
      s.surplus().forEach(item -> passOn(item, q.requesterId(), GiveBackReason.SURPLUS));
      callbacks.execute(() -> {
        if (!q.future().complete(s.chosen())) {
          s.chosen().forEach(item -> giveBack(item, GiveBackReason.CANCELLED)); // the caller cancelled meanwhile
        }
      });
    } else if (q.roundSettled()) {
      // The round brought nothing before the deadline: its partitions had fewer than their stats said.
      sendDemands(q, q.stillWanted(), now);
      q.refreshed(now + refreshMs);
    } else if (q.roundOverdue(now)) {
      // Answers slow or lost: each silent partition is a timeout for its breaker; one that opened is not
      // waited for any longer (decisions D58). Long-poll for what the rest do not cover; what they bring
      // still counts.
      Set<Integer> tripped = new java.util.TreeSet<>();
      for (int p : q.awaitingOnce()) {
        breakers.timedOut(p, now);
        if (breakers.tripped(p)) {
          tripped.add(p);
        }
      }
      q.abandon(tripped);
      longPoll(q, q.stillUncovered(), now);
      q.refreshed(now + refreshMs);
    } else if (!q.lingering().isEmpty() && q.refreshDue(now)) {
      longPoll(q, q.stillUncovered(), now); // standing demand lost when a queue partition moves is rebuilt
      q.refreshed(now + refreshMs);
    }
  }

  /**
   * A long-polled partition that served its whole share may hold more of what is still wanted: it is
   * asked once for it (the others' standing demands keep their shares). True when it was.
   */
  private boolean askMore(PendingDequeue q, long now) {
    Set<Integer> filled = q.takeFilled();
    Map<String, Integer> still = q.stillUncovered();
    if (filled.isEmpty() || still.isEmpty()) {
      return false;
    }
    Requester requester = new Requester(q.requesterId(), replyPartition);
    long validFor = Math.min(q.deadline() - now, 2 * refreshMs) + DEMAND_SLACK_MS;
    DemandPlan.longPoll(still, filled).asks().forEach((p, share) -> {
      q.askedMore(p, share);
      channel.send(Commands.demand(topics, p, requester, q.namespace(), share, validFor, true, now, true, true, true))
          .whenComplete((m, e) -> failOnError(q, e));
    });
    return true;
  }

  private void failPending() {
    ClientClosedException closed = channel.closed();
    for (PendingDequeue q : dequeues.values()) {
      dequeues.remove(q.requesterId());
      unreserve(q);
      q.received().forEach(item -> giveBack(item, GiveBackReason.CANCELLED));
      q.future().completeExceptionally(closed);
    }
    requests.failAll(closed);
  }

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
    clientMeters.bind(registry, consumer);
    BreakerMeters.bind(registry, breakers, partitions(), clientId, time);
  }

  private final dev.ordo.client.internal.ClientMeters clientMeters = new dev.ordo.client.internal.ClientMeters();

  /** Fails what is pending, releases items of unfinished dequeues, and closes the Kafka clients. */
  public void close(Duration timeout) {
    clientMeters.close();
    if (!channel.running() && !thread.isAlive()) {
      return;
    }
    acks.flushAll();
    acks.shutdown();
    channel.stop();
    consumer.wakeup();
    join(timeout);
    channel.closeProducer(timeout);
    callbacks.shutdown();
  }

  /**
   * Stops as a killed process would: reading ends and the Kafka clients are dropped without sending
   * anything more, pending calls left as they are. Package-private: the seam through which tests of
   * this package (and {@link LeaseConsumer#halt}) crash a client.
   */
  void halt() {
    halted = true;
    channel.stop();
    consumer.wakeup();
    channel.closeProducer(Duration.ZERO);
    acks.shutdownNow();
    join(Duration.ofSeconds(10));
    callbacks.shutdownNow();
  }

  private void join(Duration timeout) {
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      thread.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
