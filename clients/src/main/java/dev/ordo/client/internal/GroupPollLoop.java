package dev.ordo.client.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll thread of a group consumer, as the {@code LeaseConsumer} and the {@code StreamConsumer} both
 * run it: subscribe, then turn after turn the owner's work ({@link Turn#beforePoll}, which says how long
 * the poll may wait), a poll, and the records to the owner ({@link Turn#onRecords}), until the owner says
 * {@link #STOP} or a fatal error ends it; {@link Turn#onEnd} then runs on this thread whichever way it
 * ended.
 *
 * <p>What the two had each written for themselves:
 * <ul>
 *   <li><b>Wake-ups.</b> Other threads (workers, producer callbacks, close) call {@link #wake} when they
 *       left work for the poll thread. Only a poll is woken: a wake-up arriving while the poll thread is
 *       in its turn makes the next poll return at once instead, so a blocking call of the turn
 *       (a commit, a position) is not cut short by a {@link WakeupException} it did not expect. One
 *       wake-up per poll at most, however many threads ask. Rebalance callbacks run inside {@code poll}:
 *       the listener given to {@link #start} runs as outside a poll, and its blocking calls go through
 *       {@link #blocking}, which tries again when a wake-up that was meant for the poll lands on them.</li>
 *   <li><b>Errors of a poll.</b> A retriable Kafka error (a broker away, a coordinator moving) is logged
 *       at most every 10 s and the loop goes on; any other error ends the loop and reaches
 *       {@link Turn#onEnd}.</li>
 * </ul>
 * The consumer is the owner's: it creates it before {@link #start} and closes it in {@link Turn#onEnd}.
 */
public final class GroupPollLoop {
  private static final Logger log = LoggerFactory.getLogger(GroupPollLoop.class);
  /** What {@link Turn#beforePoll} returns to end the loop. */
  public static final long STOP = -1;
  private static final long WARN_EVERY_MS = 10_000;

  /** The owner's part of each turn, all on the poll thread. */
  public interface Turn {
    /**
     * The owner's work before a poll: hand out, settle, commit...
     *
     * @return how long the coming poll may wait, in ms, or {@link #STOP}
     */
    long beforePoll(long now);

    /** What a poll returned (empty when it returned for a wake-up or an error). */
    void onRecords(ConsumerRecords<byte[], byte[]> records);

    /** The loop ended: {@code failure} is null after {@link #STOP}, else the error that ended it. */
    void onEnd(Throwable failure);
  }

  private final String name;
  private final Consumer<byte[], byte[]> consumer;
  private final Time time;
  private final AtomicBoolean wakeupSent = new AtomicBoolean();
  /** In a poll, and not in a rebalance callback of it: a wake-up may be sent. */
  private volatile boolean inPoll;
  /** In a poll (poll thread only): rebalance callbacks also run when the owner closes the consumer. */
  private boolean polling;
  /** Someone called {@link #wake} since the last poll returned: the next poll must not wait. */
  private volatile boolean signalled;
  private long lastWarning = Long.MIN_VALUE / 2;
  private Thread thread;

  /** {@code name}: the poll thread's name, and what the log calls this consumer. */
  public GroupPollLoop(String name, Consumer<byte[], byte[]> consumer, Time time) {
    this.name = name;
    this.consumer = consumer;
    this.time = time;
  }

  /** Starts the poll thread (a daemon): it subscribes to {@code topics} with {@code listener} and turns. */
  public void start(Collection<String> topics, ConsumerRebalanceListener listener, Turn turn) {
    if (thread != null) {
      throw new IllegalStateException("the poll loop of " + name + " was started already");
    }
    thread = new Thread(() -> run(topics, listener, turn), name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Runs the loop on the calling thread; {@link #start} runs it on a thread of its own. */
  void run(Collection<String> topics, ConsumerRebalanceListener listener, Turn turn) {
    Throwable failure = null;
    try {
      consumer.subscribe(topics, new OutsidePoll(listener));
      long timeout;
      while ((timeout = turn.beforePoll(time.milliseconds())) != STOP) {
        turn.onRecords(poll(timeout));
      }
    } catch (RuntimeException | Error e) {
      failure = e;
    } finally {
      turn.onEnd(failure);
    }
  }

  private ConsumerRecords<byte[], byte[]> poll(long timeoutMs) {
    polling = true;
    inPoll = true;
    try {
      // A wake before inPoll was set found no poll to wake: do not wait then.
      return consumer.poll(Duration.ofMillis(signalled ? 0 : Math.max(0, timeoutMs)));
    } catch (WakeupException e) {
      return ConsumerRecords.empty();
    } catch (KafkaException e) {
      if (!(e instanceof RetriableException)) {
        throw e;
      }
      long now = time.milliseconds();
      if (now - lastWarning >= WARN_EVERY_MS) {
        lastWarning = now;
        log.warn("Consumer {} failed to poll; retrying", name, e);
      }
      return ConsumerRecords.empty();
    } finally {
      polling = false;
      inPoll = false;
      signalled = false;
      wakeupSent.set(false);
    }
  }

  /**
   * From any thread: there is work for the poll thread. Wakes the poll if the thread waits in one, or
   * makes its next poll return at once.
   */
  public void wake() {
    signalled = true;
    if (inPoll && wakeupSent.compareAndSet(false, true)) {
      consumer.wakeup();
    }
  }

  /**
   * A blocking consumer call of the poll thread, tried again if a wake-up meant for the poll lands on it
   * (a {@link #wake} that saw the thread in a poll just as the poll returned).
   */
  public <T> T blocking(Supplier<T> call) {
    for (int i = 0; ; i++) {
      try {
        return call.get();
      } catch (WakeupException e) {
        if (i >= 3) {
          throw e;
        }
      }
    }
  }

  /** Whether the caller is the poll thread. */
  public boolean onPollThread() {
    return Thread.currentThread() == thread;
  }

  /** Waits up to {@code timeout} for the poll thread to end (at once if it never started). */
  public void join(Duration timeout) {
    Thread t = thread;
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    try {
      t.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The owner's listener, run as outside a poll: no wake-up is sent into its blocking calls. */
  private final class OutsidePoll implements ConsumerRebalanceListener {
    private final ConsumerRebalanceListener owner;

    OutsidePoll(ConsumerRebalanceListener owner) {
      this.owner = owner;
    }

    /**
     * Runs an owner's callback as outside the poll, then lets the rest of the poll be woken again, at once
     * if someone asked meanwhile.
     */
    private void outside(Runnable callback) {
      inPoll = false;
      try {
        callback.run();
      } finally {
        if (polling) {
          inPoll = true;
          if (signalled && wakeupSent.compareAndSet(false, true)) {
            consumer.wakeup();
          }
        }
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      outside(() -> owner.onPartitionsRevoked(partitions));
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      outside(() -> owner.onPartitionsAssigned(partitions));
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      outside(() -> owner.onPartitionsLost(partitions));
    }
  }
}
