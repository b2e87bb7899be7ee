package dev.ordo.server.auth;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a one-partition topic from its start and then follows it, on a thread of its own, handing
 * each record to a callback: how every instance holds the whole of a small compacted table (the
 * principals) and sees a change within a poll. {@link #awaitPosition} lets a writer wait until its
 * own record was read back, so an instance answers the next request with what it just wrote.
 */
public final class TopicTail implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TopicTail.class);
  private static final Duration POLL = Duration.ofMillis(200);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final TopicPartition partition;
  private final BiConsumer<byte[], byte[]> onRecord;
  private final Thread thread;
  private final Object progress = new Object();
  /** The offset after the last record handed over. */
  private volatile long position;
  private volatile boolean running = true;
  private boolean started;

  public TopicTail(Map<String, Object> kafkaConfig, String topic, BiConsumer<byte[], byte[]> onRecord) {
    Map<String, Object> c = new HashMap<>(kafkaConfig);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) POLL.toMillis());
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    c.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.partition = new TopicPartition(topic, 0);
    this.onRecord = onRecord;
    consumer.assign(List.of(partition));
    consumer.seekToBeginning(List.of(partition));
    this.thread = new Thread(this::run, "ordo-tail-" + topic);
    thread.setDaemon(true);
  }

  /** Starts following; returns once everything the topic held at the call was read. */
  public void start(Duration timeout) throws TimeoutException, InterruptedException {
    long end = consumer.endOffsets(List.of(partition), timeout).get(partition);
    started = true;
    thread.start();
    awaitPosition(end, timeout);
  }

  /** Waits until the record at {@code offset - 1} was handed over (position at least {@code offset}). */
  public void awaitPosition(long offset, Duration timeout) throws TimeoutException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (position < offset) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !running) {
          throw new TimeoutException("reading " + partition + " to offset " + offset + " (at " + position + ")");
        }
        progress.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  private void run() {
    try {
      while (running) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
          try {
            onRecord.accept(r.key(), r.value());
          } catch (RuntimeException e) {
            LOG.warn("Skipped record {} of {}: {}", r.offset(), partition, e.toString());
          }
        }
        long p = consumer.position(partition);
        synchronized (progress) {
          position = p;
          progress.notifyAll();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("Stopped following {}", partition, e);
    } finally {
      running = false;
      synchronized (progress) {
        progress.notifyAll();
      }
      consumer.close(Duration.ofSeconds(2));
    }
  }

  @Override
  public void close() {
    running = false;
    if (!started) {
      consumer.close(Duration.ofSeconds(2));
      return;
    }
    consumer.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
