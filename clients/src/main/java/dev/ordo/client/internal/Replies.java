package dev.ordo.client.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.ClientClosedException;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.Outcomes;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.WireFormat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll thread of a {@link dev.ordo.client.QueueClient} ({@code <client id>-replies}) and the
 * consumer it owns, assigned the client's reply partition of {@code <cluster>.deliveries} and all of
 * {@code <cluster>.topics}. Each turn it polls, applies the stats records to the {@link StatsView},
 * hands each reply to what waits for it (an enqueue's answer or a command's outcome to
 * {@link PendingRequests}, a dequeue's items and answers to {@link Dequeues}), completes the batched
 * futures collected, steps the open dequeues and, every {@value #TIMEOUT_SWEEP_MS} ms, fails the
 * requests past their timeout. It runs while the {@link RequestChannel} does; when it ends it fails
 * what is pending (unless halted) and closes the consumer.
 */
public final class Replies {
  private static final Logger log = LoggerFactory.getLogger(Replies.class);
  private static final Duration POLL = Duration.ofMillis(20);
  /** How often the poll thread looks for requests past their timeout. */
  private static final long TIMEOUT_SWEEP_MS = 50;

  private final Consumer<byte[], byte[]> consumer;
  private final WireFormat wire;
  private final StatsView stats;
  private final RequestChannel channel;
  private final PendingRequests requests;
  private final Dequeues dequeues;
  private final Time time;
  private final String clientId;
  private final Thread thread;
  private volatile boolean halted;
  private long lastWarning; // poll thread only
  private long nextTimeoutSweep; // poll thread only

  public Replies(Consumer<byte[], byte[]> consumer, WireFormat wire, StatsView stats, RequestChannel channel,
      PendingRequests requests, Dequeues dequeues, Time time, String clientId) {
    this.consumer = consumer;
    this.wire = wire;
    this.stats = stats;
    this.channel = channel;
    this.requests = requests;
    this.dequeues = dequeues;
    this.time = time;
    this.clientId = clientId;
    this.thread = new Thread(this::pollLoop, clientId + "-replies");
    this.thread.setDaemon(true);
  }

  /**
   * Assigns {@code consumer} the reply partition and the stats table, reads to the reply partition's
   * end, and starts reading the table: returns the reply partition (configured, else the client id's
   * hash over the partitions of {@code <cluster>.deliveries}).
   *
   * @throws IllegalStateException when the cluster's topics are missing or not co-partitioned
   * @throws IllegalArgumentException when the configured reply partition does not exist
   */
  public static int assign(Consumer<byte[], byte[]> consumer, ClusterTopics topics, StatsView stats,
      int configured, String clientId, Duration timeout) {
    int partitions = consumer.partitionsFor(topics.deliveries(), timeout).size();
    if (partitions == 0) {
      throw new IllegalStateException("topic " + topics.deliveries() + " does not exist: is the Ordo cluster '"
          + topics.cluster() + "' set up?");
    }
    int commands = consumer.partitionsFor(topics.commands(), timeout).size();
    if (commands != partitions) {
      throw new IllegalStateException(topics.commands() + " has " + commands + " partitions but "
          + topics.deliveries() + " has " + partitions + ": the cluster's topics must be co-partitioned");
    }
    int replyPartition = configured >= 0 ? configured
        : Utils.toPositive(Utils.murmur2(clientId.getBytes(StandardCharsets.UTF_8))) % partitions;
    if (replyPartition >= partitions) {
      throw new IllegalArgumentException(QueueClientConfig.REPLY_PARTITION_CONFIG + " " + replyPartition
          + " is not a partition of " + topics.deliveries() + " (" + partitions + " partitions)");
    }
    TopicPartition replies = new TopicPartition(topics.deliveries(), replyPartition);
    List<TopicPartition> statsParts = stats.partitions(consumer, timeout);
    List<TopicPartition> all = new ArrayList<>(statsParts);
    all.add(replies);
    consumer.assign(all);
    consumer.seekToEnd(List.of(replies));
    // Resolve the position now: a demand sent before it is known could be answered before it.
    consumer.position(replies, timeout);
    consumer.seekToBeginning(statsParts);
    stats.start(consumer, statsParts, timeout);
    return replyPartition;
  }

  public void start() {
    thread.start();
  }

  /** The consumer, for its metrics. */
  public Consumer<byte[], byte[]> consumer() {
    return consumer;
  }

  public boolean isAlive() {
    return thread.isAlive();
  }

  /** Interrupts a poll in progress: the loop looks at whether the channel still runs. */
  public void wakeup() {
    consumer.wakeup();
  }

  /** When the loop ends, it leaves pending calls as they are and drops the consumer at once. */
  public void halting() {
    halted = true;
  }

  /** Waits up to {@code timeout} for the poll thread to end (at once when called on it). */
  public void join(Duration timeout) {
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      thread.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

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
        dequeues.stepAll(now);
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
        ClientClosedException closed = channel.closed();
        dequeues.failAll(closed);
        requests.failAll(closed);
      }
      consumer.close(halted ? Duration.ZERO : Duration.ofSeconds(5));
    }
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
      dequeues.onReply(requesterId, delivery);
    }
  }
}
