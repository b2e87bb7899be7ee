package dev.ordo.delay;

import dev.ordo.delay.internal.ClientFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.utils.Time;

/** Forwarders started one by one on threads of their own, for tests that kill or add some. */
final class Forwarders implements AutoCloseable {
  record Running(DelayForwarder forwarder, Thread thread) {}

  private final List<Running> running = new ArrayList<>();

  Running start(DelayTiersConfig config, Duration tier, ClientFactory clients) {
    DelayForwarder f = new DelayForwarder(config, tier, Time.SYSTEM, clients);
    Thread t = new Thread(() -> {
      try {
        f.run();
      } catch (CrashingProducer.SimulatedCrash e) {
        // the forwarder "died"; its thread ends
      }
    }, "test-forwarder-" + tier.toMillis() + "ms-" + config.instanceId());
    t.start();
    Running r = new Running(f, t);
    running.add(r);
    return r;
  }

  Running start(DelayTiersConfig config, Duration tier) {
    return start(config, tier, ClientFactory.KAFKA);
  }

  /** Clients whose producer crashes at its {@code crashAtCommit}-th commit that holds records. */
  static final class Crashing implements ClientFactory {
    final CountDownLatch crashed = new CountDownLatch(1);
    final int crashAtCommit;
    volatile CrashingProducer producer;

    Crashing(int crashAtCommit) {
      this.crashAtCommit = crashAtCommit;
    }

    @Override
    public Consumer<byte[], byte[]> consumer(Map<String, Object> configs) {
      return new KafkaConsumer<>(configs);
    }

    @Override
    public Producer<byte[], byte[]> producer(Map<String, Object> configs) {
      producer = new CrashingProducer(configs, crashAtCommit, crashed);
      return producer;
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (Running r : running) {
      r.forwarder().close(Duration.ZERO);
    }
    for (Running r : running) {
      r.thread().join(30_000);
    }
  }
}
