package dev.ordo.client;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Deliveries;
import dev.ordo.api.ItemId;
import dev.ordo.client.internal.GroupPollLoop;
import dev.ordo.client.internal.InFlightLimit;
import dev.ordo.client.internal.Job;
import dev.ordo.client.internal.SpareCapacity;
import dev.ordo.client.internal.SpareCapacityMeters;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Delivery;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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
  /** The fewest items the window shrinks to (or the workers, when more; never more than max.in.flight). */
  private static final int MIN_WINDOW = 8;

  private enum State { NEW, RUNNING, CLOSING, CLOSED }

  private final LeaseConsumerConfig config;
  private final ClusterTopics topics;
  private final QueueClient client;
  private final String requesterId;
  private final String namespace;
  private final List<String> topicNames;
  private final int maxInFlight;
  /** The window: how many of its max.in.flight the consumer asks for now (decisions D41). */
  private final InFlightLimit window;
  private final long refreshMs;
  private final double heartbeatFraction;
  private final Time time;
  /** Empty dequeues and busy ratio (decisions D58). */
  private final SpareCapacity spare;

  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final LeaseJobs jobs;
  private final LeaseDeliveries deliveries;
  /**
   * Held while a delivery becomes a job and while close turns the consumer to CLOSING: a job is either
   * in {@link #jobs} before close looks at them, or its delivery sees CLOSING and is released.
   */
  private final Object admission = new Object();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final LeaseCounters counters = new LeaseCounters();
  private final LeaseOutcomes outcomes;
  private final LeaseHeartbeats heartbeats;

  // Poll thread only.
  private final LeaseDemand demand;
  private long nextCommit;

  private volatile boolean stopPolling;
  private volatile boolean halted;
  private KafkaConsumer<byte[], byte[]> consumer;
  private LeaseWorkers workers;
  private GroupPollLoop loop;
  private volatile LeasePartitions partitions;

  public LeaseConsumer(Map<String, ?> config) {
    this(new LeaseConsumerConfig(config));
  }

  public LeaseConsumer(LeaseConsumerConfig config) {
    this(config, ConsumerFaults.NONE);
  }

  /** {@code faults}: the seam tests of this package fail the consumer through. */
  LeaseConsumer(LeaseConsumerConfig config, ConsumerFaults faults) {
    this.config = config;
    this.time = config.time();
    this.topics = config.topics();
    this.requesterId = config.requesterId();
    this.namespace = config.namespace();
    this.topicNames = List.copyOf(config.topicNames());
    this.maxInFlight = config.maxInFlight();
    this.window = new InFlightLimit(maxInFlight, Math.max(MIN_WINDOW, config.workers()),
        config.queueingTarget().toNanos());
    this.refreshMs = config.demandRefresh().toMillis();
    this.heartbeatFraction = config.heartbeatFraction();
    this.client = new QueueClient(config.clientConfig());
    this.jobs = new LeaseJobs(time);
    this.deliveries = new LeaseDeliveries(requesterId, config.groupId());
    this.demand = new LeaseDemand(client, requesterId, namespace, topicNames, window, refreshMs,
        config.demandValidity().toMillis(), jobs.inFlightByPartition());
    this.outcomes = new LeaseOutcomes(client, window, config.backoff(), counters);
    this.heartbeats = new LeaseHeartbeats(client, faults, time, counters);
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
    try {
      this.consumer = new KafkaConsumer<>(config.groupConsumerConfigs());
    } catch (RuntimeException e) {
      state.set(State.NEW);
      throw e;
    }
    this.workers = new LeaseWorkers(requesterId, config.workers(), handler, jobs, outcomes, spare, time, () -> halted);
    this.loop = new GroupPollLoop(requesterId + "-poll", consumer, time);
    this.partitions = new LeasePartitions(requesterId, topics.deliveries(), consumer, loop, demand, () -> halted);
    loop.start(List.of(topics.deliveries()), partitions, new Turns());
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
    LeasePartitions p = partitions;
    return p == null ? Set.of() : p.assignment();
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
    SpareCapacityMeters.bind(registry, spare, namespace, config.groupId(), time);
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
      Map<Integer, Integer> finished = jobs.takeFinished();
      State phase = state.get();
      demand.turn(now, phase == State.RUNNING, phase == State.CLOSING, partitions.owned(), jobs.size(), finished);
      heartbeats.beat(jobs.all(), now);
      if (now >= nextCommit) {
        partitions.commit();
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
        for (Job job : jobs.all()) {
          heartbeats.lose(job, "the consumer stopped: " + failure);
        }
      }
      try {
        consumer.close(halted ? Duration.ofSeconds(1) : Duration.ofSeconds(10));
      } catch (RuntimeException e) {
        log.warn("Closing the group consumer of {} failed", requesterId, e);
      }
      partitions.clear();
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
    switch (deliveries.route(to, partitions.handedOverCleanly(record.partition()), item.getLeaseExpiresAt(),
        record.timestamp(), now)) {
      case OWN -> {
        demand.received(ItemId.parse(item.getItemId()).partition());
        accept(item, record, now, false);
      }
      case ADOPT -> {
        log.debug("Adopting item {} in transit to {} when it handed partition {} over", item.getItemId(), to,
            record.partition());
        accept(item, record, now, true);
      }
      case SKIP -> { }
    }
  }

  private void accept(DeliveredItem item, ConsumerRecord<byte[], byte[]> record, long now, boolean adopted) {
    if (jobs.holds(item)) {
      return; // the same lease twice: it is being worked on
    }
    Job job = new Job(item, record.partition(), record.timestamp(), now, heartbeatFraction);
    boolean taken;
    synchronized (admission) {
      taken = state.get() == State.RUNNING && jobs.size() < maxInFlight;
      if (taken) {
        jobs.add(job);
      }
    }
    if (!taken) {
      outcomes.giveBack(item, state.get() == State.RUNNING ? GiveBackReason.OVER_CAPACITY : GiveBackReason.CLOSING);
      return;
    }
    counters.delivered.incrementAndGet();
    if (adopted) {
      counters.adopted.incrementAndGet();
    }
    workers.submit(job);
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
    outcomes.giveBackUnstarted(jobs.all());
    long deadline = time.milliseconds() + grace.toMillis();
    jobs.awaitIdle(deadline);
    if (!jobs.isEmpty()) {
      log.info("Consumer {} closing: interrupting {} handlers still running after the grace period", requesterId,
          jobs.size());
      jobs.all().forEach(Job::interruptForClose);
      jobs.awaitIdle(time.milliseconds() + 1_000);
      outcomes.releaseInterrupted(jobs.all());
    }
    outcomes.awaitAnswers(deadline - time.milliseconds(), requesterId);
    stopPolling = true;
    loop.wake();
    loop.join(Duration.ofSeconds(30));
    workers.shutdownNow();
    client.close();
    state.set(State.CLOSED);
    terminated.complete(null);
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
      workers.halt();
    }
    client.halt();
    terminated.complete(null);
  }
}
