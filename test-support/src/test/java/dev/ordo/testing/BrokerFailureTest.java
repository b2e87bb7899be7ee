package dev.ordo.testing;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.junit.jupiter.api.Test;

/**
 * Three brokers and a separate controller: a topic with replication 3 and min ISR 2 keeps taking
 * and serving records while one broker (a partition leader) is stopped, and loses none.
 */
@KafkaCluster(brokers = 3)
class BrokerFailureTest {
  private static final String TOPIC = "failover.demo";
  private static final int MAX_RECORDS = 200_000;
  private static final Duration MAX_RUN = Duration.ofSeconds(120);

  @Test
  void producingAndConsumingSurviveAStoppedBroker(RealKafka kafka) throws Exception {
    assertEquals(3, kafka.brokers().size());
    int victim;
    try (Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 3)
          .configs(Map.of("min.insync.replicas", "2")))).all().get(30, TimeUnit.SECONDS);
      kafka.awaitTopics(TOPIC);
      TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC);
      victim = d.partitions().get(0).leader().id();
    }

    Set<Integer> acked = new ConcurrentSkipListSet<>();
    Set<Integer> consumed = new ConcurrentSkipListSet<>();
    AtomicBoolean stopProducing = new AtomicBoolean();
    AtomicBoolean stopConsuming = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Map<String, Integer> sendErrors = new ConcurrentHashMap<>();
    AtomicInteger sent = new AtomicInteger();

    Thread producer = new Thread(() -> {
      Properties p = kafka.clientProperties();
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
      long deadline = System.nanoTime() + MAX_RUN.toNanos();
      try (KafkaProducer<Integer, Integer> prod =
          new KafkaProducer<>(p, new IntegerSerializer(), new IntegerSerializer())) {
        // Bounded: stops when told, after MAX_RECORDS, or after MAX_RUN.
        for (int i = 0; i < MAX_RECORDS && !stopProducing.get() && System.nanoTime() < deadline; i++) {
          int value = i;
          // Synchronous every 50 records, so the producer paces itself and keeps going across the stop.
          var future = prod.send(new ProducerRecord<>(TOPIC, value, value), (md, e) -> {
            if (e == null) {
              acked.add(value);
            } else {
              sendErrors.merge(e.getClass().getSimpleName(), 1, Integer::sum);
            }
          });
          sent.incrementAndGet();
          if (i % 50 == 49) {
            future.get(60, TimeUnit.SECONDS);
          }
        }
        prod.flush();
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    }, "failover-producer");

    Thread consumer = new Thread(() -> {
      Properties c = kafka.clientProperties();
      c.put(ConsumerConfig.GROUP_ID_CONFIG, "failover-demo");
      c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      try (KafkaConsumer<Integer, Integer> cons =
          new KafkaConsumer<>(c, new IntegerDeserializer(), new IntegerDeserializer())) {
        cons.subscribe(List.of(TOPIC));
        long deadline = System.nanoTime() + MAX_RUN.toNanos() * 2;
        while (!stopConsuming.get() && System.nanoTime() < deadline) {
          for (ConsumerRecord<Integer, Integer> r : cons.poll(Duration.ofMillis(100))) {
            consumed.add(r.value());
          }
        }
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    }, "failover-consumer");

    producer.start();
    consumer.start();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> acked.size() >= 500 && consumed.size() >= 200);

      kafka.stopBroker(victim);
      int ackedAtStop = acked.size();
      int consumedAtStop = consumed.size();

      // Both sides keep working with one broker down.
      await().atMost(Duration.ofSeconds(90)).until(() -> acked.size() >= ackedAtStop + 2_000);
      await().atMost(Duration.ofSeconds(90)).until(() -> consumed.size() >= consumedAtStop + 2_000);
    } finally {
      stopProducing.set(true);
      producer.join(TimeUnit.SECONDS.toMillis(90));
    }
    assertTrue(failure.get() == null, () -> "client failed: " + failure.get());

    // Nothing acknowledged is lost: the consumer sees every acked record.
    await().atMost(Duration.ofSeconds(60)).until(() -> consumed.containsAll(acked));
    stopConsuming.set(true);
    consumer.join(TimeUnit.SECONDS.toMillis(30));

    System.out.printf("BrokerFailureTest: stopped broker %d; sent %d, acked %d, consumed %d%n",
        victim, sent.get(), acked.size(), consumed.size());
    Set<Integer> missing = new TreeSet<>(acked);
    missing.removeAll(consumed);
    assertEquals(Set.of(), missing);
    // The idempotent producer retried through the leader change: every record sent was acked.
    assertEquals(sent.get(), acked.size(), () -> "send errors: " + sendErrors);
    assertTrue(failure.get() == null, () -> "client failed: " + failure.get());
  }
}
