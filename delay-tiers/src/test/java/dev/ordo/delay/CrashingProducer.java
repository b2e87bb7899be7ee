package dev.ordo.delay;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A transactional producer that dies like its process would: at its n-th commit of a transaction that
 * holds records, it is force-closed (nothing more reaches the broker: no commit, no abort) and throws
 * {@link SimulatedCrash} through the forwarder's loop. Its transaction stays open on the coordinator.
 */
final class CrashingProducer extends KafkaProducer<byte[], byte[]> {
  /** An Error, so no {@code catch (RuntimeException)} on the way up handles it like a failure to recover from. */
  static final class SimulatedCrash extends Error {
    SimulatedCrash() {
      super("simulated crash of a forwarder in the middle of a transaction");
    }
  }

  private final AtomicInteger commitsLeft;
  private final CountDownLatch crashed;
  private volatile boolean dead;
  private volatile int sendsInTransaction;
  volatile int sendsInCrashedTransaction;

  CrashingProducer(Map<String, Object> configs, int crashAtCommit, CountDownLatch crashed) {
    super(configs);
    this.commitsLeft = new AtomicInteger(crashAtCommit);
    this.crashed = crashed;
  }

  @Override
  public void beginTransaction() {
    sendsInTransaction = 0;
    super.beginTransaction();
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
    sendsInTransaction++;
    return super.send(record, callback);
  }

  @Override
  public void commitTransaction() {
    if (sendsInTransaction > 0 && commitsLeft.decrementAndGet() <= 0) {
      // Let the sends reach the broker first, as they would before a process dies in commit.
      super.flush();
      sendsInCrashedTransaction = sendsInTransaction;
      dead = true;
      super.close(Duration.ZERO);
      crashed.countDown();
      throw new SimulatedCrash();
    }
    super.commitTransaction();
  }

  @Override
  public void abortTransaction() {
    if (dead) {
      throw new IllegalStateException("the producer crashed");
    }
    super.abortTransaction();
  }
}
