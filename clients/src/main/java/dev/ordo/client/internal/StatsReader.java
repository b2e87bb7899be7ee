package dev.ordo.client.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread that keeps a {@link StatsView} (and, when given, the {@link PolicyLimits} of the namespace
 * policies) up to date with its own consumer.
 */
public final class StatsReader implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StatsReader.class);
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

  private final StatsView view;
  private final PolicyLimits limits;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private volatile boolean running = true;

  public StatsReader(StatsView view, Map<String, Object> consumerConfigs, String threadName) {
    this(view, null, consumerConfigs, threadName);
  }

  /** @param limits the policy limits to keep up too, or null */
  public StatsReader(StatsView view, PolicyLimits limits, Map<String, Object> consumerConfigs, String threadName) {
    this.view = view;
    this.limits = limits;
    this.consumer = new KafkaConsumer<>(consumerConfigs);
    List<TopicPartition> parts = view.partitions(consumer, METADATA_TIMEOUT);
    List<TopicPartition> all = new java.util.ArrayList<>(parts);
    if (limits != null) {
      consumer.partitionsFor(limits.topic(), METADATA_TIMEOUT)
          .forEach(p -> all.add(new TopicPartition(p.topic(), p.partition())));
    }
    consumer.assign(all);
    consumer.seekToBeginning(all);
    // Caught up once the policies, too, are read as far as they went at the start.
    view.start(consumer, all, METADATA_TIMEOUT);
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  public StatsView view() {
    return view;
  }

  private void run() {
    try {
      while (running) {
        try {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            if (limits != null && r.topic().equals(limits.topic())) {
              limits.apply(r);
            } else {
              view.apply(r);
            }
          }
          view.checkCaughtUp(consumer);
        } catch (WakeupException e) {
          // close() asked us to stop
        } catch (KafkaException e) {
          log.warn("Reading {} failed; retrying", view.topic(), e);
        }
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
