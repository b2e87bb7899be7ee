package dev.ordo.server.sqs;

import dev.ordo.client.BacklogFullException;
import dev.ordo.client.ClientClosedException;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueProducer;
import dev.ordo.server.auth.Caller;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaException;

/**
 * The SQS actions over Ordo: queues in {@link SqsQueues}, messages as items of the queue's (namespace,
 * topic) through one {@link QueueProducer} and one {@link QueueClient} (docs/sqs.md has the mapping).
 * Every parameter is checked before anything is sent, so a refused request leaves nothing behind.
 */
public final class SqsActions implements AutoCloseable {
  /** The message attribute that sets an item's Ordo priority (a Number, an integer; lower is sooner). */
  public static final String PRIORITY_ATTRIBUTE = "ordo.priority";
  /**
   * Where a request was sent: its endpoint as the client addressed it, a namespace its path named
   * ({@code /<namespace>}), or a queue URL it was sent to ({@code /<namespace>/<queue>}).
   */
  public record Target(String endpoint, Optional<String> pathNamespace, Optional<String> pathQueueUrl) {}

  private final SqsQueues queues;
  private final QueueActions queueActions;
  private final MessageActions messages;
  private final MoveTasks moveTasks;
  private final QueuePurges purges;
  private final ReceivePrefetch prefetch;

  public SqsActions(SqsQueues queues, QueueProducer producer, QueueClient client,
      dev.ordo.client.dlq.DeadLetters deadLetters, dev.ordo.client.purge.TopicPurges purges, SqsConfig config,
      Clock clock) {
    this.queues = queues;
    this.queueActions = new QueueActions(queues, client, config, clock);
    this.prefetch = new ReceivePrefetch(config.prefetchItems(), config.prefetchMaxAge(), client::dequeue,
        client::giveBackUnseen, System::nanoTime, System::currentTimeMillis, true);
    DeleteCoalescer deletes = new DeleteCoalescer((scope, acks) -> client.within(scope).ackAll(acks),
        config.coalesceDeletes());
    this.messages = new MessageActions(queues, producer, client, prefetch, deletes, clock);
    this.moveTasks = new MoveTasks(queues, deadLetters, config.region());
    this.purges = new QueuePurges(queues, purges, prefetch, clock);
  }

  /** Gives back the items the receive prefetch holds (before the queue client closes). */
  @Override
  public void close() {
    prefetch.close();
  }

  /** What the receive prefetch did since start. */
  ReceivePrefetch.Counts prefetchCounts() {
    return prefetch.counts();
  }

  /** Whether the endpoint answers {@code action} (else UnsupportedOperation). */
  public static boolean supported(String action) {
    return SqsAccess.REQUIRED.containsKey(action);
  }

  public Map<String, Object> handle(SqsRequest r, Caller caller, Target target) throws SqsException {
    return switch (r.action()) {
      case "CreateQueue" -> queueActions.createQueue(r, caller, target);
      case "GetQueueUrl" -> queueActions.getQueueUrl(r, caller, target);
      case "ListQueues" -> queueActions.listQueues(r, caller, target);
      case "DeleteQueue" -> queueActions.deleteQueue(r, caller);
      case "GetQueueAttributes" -> queueActions.getQueueAttributes(r, caller);
      case "SetQueueAttributes" -> queueActions.setQueueAttributes(r, caller);
      case "TagQueue" -> queueActions.tagQueue(r, caller);
      case "UntagQueue" -> queueActions.untagQueue(r, caller);
      case "ListQueueTags" -> queueActions.listQueueTags(r, caller);
      case "SendMessage" -> messages.sendMessage(r, caller);
      case "SendMessageBatch" -> messages.sendMessageBatch(r, caller);
      case "ReceiveMessage" -> messages.receiveMessage(r, caller);
      case "DeleteMessage" -> messages.deleteMessage(r, caller);
      case "DeleteMessageBatch" -> messages.deleteMessageBatch(r, caller);
      case "ChangeMessageVisibility" -> messages.changeVisibility(r, caller);
      case "ChangeMessageVisibilityBatch" -> messages.changeVisibilityBatch(r, caller);
      case "ListDeadLetterSourceQueues" -> queueActions.listDeadLetterSourceQueues(r, caller, target);
      case "StartMessageMoveTask" -> moveTasks.start(r, caller);
      case "ListMessageMoveTasks" -> moveTasks.list(r, caller);
      case "CancelMessageMoveTask" -> moveTasks.cancel(r, caller);
      case "PurgeQueue" -> purges.purge(r, caller);
      default -> throw SqsError.UNSUPPORTED_OPERATION.with("The action " + r.action() + " is not valid for this"
          + " endpoint (Ordo's SQS endpoint supports: " + String.join(", ", SqsAccess.REQUIRED.keySet()) + ").");
    };
  }

  /** The queue {@code QueueUrl} names, which must exist, once the caller may do the action in its namespace. */
  static SqsQueue existing(SqsQueues queues, SqsRequest r, Caller caller) throws SqsException {
    QueueRef ref = QueueRef.fromUrl(r.required("QueueUrl"));
    SqsAccess.check(caller, r.action(), ref.namespace());
    return queues.get(ref).orElseThrow(SqsActions::nonExistent);
  }

  static SqsException nonExistent() {
    return SqsError.QUEUE_DOES_NOT_EXIST.with("The specified queue does not exist.");
  }

  // ---- waiting ----

  /**
   * Waits for a client future: no answer in time or Kafka away is ServiceUnavailable (SDKs retry it),
   * a full backlog RequestThrottled.
   */
  static <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws SqsException {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      throw SqsError.SERVICE_UNAVAILABLE.with("interrupted while waiting for " + what + " (the server is stopping)");
    } catch (TimeoutException e) {
      throw SqsError.SERVICE_UNAVAILABLE.with("no answer to " + what + " within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof BacklogFullException) {
        throw SqsError.REQUEST_THROTTLED.with(cause.getMessage());
      }
      if (cause instanceof IllegalArgumentException) {
        throw SqsError.INVALID_PARAMETER_VALUE.with(cause.getMessage());
      }
      if (cause instanceof TimeoutException || cause instanceof KafkaException || cause instanceof ClientClosedException) {
        throw SqsError.SERVICE_UNAVAILABLE.with(what + " failed: " + cause.getMessage());
      }
      throw SqsError.INTERNAL_ERROR.with(what + " failed: " + cause);
    }
  }
}
