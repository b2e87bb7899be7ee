package dev.ordo.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

/** One real broker: records produced through {@link RealKafka} come back in order. */
@KafkaCluster
class SingleBrokerTest {
  @Test
  void producesAndConsumes(RealKafka kafka) throws Exception {
    assertEquals(1, kafka.brokerCount());
    kafka.createTopics(2, "single.demo");

    Properties p = kafka.clientProperties();
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 100; i++) {
        producer.send(new ProducerRecord<>("single.demo", "k", "v" + i)).get(30, TimeUnit.SECONDS);
      }
    }

    Properties c = kafka.clientProperties();
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "single-demo");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of("single.demo"));
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
        return values.size() >= 100;
      });
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      expected.add("v" + i);
    }
    // One key, so one partition, so Kafka's order.
    assertEquals(expected, values);
  }
}
