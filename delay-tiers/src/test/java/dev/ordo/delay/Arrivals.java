package dev.ordo.delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads topics with read_committed on a thread of its own and notes when each record arrived (wall
 * clock, as soon as the poll returned it). A consumer polling with a short fetch wait, like a user's.
 */
final class Arrivals implements AutoCloseable {
  record Arrival(ConsumerRecord<byte[], byte[]> record, long arrivedAt) {}

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final Thread thread;
  private volatile boolean assigned;

  Arrivals(String bootstrap, String... topics) {
    consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, "arrivals-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()));
    consumer.subscribe(List.of(topics), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
          assigned = true;
        }
      }
    });
    thread = new Thread(this::run, "arrivals");
    thread.start();
  }

  private void run() {
    try {
      while (!closing.get()) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          arrivals.add(new Arrival(r, System.currentTimeMillis()));
        }
      }
    } catch (WakeupException e) {
      // closing
    } finally {
      consumer.close();
    }
  }

  /** True once the consumer has its partitions, so arrival times are not inflated by the group join. */
  boolean ready() {
    return assigned;
  }

  void clear() {
    arrivals.clear();
  }

  int count() {
    return arrivals.size();
  }

  List<Arrival> all() {
    return new ArrayList<>(arrivals);
  }

  List<Arrival> of(String topic) {
    return arrivals.stream().filter(a -> a.record().topic().equals(topic)).toList();
  }

  @Override
  public void close() throws InterruptedException {
    closing.set(true);
    consumer.wakeup();
    thread.join(10_000);
  }
}
