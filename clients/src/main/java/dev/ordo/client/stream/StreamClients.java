package dev.ordo.client.stream;

import dev.ordo.delay.DelayClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka clients of a {@link StreamConsumer}: its group consumer, and the producer and delay client that
 * write retry copies and dead letters. Opened only once the topics it writes to are known to exist (a send
 * to a missing topic would block the poll thread); closed quietly.
 */
final class StreamClients {
  private static final Logger log = LoggerFactory.getLogger(StreamClients.class);

  private final StreamConsumerConfig config;
  private final String groupId;
  private KafkaProducer<byte[], byte[]> producer;
  private DelayClient delayClient;
  private KafkaConsumer<byte[], byte[]> consumer;

  private StreamClients(StreamConsumerConfig config) {
    this.config = config;
    this.groupId = config.groupId();
  }

  /**
   * Checks the topics written to, then opens the clients; on failure closes what it opened.
   *
   * @throws IllegalStateException if one of those topics does not exist
   */
  static StreamClients open(StreamConsumerConfig config) {
    StreamClients clients = new StreamClients(config);
    try {
      List<String> written = clients.checkTopics();
      clients.producer = new KafkaProducer<>(config.producerConfigs());
      // Fetch their metadata now: the first send to a topic otherwise waits for it, and a retry copy held
      // by the delay client for a short backoff would then miss its tier.
      written.forEach(clients.producer::partitionsFor);
      clients.delayClient = new DelayClient(config.delayConfig(), clients.producer);
      clients.consumer = new KafkaConsumer<>(config.consumerConfigs());
    } catch (RuntimeException e) {
      clients.closeQuietly();
      throw e;
    }
    return clients;
  }

  KafkaConsumer<byte[], byte[]> consumer() {
    return consumer;
  }

  KafkaProducer<byte[], byte[]> producer() {
    return producer;
  }

  DelayClient delayClient() {
    return delayClient;
  }

  /**
   * The topics it writes to must exist: a send to a missing topic would block the poll thread.
   *
   * @return those topics
   */
  private List<String> checkTopics() {
    String retryTopic = config.retryTopic();
    String dlqTopic = config.topics().dlq();
    List<String> needed = new ArrayList<>(List.of(retryTopic, dlqTopic));
    config.delayConfig().tiers().forEach(t -> needed.add(config.topics().delayTier(t)));
    List<String> missing = new ArrayList<>();
    try (Admin admin = Admin.create(config.adminConfigs())) {
      Map<String, KafkaFuture<TopicDescription>> found = admin.describeTopics(needed).topicNameValues();
      for (String topic : needed) {
        try {
          found.get(topic).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof UnknownTopicOrPartitionException) {
            missing.add(topic);
          } else {
            log.warn("Could not check that topic {} exists; going on", topic, e.getCause());
          }
        } catch (TimeoutException e) {
          log.warn("Could not check that topic {} exists within 30 s; going on", topic);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while checking the topics of group " + groupId, e);
        }
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("stream consumer of group " + groupId + ": topics " + missing + " do not exist."
          + " It writes retry copies to the delay tiers and " + retryTopic + ", and dead letters to " + dlqTopic
          + "; create them first (see docs/stream-consumer.md)");
    }
    return needed;
  }

  void closeQuietly() {
    if (delayClient != null) {
      try {
        delayClient.close(Duration.ZERO); // held retry copies are dropped: their records were not committed
      } catch (RuntimeException e) {
        log.warn("Closing the delay client of group {} failed", groupId, e);
      }
    }
    if (producer != null) {
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.warn("Closing the producer of group {} failed", groupId, e);
      }
    }
    if (consumer != null) {
      try {
        consumer.close(Duration.ofSeconds(10));
      } catch (RuntimeException e) {
        log.warn("Closing the consumer of group {} failed", groupId, e);
      }
    }
  }
}
