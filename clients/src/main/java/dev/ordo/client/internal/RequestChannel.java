package dev.ordo.client.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.ClientClosedException;
import dev.ordo.schema.Requester;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A {@link dev.ordo.client.QueueClient}'s side of the request and reply: its producer on
 * {@code <cluster>.commands}, its reply partition of {@code <cluster>.deliveries}, the requester ids
 * it hands out ({@code <client id>/<incarnation>/<kind><n>}), and whether it still runs (it stops
 * when closed, halted, or when its reply thread fails). Thread-safe.
 */
public final class RequestChannel {
  private final ClusterTopics topics;
  private final String clientId;
  private final int replyPartition;
  private final Producer<byte[], byte[]> producer;
  /**
   * Requester ids start with this: the client id and a random incarnation, so two clients given the
   * same id never take each other's replies.
   */
  private final String requesterPrefix;
  private final AtomicLong sequence = new AtomicLong();
  private volatile boolean running = true;

  public RequestChannel(ClusterTopics topics, String clientId, String requesterPrefix, int replyPartition,
      Producer<byte[], byte[]> producer) {
    this.topics = topics;
    this.clientId = clientId;
    this.requesterPrefix = requesterPrefix;
    this.replyPartition = replyPartition;
    this.producer = producer;
  }

  /** A requester prefix for {@code clientId}: the id and a random incarnation. */
  public static String requesterPrefix(String clientId) {
    return clientId + "/" + Long.toHexString(new java.security.SecureRandom().nextLong() & 0xffffffffL) + "/";
  }

  public ClusterTopics topics() {
    return topics;
  }

  public int replyPartition() {
    return replyPartition;
  }

  /** The producer, for its metrics. */
  public Producer<byte[], byte[]> producer() {
    return producer;
  }

  /** The partition count of {@code <cluster>.commands} (from cached metadata). */
  public int partitions() {
    return producer.partitionsFor(topics.commands()).size();
  }

  /** A new requester id of {@code kind}: {@code d} a dequeue, {@code c} a command, {@code e} an enqueue. */
  public String nextId(char kind) {
    return requesterPrefix + kind + sequence.incrementAndGet();
  }

  /** The requester {@code requesterId} on this client's reply partition. */
  public Requester requester(String requesterId) {
    return new Requester(requesterId, replyPartition);
  }

  /** True for this client's requester ids of {@code kind}. */
  public boolean isOwn(String requesterId, char kind) {
    return isOwn(requesterPrefix, requesterId, kind);
  }

  /** True when {@code requesterId} is {@code <prefix><kind><digits>}. */
  static boolean isOwn(String prefix, String requesterId, char kind) {
    int n = prefix.length();
    if (requesterId.length() < n + 2 || !requesterId.startsWith(prefix) || requesterId.charAt(n) != kind) {
      return false;
    }
    for (int i = n + 1; i < requesterId.length(); i++) {
      if (!Character.isDigit(requesterId.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  public boolean running() {
    return running;
  }

  /** No call is taken from now on. */
  public void stop() {
    running = false;
  }

  /** The failure of a call on this client once it is closed. */
  public ClientClosedException closed() {
    return new ClientClosedException("client " + clientId);
  }

  /** Sends {@code record}; the future completes when Kafka has it, or fails. */
  public CompletableFuture<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
    CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
    try {
      producer.send(record, (m, e) -> {
        if (e != null) {
          result.completeExceptionally(e);
        } else {
          result.complete(m);
        }
      });
    } catch (RuntimeException e) {
      // Kafka's producer refuses a send once closed (IllegalStateException): a close that raced this one.
      result.completeExceptionally(!running && e instanceof IllegalStateException ? closed() : e);
    }
    return result;
  }

  public void closeProducer(Duration timeout) {
    producer.close(timeout);
  }
}
