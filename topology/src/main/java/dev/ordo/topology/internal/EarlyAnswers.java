package dev.ordo.topology.internal;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliveredItems;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import dev.ordo.topology.QueueMetrics;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a waiting requester at once, outside the stream thread's transaction (decisions D39).
 *
 * <p>Under exactly-once an answer written through Kafka Streams is visible only once the thread's
 * transaction commits: a commit of ~13 ms every ~30 ms on a loaded two-core machine, which set the
 * HTTP API's round trips. An answer sent here, by a plain producer that does not linger, is visible
 * as soon as the broker has it. What it says was decided on the task's state, and the decision is
 * committed with the command's offset shortly after; if the instance dies before that commit, the
 * command is read and decided again after the failover, on the last committed state. So an early
 * answer is one the queue may take back only by a crash, and then only as at-least-once allows: an
 * ack already answered is applied again (unless its lease ran out meanwhile, when the item comes
 * back as after any late ack), and items leased in the lost transaction are leased again. That is
 * why an answer that hands out an at-most-once item never goes early: it waits for the commit, as
 * every answer did before.
 *
 * <p>Nor does a refusal that the task's state decided ({@code STALE_LEASE}, {@code UNKNOWN_ITEM};
 * decisions D68). An instance that lost its partitions without knowing it yet (paused past its session
 * timeout, cut off) goes on deciding on state its transaction will never commit, while the new owner
 * decides the same commands on the committed state. Its early answers race the owner's, and a
 * requester takes the first: a zombie's early refusal of an ack the owner applied told the caller its
 * ack failed while the item was gone (the nemesis run, 2026-11-30). A refusal through the transaction
 * is never seen from a transaction that aborts. Early successes stay early: one the owner does not
 * confirm means the item comes back, as at-least-once allows.
 *
 * <p>Only for answers someone waits for ({@code Command.urgent}: the {@code QueueClient}'s calls,
 * the HTTP API's); a lease consumer's pipelined demands and acks keep the transactional path, unless
 * {@code everyAnswer} ({@code ordo.reply.early.all}, decisions D49) sends theirs early too. The
 * producer never blocks the stream thread ({@code max.block.ms} 0): when it cannot take a record at
 * once (no metadata yet, a full buffer) the answer goes the transactional way instead.
 */
public final class EarlyAnswers {
  private static final Logger log = LoggerFactory.getLogger(EarlyAnswers.class);

  /** Answers nothing early: every answer waits for the commit. */
  public static final EarlyAnswers NONE = new EarlyAnswers(null, null, false);

  private final Producer<byte[], byte[]> producer;
  private final QueueMetrics metrics;
  private final boolean everyAnswer;

  /** {@code producer}: non-transactional, not lingering, {@code max.block.ms} 0; closed by its owner. */
  public EarlyAnswers(Producer<byte[], byte[]> producer, QueueMetrics metrics) {
    this(producer, metrics, false);
  }

  /**
   * {@code everyAnswer}: every answer that hands out no at-most-once item goes early, a lease
   * consumer's too, not only those someone waits for.
   */
  public EarlyAnswers(Producer<byte[], byte[]> producer, QueueMetrics metrics, boolean everyAnswer) {
    this.producer = producer;
    this.metrics = metrics;
    this.everyAnswer = everyAnswer;
  }

  /**
   * Whether an answer with {@code body} may go before the commit: someone waits for it, it hands out
   * no at-most-once item and refuses nothing on the task's state.
   */
  public static boolean allows(boolean urgent, Object body) {
    if (!urgent) {
      return false;
    }
    if (body instanceof Outcome outcome) {
      return !refusedOnState(outcome);
    }
    if (body instanceof Outcomes outcomes) {
      for (Outcome outcome : outcomes.getOutcomes()) {
        if (refusedOnState(outcome)) {
          return false;
        }
      }
      return true;
    }
    if (body instanceof DeliveredItem item) {
      return item.getSemantics() != DeliverySemantics.AT_MOST_ONCE;
    }
    if (body instanceof DeliveredItems items) {
      for (DeliveredItem item : items.getItems()) {
        if (item.getSemantics() == DeliverySemantics.AT_MOST_ONCE) {
          return false;
        }
      }
    }
    return true;
  }

  /** A refusal that another owner of the partition, on other state, may not make. */
  private static boolean refusedOnState(Outcome outcome) {
    return outcome.getResult() == OutcomeResult.STALE_LEASE || outcome.getResult() == OutcomeResult.UNKNOWN_ITEM;
  }

  /**
   * Sends the answer if it may go early and the producer takes it at once.
   *
   * @return false when the caller must send it through the transaction
   */
  boolean trySend(boolean urgent, Object body, String topic, int partition, byte[] key, byte[] value) {
    if (producer == null || !allows(urgent || everyAnswer, body)) {
      return false;
    }
    Sent sent = new Sent(topic, partition);
    try {
      producer.send(new ProducerRecord<>(topic, partition, key, value), sent);
    } catch (RuntimeException e) {
      sent.refusedAtOnce = true; // a closed producer, say
    }
    if (sent.refusedAtOnce) {
      // Not taken at once (no metadata for the topic yet, the buffer full): the transaction's way.
      metrics.increment(QueueMetrics.EARLY_ANSWER_REFUSED);
      return false;
    }
    metrics.increment(QueueMetrics.EARLY_ANSWERS);
    return true;
  }

  /**
   * The outcome of one send. The producer reports a record it cannot take at once (its metadata
   * wait of 0 ms ran out, the buffer is full) to the callback in the sending thread, before
   * {@code send} returns; anything later comes from the producer's network thread.
   */
  private final class Sent implements Callback {
    private final Thread sender = Thread.currentThread();
    private final String topic;
    private final int partition;
    private boolean refusedAtOnce;

    Sent(String topic, int partition) {
      this.topic = topic;
      this.partition = partition;
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception e) {
      if (e == null) {
        return;
      }
      if (Thread.currentThread() == sender) {
        refusedAtOnce = true;
        return;
      }
      metrics.increment(QueueMetrics.EARLY_ANSWER_FAILED);
      log.warn("An early answer to partition {} of {} was lost ({}); its requester's wait runs out",
          partition, topic, e.toString());
    }
  }
}
