package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Deliveries;
import dev.ordo.api.ItemId;
import dev.ordo.client.internal.Backoff;
import dev.ordo.client.internal.CreditSplit;
import dev.ordo.client.internal.GroupPollLoop;
import dev.ordo.client.internal.InFlightLimit;
import dev.ordo.client.internal.Job;
import dev.ordo.client.internal.SpareCapacity;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka-native worker of the queue: joins a consumer group on {@code <cluster>.deliveries},
 * asks the queue for items of the partitions it owns, and runs an {@link ItemHandler} on each on a
 * worker pool, heartbeating, acking and nacking for it. Talks only to Kafka.
 *
 * <p>How it works, step by step:
 * <ol>
 *   <li><b>Demand.</b> For each partition {@code p} it owns, it sends a demand to
 *       {@code commands} partition {@code p} with itself as requester and {@code p} as reply
 *       partition, for the partition's share of the free slots ({@code max.in.flight} split over
 *       the owned partitions). The demand is re-sent (replacing) every refresh interval, valid for
 *       a few intervals, so the queue stops sending to a consumer that died and rebuilds demand lost
 *       when a queue task moved. When an item finishes, its slot is added back at once (a demand
 *       with replace=false).</li>
 *   <li><b>Window.</b> The slots are {@code max.in.flight} while every item goes through; when even
 *       the quickest items of a quarter second waited (for a worker here, or their acks at the
 *       queue) longer than {@code queueing.target.ms} beyond the quickest of the last 30 s, the
 *       consumer asks for fewer (a fifth, more the longer the delay, half at most), and grows back
 *       while they do not ({@link InFlightLimit},
 *       decisions D41).</li>
 *   <li><b>Work.</b> Each item delivered to it starts on a worker thread. What arrives beyond
 *       {@code max.in.flight} (demand crossing deliveries in flight) is released at once.</li>
 *   <li><b>Heartbeats.</b> When {@code heartbeat.fraction} of a running item's lease has passed,
 *       the lease is extended by its duration. A heartbeat answered STALE_LEASE or UNKNOWN_ITEM
 *       (the item was cancelled, acked or redelivered), or no successful heartbeat before the
 *       lease's local deadline, means the lease is lost: the handler's thread is interrupted and
 *       nothing is acked or nacked for it.</li>
 *   <li><b>Outcome.</b> Normal return: ack. {@link RetryLater}: nack with its delay.
 *       {@link DeadLetterNow}: nack to the dead-letter topic. Any other exception: nack with
 *       exponential backoff; the queue dead-letters the item at its max attempts.</li>
 *   <li><b>Rebalance.</b> On revoke it cancels its demand on the partition and commits its read
 *       position with a hand-over mark, and keeps working on (and acking) the items it already has:
 *       commands route by the item's partition, not by who owns the deliveries partition. The new
 *       owner starts reading at that position, so what was in transit to the old owner is read
 *       by the new one, which adopts it (the lease is not bound to a requester). After a crash
 *       there is no hand-over mark and nothing is adopted: the crashed member's items return when
 *       their leases run out.</li>
 *   <li><b>Close.</b> It stops asking, lets running handlers finish for the grace period (still
 *       heartbeating), then interrupts the rest and releases their items, commits and leaves.</li>
 * </ol>
 *
 * <p>An embedded {@link QueueClient} carries the consumer's own acks and heartbeats; {@link #client()}
 * gives it for dequeues and commands of the caller's own, and {@link #activeTopics} reads through it.
 * They work without {@link #start}.
 */
public final class LeaseConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseConsumer.class);
  private static final long POLL_MS = 50;
  /**
   * Poll timeout while items are in flight: a finished item's slot is given back to the queue when the
   * poll returns, so a long poll would hold the slot idle that long.
   */
  private static final long POLL_BUSY_MS = 5;
  private static final String HANDOFF = "ordo-handoff";
  private static final String RUNNING = "ordo-running";
  /** Foreign items this close to their lease's end are not adopted: they are about to come back anyway. */
  private static final long ADOPT_MIN_LEASE_LEFT_MS = 500;
  /** The fewest items the window shrinks to (or the workers, when more; never more than max.in.flight). */
  private static final int MIN_WINDOW = 8;

  private enum State { NEW, RUNNING, CLOSING, CLOSED }

  private final LeaseConsumerConfig config;
  private final ClusterTopics topics;
  private final QueueClient client;
  private final String requesterId;
  private final String memberPrefix;
  private final String namespace;
  private final List<String> topicNames;
  private final int maxInFlight;
  /** The window: how many of its max.in.flight the consumer asks for now (decisions D41). */
  private final InFlightLimit window;
  private final long refreshMs;
  private final long validityMs;
  private final double heartbeatFraction;
  private final Backoff backoff;
  private final Time time;
  /** {@link ConsumerFaults#NONE} but in tests. */
  private final ConsumerFaults faults;
  /** Empty dequeues and busy ratio (decisions D58). */
  private final SpareCapacity spare;

  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final Map<String, Job> jobs = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicInteger> inFlightByPartition = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Job> finished = new ConcurrentLinkedQueue<>();
  private final Object idle = new Object();
  /**
   * Held while a delivery becomes a job and while close turns the consumer to CLOSING: a job is either
   * in {@link #jobs} before close looks at them, or its delivery sees CLOSING and is released.
   */
  private final Object admission = new Object();
  /** Acks and nacks sent and not yet answered: close waits for them. */
  private final Set<CompletableFuture<Outcome>> settling = ConcurrentHashMap.newKeySet();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final Counters counters = new Counters();

  // Poll thread only.
  private final Map<Integer, Owned> owned = new TreeMap<>();
  /**
   * Items the queue granted this consumer, by the partition that granted them: with the free slots,
   * the limit of each demand (flow control, decisions D50), so that items still in transit are not
   * asked for again.
   */
  private final Map<Integer, Long> receivedFrom = new HashMap<>();
  private int rotation;
  private long nextResync;
  private long nextCommit;
  private boolean demandCancelled;

  private volatile Set<Integer> assignment = Set.of();
  private volatile boolean stopPolling;
  private volatile boolean halted;
  private KafkaConsumer<byte[], byte[]> consumer;
  private ExecutorService workers;
  private GroupPollLoop loop;
  private ItemHandler handler;

  /** A partition this consumer owns: whether its previous owner handed it over cleanly. */
  private record Owned(boolean cleanHandoff) {}

  public LeaseConsumer(Map<String, ?> config) {
    this(new LeaseConsumerConfig(config));
  }

  public LeaseConsumer(LeaseConsumerConfig config) {
    this(config, ConsumerFaults.NONE);
  }

  /** {@code faults}: the seam tests of this package fail the consumer through. */
  LeaseConsumer(LeaseConsumerConfig config, ConsumerFaults faults) {
    this.config = config;
    this.faults = faults;
    this.time = config.time();
    this.topics = config.topics();
    this.requesterId = config.requesterId();
    this.memberPrefix = config.groupId() + "/m-";
    this.namespace = config.namespace();
    this.topicNames = List.copyOf(config.topicNames());
    this.maxInFlight = config.maxInFlight();
    this.window = new InFlightLimit(maxInFlight, Math.max(MIN_WINDOW, config.workers()),
        config.queueingTarget().toNanos());
    this.refreshMs = config.demandRefresh().toMillis();
    this.validityMs = config.demandValidity().toMillis();
    this.heartbeatFraction = config.heartbeatFraction();
    this.backoff = config.backoff();
    this.client = new QueueClient(config.clientConfig());
    this.spare = new SpareCapacity(topicNames, config.workers(), config.clientConfig().busyWindow().toMillis(),
        time.milliseconds());
  }

  // ---- high level ----

  /** Joins the group and starts working on items with {@code handler}; returns at once. */
  public void start(ItemHandler handler) {
    if (handler == null) {
      throw new IllegalArgumentException("handler is missing");
    }
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException("consumer " + requesterId + " was already started or closed");
    }
    this.handler = handler;
    try {
      this.consumer = new KafkaConsumer<>(config.groupConsumerConfigs());
    } catch (RuntimeException e) {
      state.set(State.NEW);
      throw e;
    }
    AtomicInteger n = new AtomicInteger();
    this.workers = Executors.newFixedThreadPool(config.workers(), r -> {
      Thread t = new Thread(r, requesterId + "-worker-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.loop = new GroupPollLoop(requesterId + "-poll", consumer, time);
    loop.start(List.of(topics.deliveries()), new Rebalance(), new Turns());
  }

  /**
   * {@link #start} and wait until {@link #close} is called from another thread.
   *
   * @throws ExecutionException if the consumer stopped on a fatal Kafka error
   */
  public void run(ItemHandler handler) throws InterruptedException, ExecutionException {
    start(handler);
    terminated.get();
  }

  /** The partitions of {@code <cluster>.deliveries} this consumer owns now. */
  public Set<Integer> assignment() {
    return assignment;
  }

  /** A snapshot of what this consumer did so far. */
  public LeaseConsumerStats stats() {
    return counters.snapshot(jobs.size(), window.limit(), spare.emptyDequeues(), spare.busyRatio(time.milliseconds()));
  }

  /**
   * Exports this consumer's spare capacity to {@code registry}, by namespace, topic (each it serves) and
   * group: {@code ordo_consumer_empty_dequeues_total} and {@code ordo_consumer_busy_ratio} (decisions
   * D58); and its embedded client's Kafka metrics ({@link QueueClient#bindMetrics}).
   */
  public void bindMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
    client.bindMetrics(registry);
    for (String topic : spare.topics()) {
      String[] tags = {"namespace", namespace, "topic", topic, "group", config.groupId()};
      io.micrometer.core.instrument.FunctionCounter.builder("ordo.consumer.empty.dequeues", spare,
              SpareCapacity::emptyDequeues)
          .description("Polls that brought no item to an idle consumer (nothing running or waiting), for each topic served")
          .tags(tags).register(registry);
      io.micrometer.core.instrument.Gauge.builder("ordo.consumer.busy.ratio", spare,
              s -> s.busyRatio(topic, time.milliseconds()))
          .description("Fraction of the handler slots' time spent running handlers of the topic's items over"
              + " the recent window (1: saturated, 0: spare capacity)")
          .tags(tags).register(registry);
    }
  }

  /** This consumer's requester id, {@code <group>/m-<random>}. */
  public String requesterId() {
    return requesterId;
  }

  // ---- its window, and the embedded client ----

  /**
   * How many items this consumer asks the queue to hold leased to it now: {@code max.in.flight}, or
   * fewer while more would only queue ({@link LeaseConsumerConfig#QUEUEING_TARGET_CONFIG}).
   */
  public int window() {
    return window.limit();
  }

  /** {@link QueueClient#activeTopics} of this consumer's namespace. */
  public CompletableFuture<List<TopicActivity>> activeTopics() {
    return client.activeTopics(namespace);
  }

  public CompletableFuture<List<TopicActivity>> activeTopics(String namespace) {
    return client.activeTopics(namespace);
  }

  /**
   * The embedded client, for anything else: dequeues of its own and commands on items
   * ({@link QueueClient#ack(dev.ordo.api.ItemId, String)}...), sent with this consumer's client id.
   */
  public QueueClient client() {
    return client;
  }

  // ---- the poll thread ----

  /** The poll thread's turns: ask, heartbeat and commit, then take what the poll brought. */
  private final class Turns implements GroupPollLoop.Turn {
    @Override
    public long beforePoll(long now) {
      if (stopPolling) {
        return GroupPollLoop.STOP;
      }
      if (window.advance(System.nanoTime())) {
        nextResync = now; // a smaller window: take back the demand beyond it now
      }
      creditFinished();
      if (state.get() == State.RUNNING && now >= nextResync) {
        resync(now);
      } else if (state.get() == State.CLOSING && !demandCancelled) {
        cancelDemand(owned.keySet());
        demandCancelled = true;
      }
      heartbeats(now);
      if (now >= nextCommit) {
        commit(false);
        nextCommit = now + refreshMs;
      }
      return jobs.isEmpty() ? POLL_MS : POLL_BUSY_MS;
    }

    @Override
    public void onRecords(ConsumerRecords<byte[], byte[]> records) {
      spare.polled(records.count(), state.get() == State.RUNNING && jobs.isEmpty()); // an idle poll's full wait
      for (ConsumerRecord<byte[], byte[]> r : records) {
        onDelivery(r);
      }
    }

    @Override
    public void onEnd(Throwable failure) {
      if (failure != null) {
        log.error("Consumer {} stopped on a fatal error; interrupting its handlers, whose leases no one extends now",
            requesterId, failure);
        for (Job job : jobs.values()) {
          lose(job, "the consumer stopped: " + failure);
        }
      }
      try {
        consumer.close(halted ? Duration.ofSeconds(1) : Duration.ofSeconds(10));
      } catch (RuntimeException e) {
        log.warn("Closing the group consumer of {} failed", requesterId, e);
      }
      assignment = Set.of();
      if (failure != null) {
        terminated.completeExceptionally(failure);
      }
    }
  }

  private void onDelivery(ConsumerRecord<byte[], byte[]> record) {
    Delivery delivery;
    try {
      delivery = client.wireFormat().decode(OrdoSerdes.DELIVERY, record.value());
    } catch (OrdoSerdeException e) {
      log.warn("Skipping undecodable delivery at {}-{}@{}: {}", record.topic(), record.partition(), record.offset(),
          e.getMessage());
      return;
    }
    long now = time.milliseconds();
    String to = delivery.getRequesterId();
    for (DeliveredItem item : Deliveries.items(delivery)) {
      onDeliveredItem(to, item, record, now);
    }
  }

  private void onDeliveredItem(String to, DeliveredItem item, ConsumerRecord<byte[], byte[]> record, long now) {
    if (to.equals(requesterId)) {
      receivedFrom.merge(ItemId.parse(item.getItemId()).partition(), 1L, Long::sum);
      accept(item, record, now, false);
    } else if (isGroupMember(to)) {
      Owned o = owned.get(record.partition());
      // Only what a member handed over cleanly was never read by it; anything else may be in its hands.
      if (o != null && o.cleanHandoff() && item.getLeaseExpiresAt() - record.timestamp() > 0
          && item.getLeaseExpiresAt() > now + ADOPT_MIN_LEASE_LEFT_MS) {
        log.debug("Adopting item {} in transit to {} when it handed partition {} over", item.getItemId(), to,
            record.partition());
        accept(item, record, now, true);
      }
    }
  }

  /** Another member of this group: {@code <group>/m-<id>}, with no further '/'. */
  private boolean isGroupMember(String id) {
    return id.startsWith(memberPrefix) && id.indexOf('/', memberPrefix.length()) < 0;
  }

  private void accept(DeliveredItem item, ConsumerRecord<byte[], byte[]> record, long now, boolean adopted) {
    if (jobs.containsKey(Job.key(item))) {
      return; // the same lease twice: it is being worked on
    }
    Job job = new Job(item, record.partition(), record.timestamp(), now, heartbeatFraction);
    boolean taken;
    synchronized (admission) {
      taken = state.get() == State.RUNNING && jobs.size() < maxInFlight;
      if (taken) {
        jobs.put(job.key(), job);
      }
    }
    if (!taken) {
      counters.released.incrementAndGet();
      client.giveBack(item, state.get() == State.RUNNING ? GiveBackReason.OVER_CAPACITY : GiveBackReason.CLOSING);
      return;
    }
    inFlightByPartition.computeIfAbsent(job.partition(), p -> new AtomicInteger()).incrementAndGet();
    counters.delivered.incrementAndGet();
    if (adopted) {
      counters.adopted.incrementAndGet();
    }
    long queuedAt = System.nanoTime();
    workers.execute(() -> work(job, queuedAt));
  }

  /** Gives back a finished item's slot to its partition at once, rather than at the next resync. */
  private void creditFinished() {
    Map<Integer, Integer> done = new HashMap<>();
    for (Job job = finished.poll(); job != null; job = finished.poll()) {
      done.merge(job.partition(), 1, Integer::sum);
    }
    if (state.get() != State.RUNNING || done.isEmpty()) {
      return;
    }
    Map<Integer, Integer> credits = credits();
    done.forEach((p, n) -> {
      if (credits.containsKey(p)) {
        demand(p, credits.get(p));
      }
    });
  }

  /** Re-sends every owned partition's demand: its free slots, replacing the previous demand. */
  private void resync(long now) {
    rotation++;
    credits().forEach(this::demand);
    nextResync = now + refreshMs;
  }

  private Map<Integer, Integer> credits() {
    Map<Integer, Integer> inFlight = new HashMap<>();
    inFlightByPartition.forEach((p, n) -> inFlight.put(p, n.get()));
    return CreditSplit.credits(window.limit(), new ArrayList<>(owned.keySet()), inFlight, jobs.size(), rotation);
  }

  private Map<String, Integer> counts(int n) {
    Map<String, Integer> counts = new HashMap<>();
    if (n > 0) {
      topicNames.forEach(t -> counts.put(t, n));
    }
    return counts;
  }

  /**
   * Asks a partition for {@code credit} more items than it granted this consumer: the demand's limit is
   * what came from it plus the credit, so items still in transit count against it (decisions D50).
   */
  private void demand(int partition, int credit) {
    long received = receivedFrom.getOrDefault(partition, 0L);
    client.sendFlowDemand(partition, new Requester(requesterId, partition), namespace, counts(credit), validityMs,
            received + credit, received)
        .whenComplete((m, e) -> {
          if (e != null) {
            log.warn("Could not send the demand of {} to partition {}; retrying at the next refresh", requesterId,
                partition, e);
          }
        });
  }

  private void cancelDemand(Collection<Integer> partitions) {
    for (int p : partitions) {
      client.sendDemand(p, new Requester(requesterId, p), namespace, Map.of(), validityMs, true);
    }
  }

  private void heartbeats(long now) {
    for (Job job : jobs.values()) {
      if (job.expired(now)) {
        lose(job, "no heartbeat was answered before the lease ran out");
      } else if (job.heartbeatDue(now) && !faults.heartbeatsHeld()) {
        job.heartbeatSent();
        long sentAt = now;
        client.extendBatched(job.id(), job.item().getLeaseId(), Duration.ofMillis(job.leaseMs())).whenComplete((o, e) -> {
          if (e != null) {
            log.debug("Heartbeat of {} failed: {}", job.id(), e.toString());
            job.heartbeatFailed(time.milliseconds());
          } else if (o.getResult() == OutcomeResult.APPLIED) {
            counters.heartbeats.incrementAndGet();
            job.extended(sentAt);
          } else {
            job.heartbeatFailed(time.milliseconds());
            lose(job, "heartbeat refused: " + o.getResult() + (o.getDetail() == null ? "" : " (" + o.getDetail() + ")"));
          }
        });
      }
    }
  }

  private void lose(Job job, String reason) {
    if (job.lose(reason)) {
      counters.leaseLost.incrementAndGet();
      log.info("Lease of item {} lost: {}; interrupting its handler", job.id(), reason);
    }
  }

  private void commit(boolean handoff) {
    if (owned.isEmpty() || halted) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = positions(owned.keySet(), handoff);
    consumer.commitAsync(offsets, (o, e) -> {
      if (e != null) {
        log.debug("Committing positions of {} failed: {}", requesterId, e.toString());
      }
    });
  }

  private Map<TopicPartition, OffsetAndMetadata> positions(Collection<Integer> partitions, boolean handoff) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (int p : partitions) {
      TopicPartition tp = new TopicPartition(topics.deliveries(), p);
      long position = loop.blocking(() -> consumer.position(tp));
      offsets.put(tp, new OffsetAndMetadata(position, handoff ? HANDOFF : RUNNING));
    }
    return offsets;
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (halted || partitions.isEmpty()) {
        return;
      }
      Set<Integer> revoked = new HashSet<>();
      partitions.forEach(tp -> revoked.add(tp.partition()));
      cancelDemand(revoked);
      try {
        Map<TopicPartition, OffsetAndMetadata> handover = positions(revoked, true);
        loop.blocking(() -> {
          consumer.commitSync(handover);
          return null;
        });
      } catch (KafkaException e) {
        log.warn("Could not commit the hand-over of partitions {} by {}; items in transit wait for their lease",
            revoked, requesterId, e);
      }
      revoked.forEach(owned::remove);
      assignment = Set.copyOf(owned.keySet());
      log.info("Consumer {} handed over partitions {}; keeps {}", requesterId, revoked, owned.keySet());
      nextResync = 0; // the remaining partitions' shares grew
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      partitions.forEach(tp -> owned.remove(tp.partition()));
      assignment = Set.copyOf(owned.keySet());
      log.warn("Consumer {} lost partitions {} (left the group without handing them over)", requesterId, partitions);
      nextResync = 0;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (halted || partitions.isEmpty()) {
        return;
      }
      Map<TopicPartition, OffsetAndMetadata> committed = loop.blocking(() -> consumer.committed(new HashSet<>(partitions)));
      for (TopicPartition tp : partitions) {
        OffsetAndMetadata c = committed.get(tp);
        // Resolve the position before demanding: replies must not land before where we read.
        loop.blocking(() -> consumer.position(tp));
        owned.put(tp.partition(), new Owned(c != null && HANDOFF.equals(c.metadata())));
      }
      assignment = Set.copyOf(owned.keySet());
      log.info("Consumer {} now owns partitions {}", requesterId, owned.keySet());
      nextResync = 0;
    }
  }

  // ---- workers ----

  private void work(Job job, long queuedAt) {
    long waited = System.nanoTime() - queuedAt;
    boolean ok = false;
    Throwable failure = null;
    boolean bound = job.bind(Thread.currentThread());
    if (bound) {
      String topic = job.item().getTopic();
      spare.handlerStarted(topic, time.milliseconds());
      try {
        handler.handle(new LeasedItem(job));
        ok = true;
      } catch (Throwable t) {
        failure = t;
      } finally {
        spare.handlerEnded(topic, time.milliseconds());
        job.unbind();
      }
    }
    try {
      if (bound && !halted) {
        settle(job, ok, failure, waited);
      }
    } catch (RuntimeException e) {
      log.error("Could not settle item {}; it returns when its lease runs out", job.id(), e);
    } finally {
      jobs.remove(job.key());
      inFlightByPartition.get(job.partition()).decrementAndGet();
      finished.add(job);
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  /** Acks, nacks or releases a finished item as its handler's ending asks. */
  private void settle(Job job, boolean ok, Throwable failure, long waited) {
    DeliveredItem item = job.item();
    if (job.released()) {
      return; // close already gave it back
    }
    if (ok) {
      long sentAt = System.nanoTime();
      track(client.ackBatched(item)).whenComplete((o, e) -> {
        if (o != null && o.getResult() == OutcomeResult.APPLIED) {
          window.sample(waited + System.nanoTime() - sentAt);
          counters.acked.incrementAndGet();
        } else {
          counters.ackRefused.incrementAndGet();
          log.info("Ack of item {} not applied: {}", job.id(), e != null ? e.toString() : o.getResult() + " " + o.getDetail());
        }
      });
      return;
    }
    if (job.lost() != null) {
      return; // the item is no longer ours to nack
    }
    if (job.interruptedByClose()) {
      counters.released.incrementAndGet();
      client.releaseQuietly(item); // its handler ran: a plain release (an at-most-once item is dropped)
      return;
    }
    NackOptions nack;
    if (failure instanceof RetryLater r) {
      nack = NackOptions.retryAfter(r.delay()).withMetadata(r.metadata()).withError(describe(r));
    } else if (failure instanceof DeadLetterNow d) {
      nack = NackOptions.deadLetter(describe(d));
    } else {
      long delay = backoff.delayMs(item.getAttempt(), ThreadLocalRandom.current().nextDouble());
      nack = NackOptions.retryAfter(Duration.ofMillis(delay)).withError(describe(failure));
      log.debug("Handler failed on item {} attempt {}; retry in {} ms", job.id(), item.getAttempt(), delay, failure);
    }
    boolean deadLetter = nack.deadLetter();
    track(client.nackBatched(item, nack)).whenComplete((o, e) -> {
      if (o != null && o.getResult() == OutcomeResult.APPLIED) {
        counters.nacked.incrementAndGet();
        if (deadLetter || o.getDeadLetterReason() != null) {
          counters.deadLettered.incrementAndGet();
        }
      } else {
        log.info("Nack of item {} not applied: {}", job.id(), e != null ? e.toString() : o.getResult() + " " + o.getDetail());
      }
    });
  }

  private CompletableFuture<Outcome> track(CompletableFuture<Outcome> outcome) {
    settling.add(outcome);
    outcome.whenComplete((o, e) -> settling.remove(outcome));
    return outcome;
  }

  private static String describe(Throwable t) {
    if (t instanceof HandlerSignal) {
      return t.getMessage();
    }
    String text = t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    return text.length() > NackOptions.MAX_ERROR_LENGTH ? text.substring(0, NackOptions.MAX_ERROR_LENGTH) : text;
  }

  // ---- closing ----

  @Override
  public void close() {
    close(config.closeGrace());
  }

  /**
   * Stops asking for items, lets running handlers finish for up to {@code grace}, interrupts the
   * rest and releases their items, then commits, leaves the group and closes the Kafka clients.
   */
  public void close(Duration grace) {
    if (state.compareAndSet(State.NEW, State.CLOSED)) {
      client.close();
      terminated.complete(null);
      return;
    }
    synchronized (admission) {
      if (!state.compareAndSet(State.RUNNING, State.CLOSING)) {
        return;
      }
    }
    loop.wake();
    // Items still waiting for a worker go back at once; running ones get the grace period.
    for (Job job : jobs.values()) {
      if (job.releaseIfNotStarted()) {
        counters.released.incrementAndGet();
        client.giveBack(job.item(), GiveBackReason.CLOSING); // its handler never started: nobody saw it
      }
    }
    long deadline = time.milliseconds() + grace.toMillis();
    awaitIdle(deadline);
    if (!jobs.isEmpty()) {
      log.info("Consumer {} closing: interrupting {} handlers still running after the grace period", requesterId,
          jobs.size());
      jobs.values().forEach(Job::interruptForClose);
      awaitIdle(time.milliseconds() + 1_000);
      for (Job job : jobs.values()) {
        if (job.markReleased()) {
          counters.released.incrementAndGet();
          client.releaseQuietly(job.item()); // its handler ran: a plain release (an at-most-once item is dropped)
        }
      }
    }
    awaitSettled(deadline);
    stopPolling = true;
    loop.wake();
    loop.join(Duration.ofSeconds(30));
    workers.shutdownNow();
    client.close();
    state.set(State.CLOSED);
    terminated.complete(null);
  }

  private void awaitIdle(long deadline) {
    synchronized (idle) {
      long left;
      while (!jobs.isEmpty() && (left = deadline - time.milliseconds()) > 0) {
        try {
          idle.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Waits for the answers to acks and nacks already sent: until the grace ends, and at least a moment. */
  private void awaitSettled(long deadline) {
    CompletableFuture<?>[] pending = settling.toArray(CompletableFuture[]::new);
    if (pending.length == 0) {
      return;
    }
    long wait = Math.max(deadline - time.milliseconds(), 1_000);
    try {
      CompletableFuture.allOf(pending).get(wait, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // every one was answered or failed; failures were logged where they were settled
    } catch (java.util.concurrent.TimeoutException e) {
      log.info("Consumer {} closing with {} acks or nacks unanswered; they were sent and may still apply",
          requesterId, settling.size());
    }
  }

  /**
   * Stops as a killed process would: polling, heartbeating and working end at once and the Kafka
   * clients are dropped, with no ack, nack, release, demand cancel or hand-over sent. The consumer's
   * items return when their leases run out. Package-private: the seam through which tests of this
   * package crash a member of a group.
   */
  void halt() {
    halted = true;
    state.set(State.CLOSED);
    stopPolling = true;
    if (loop != null) {
      loop.wake();
      loop.join(Duration.ofSeconds(30));
    }
    if (workers != null) {
      workers.shutdownNow();
      try {
        workers.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    client.halt();
    terminated.complete(null);
  }

  private static final class Counters {
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong adopted = new AtomicLong();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong ackRefused = new AtomicLong();
    final AtomicLong nacked = new AtomicLong();
    final AtomicLong deadLettered = new AtomicLong();
    final AtomicLong released = new AtomicLong();
    final AtomicLong leaseLost = new AtomicLong();
    final AtomicLong heartbeats = new AtomicLong();

    LeaseConsumerStats snapshot(int running, int window, long emptyDequeues, double busyRatio) {
      return new LeaseConsumerStats(delivered.get(), adopted.get(), acked.get(), ackRefused.get(), nacked.get(),
          deadLettered.get(), released.get(), leaseLost.get(), heartbeats.get(), running, window, emptyDequeues,
          busyRatio);
    }
  }
}
