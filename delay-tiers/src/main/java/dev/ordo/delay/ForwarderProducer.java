package dev.ordo.delay;

import dev.ordo.delay.internal.ClientFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A forwarder's transactional producer and its life cycle: opened with its transactions initialized,
 * one transaction at a time (begun by the first send, ended by a commit or an abort), replaced when
 * fenced or unusable (the new one, with the same transactional id, completes or aborts what the old one
 * left open), closed with the open transaction aborted. Owned by the forwarder's loop thread.
 */
final class ForwarderProducer {
  private static final Logger log = LoggerFactory.getLogger(ForwarderProducer.class);

  private final ClientFactory clients;
  /** Fresh settings for each producer opened. */
  private final Supplier<Map<String, Object>> configs;
  private final String topic;
  private Producer<byte[], byte[]> producer;
  private boolean inTransaction;

  /** Opens nothing yet: {@link #open()} does. */
  ForwarderProducer(ClientFactory clients, Supplier<Map<String, Object>> configs, String topic) {
    this.clients = clients;
    this.configs = configs;
    this.topic = topic;
  }

  void open() {
    producer = newProducer();
  }

  boolean inTransaction() {
    return inTransaction;
  }

  /** Begins a transaction unless one is open. */
  void begin() {
    if (!inTransaction) {
      producer.beginTransaction();
      inTransaction = true;
    }
  }

  /** Sends in the open transaction; a send {@link ForwardSend#alone} is flushed before and after. */
  void send(ProducerRecord<byte[], byte[]> record, ForwardSend send) {
    if (send.alone) {
      producer.flush(); // what went before is written, so an error of this send is its own
    }
    producer.send(record, send);
    if (send.alone) {
      producer.flush();
    }
  }

  /** Commits the open transaction with the consumer's {@code offsets} (failing if the group moved on). */
  void commit(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
    producer.sendOffsetsToTransaction(offsets, group);
    producer.commitTransaction();
    inTransaction = false;
  }

  List<PartitionInfo> partitionsFor(String topic) {
    return producer.partitionsFor(topic);
  }

  /** Aborts the open transaction, if any; false if the abort failed (then replace the producer). */
  boolean abort() {
    if (!inTransaction) {
      return true;
    }
    try {
      producer.abortTransaction();
      inTransaction = false;
      return true;
    } catch (KafkaException e) {
      log.warn("forwarder of {}: abort failed ({})", topic, e.toString());
      return false;
    }
  }

  /** Closes this producer at once and opens a new one (with the same transactional id, fencing the old). */
  void replace() {
    inTransaction = false;
    try {
      producer.close(Duration.ZERO);
    } catch (RuntimeException e) {
      log.debug("closing the old producer of {} failed", topic, e);
    }
    producer = null;
    producer = newProducer();
  }

  /** Aborts the open transaction and closes the producer, if it was opened; logs a failure. */
  void close() {
    if (producer != null) {
      try {
        abort();
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.warn("forwarder of {}: closing the producer failed ({})", topic, e.toString());
      }
    }
  }

  private Producer<byte[], byte[]> newProducer() {
    Producer<byte[], byte[]> p = clients.producer(configs.get());
    try {
      p.initTransactions();
      return p;
    } catch (RuntimeException e) {
      p.close(Duration.ZERO);
      throw e;
    }
  }
}
