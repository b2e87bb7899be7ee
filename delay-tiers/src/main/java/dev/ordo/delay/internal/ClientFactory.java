package dev.ordo.delay.internal;

import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/** Creates a forwarder's Kafka clients; tests substitute clients that fail on purpose. */
public interface ClientFactory {
  ClientFactory KAFKA = new ClientFactory() {
    @Override
    public Consumer<byte[], byte[]> consumer(Map<String, Object> configs) {
      return new KafkaConsumer<>(configs);
    }

    @Override
    public Producer<byte[], byte[]> producer(Map<String, Object> configs) {
      return new KafkaProducer<>(configs);
    }
  };

  Consumer<byte[], byte[]> consumer(Map<String, Object> configs);

  Producer<byte[], byte[]> producer(Map<String, Object> configs);
}
