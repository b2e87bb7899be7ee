package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** The loop run on the test's thread over a {@link MockConsumer}, which runs scheduled tasks inside poll. */
class GroupPollLoopTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);

  /** A MockConsumer that counts the wake-ups it was sent and records each poll's timeout. */
  private static final class Consumer extends MockConsumer<byte[], byte[]> {
    final AtomicInteger wakeups = new AtomicInteger();
    final List<Long> timeouts = new ArrayList<>();

    Consumer() {
      super("earliest");
    }

    @Override
    public synchronized void wakeup() {
      wakeups.incrementAndGet();
      super.wakeup();
    }

    @Override
    public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
      timeouts.add(timeout.toMillis());
      return super.poll(timeout);
    }
  }

  /** A turn that takes its timeouts from a script and writes down what it saw. */
  private static final class Script implements GroupPollLoop.Turn {
    final LongUnaryOperator timeoutOfTurn;
    final List<String> seen = new ArrayList<>();
    int turns;
    Throwable ended = new AssertionError("not ended");

    Script(LongUnaryOperator timeoutOfTurn) {
      this.timeoutOfTurn = timeoutOfTurn;
    }

    @Override
    public long beforePoll(long now) {
      return timeoutOfTurn.applyAsLong(turns++);
    }

    @Override
    public void onRecords(ConsumerRecords<byte[], byte[]> records) {
      seen.add("polled " + records.count());
      for (ConsumerRecord<byte[], byte[]> r : records) {
        seen.add("record " + r.offset());
      }
    }

    @Override
    public void onEnd(Throwable failure) {
      seen.add("end");
      ended = failure;
    }
  }

  private static final ConsumerRebalanceListener NO_LISTENER = new ConsumerRebalanceListener() {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
  };

  private final Consumer consumer = new Consumer();
  private final GroupPollLoop loop = new GroupPollLoop("test-poll", consumer, Time.SYSTEM);

  @Test
  void turnsPollWithTheTimeoutTheTurnGaveAndHandOverWhatCameUntilStop() {
    consumer.schedulePollTask(() -> {
      consumer.rebalance(List.of(TP));
      consumer.updateBeginningOffsets(Map.of(TP, 0L));
      consumer.addRecord(new ConsumerRecord<>("t", 0, 0, new byte[0], new byte[0]));
      consumer.addRecord(new ConsumerRecord<>("t", 0, 1, new byte[0], new byte[0]));
    });
    Script turn = new Script(n -> n < 3 ? 40 + n : GroupPollLoop.STOP);

    loop.run(List.of("t"), NO_LISTENER, turn);

    assertEquals(List.of(40L, 41L, 42L), consumer.timeouts);
    assertEquals(List.of("polled 2", "record 0", "record 1", "polled 0", "polled 0", "end"), turn.seen);
    assertNull(turn.ended, "stopped by the turn: no failure");
  }

  @Test
  void aRetriableErrorOfAPollIsRiddenOutAndAnyOtherEndsTheLoop() {
    consumer.setPollException(new DisconnectException("broker away"));
    KafkaException fatal = new KafkaException("fatal");
    Script turn = new Script(n -> {
      if (n == 2) {
        consumer.setPollException(fatal);
      }
      return n < 10 ? 5 : GroupPollLoop.STOP;
    });

    loop.run(List.of("t"), NO_LISTENER, turn);

    assertEquals(List.of("polled 0", "polled 0", "end"), turn.seen, "the retriable error: an empty poll; the fatal one ends it");
    assertSame(fatal, turn.ended);
  }

  @Test
  void anErrorOfTheTurnEndsTheLoopWithIt() {
    IllegalStateException broken = new IllegalStateException("broken");
    Script turn = new Script(n -> {
      throw broken;
    });

    loop.run(List.of("t"), NO_LISTENER, turn);

    assertEquals(List.of("end"), turn.seen);
    assertSame(broken, turn.ended);
  }

  @Test
  void aWakeOutsideAPollSendsNoWakeupButTheNextPollDoesNotWait() {
    Script turn = new Script(n -> {
      if (n == 1) {
        loop.wake(); // a worker finished while the poll thread was in its turn
      }
      return n < 3 ? 100 : GroupPollLoop.STOP;
    });

    loop.run(List.of("t"), NO_LISTENER, turn);

    assertEquals(List.of(100L, 0L, 100L), consumer.timeouts, "only the poll after the wake skips its wait");
    assertEquals(0, consumer.wakeups.get(), "no wake-up that a blocking call of the turn could catch");
  }

  @Test
  void aWakeDuringAPollWakesItOnceHoweverManyAsk() {
    consumer.schedulePollTask(() -> {
      loop.wake();
      loop.wake();
      loop.wake();
    });
    consumer.schedulePollTask(loop::wake); // the next poll may be woken again
    Script turn = new Script(n -> n < 3 ? 100 : GroupPollLoop.STOP);

    loop.run(List.of("t"), NO_LISTENER, turn);

    assertEquals(2, consumer.wakeups.get());
    assertEquals(List.of("polled 0", "polled 0", "polled 0", "end"), turn.seen, "a woken poll returns empty");
    assertNull(turn.ended, "a wake-up is not an error");
  }

  @Test
  void aWakeDuringARebalanceCallbackIsHeldUntilTheCallbackReturns() {
    List<Integer> wakeupsSeenInCallback = new ArrayList<>();
    ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        loop.wake(); // a worker finished while the owner commits or reads positions here
        wakeupsSeenInCallback.add(consumer.wakeups.get());
      }
    };
    consumer.updateBeginningOffsets(Map.of(TP, 0L));
    consumer.schedulePollTask(() -> consumer.rebalance(List.of(TP)));
    Script turn = new Script(n -> n < 2 ? 100 : GroupPollLoop.STOP);

    loop.run(List.of("t"), listener, turn);

    assertEquals(List.of(0), wakeupsSeenInCallback, "nothing sent into the callback's blocking calls");
    assertEquals(1, consumer.wakeups.get(), "sent when the callback returned, to the rest of the poll");
    assertNull(turn.ended);
  }

  @Test
  void aBlockingCallIsTriedAgainWhenAWakeupMeantForThePollLandsOnIt() {
    AtomicInteger calls = new AtomicInteger();
    String answer = loop.blocking(() -> {
      if (calls.incrementAndGet() < 3) {
        throw new WakeupException();
      }
      return "committed";
    });
    assertEquals("committed", answer);
    assertEquals(3, calls.get());

    AtomicInteger always = new AtomicInteger();
    assertThrows(WakeupException.class, () -> loop.blocking(() -> {
      always.incrementAndGet();
      throw new WakeupException();
    }));
    assertTrue(always.get() > 1 && always.get() < 10, "a few tries, then the wake-up is real: " + always.get());
  }
}
