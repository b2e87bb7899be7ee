package dev.ordo.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/** The queue's Kafka Streams defaults that depend on the machine or yield to the user's settings. */
class QueueServiceTest {
  private static final String FETCH = ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG;
  private static final QueueConfig DEFAULTS = new QueueConfig(Map.of());

  /** Decisions D14. */
  @Test
  void aStreamThreadPerCoreButOneNeverMoreThanThePartitionsNorFewerThanOne() {
    int cores = Runtime.getRuntime().availableProcessors();
    assertEquals(1, QueueService.defaultStreamThreads(0), "partitions unknown: one thread");
    assertEquals(1, QueueService.defaultStreamThreads(1), "one partition: one thread");
    assertEquals(Math.max(1, cores - 1), QueueService.defaultStreamThreads(1_000), "many partitions: cores - 1");
    assertEquals(Math.max(1, Math.min(cores - 1, 3)), QueueService.defaultStreamThreads(3));
  }

  /** Decisions D39: the early answers' producer reaches the cluster as the stream threads do, without a transaction. */
  @Test
  void theEarlyAnswersProducerTakesTheClusterSettingsButNoTransactionNorLinger() {
    Map<String, Object> streams = QueueService.streamsProperties(DEFAULTS, Map.of(
        "bootstrap.servers", "broker:9093",
        "security.protocol", "SASL_SSL",
        "sasl.mechanism", "SCRAM-SHA-512",
        "producer.sasl.mechanism", "PLAIN",
        "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required;",
        "producer.transactional.id", "not-for-answers",
        "producer.linger.ms", 100), 4);
    Map<String, Object> p = QueueService.earlyAnswerProducerConfig(streams, "ordo-queue");
    assertEquals("broker:9093", p.get("bootstrap.servers"));
    assertEquals("SASL_SSL", p.get("security.protocol"));
    assertEquals("PLAIN", p.get("sasl.mechanism"), "a producer.-prefixed setting wins, as for Kafka Streams' producers");
    assertEquals("org.apache.kafka.common.security.plain.PlainLoginModule required;", p.get("sasl.jaas.config"));
    assertFalse(p.containsKey("transactional.id"));
    assertEquals(0, p.get("linger.ms"));
    assertEquals(0, p.get("max.block.ms"), "never blocks the stream thread");
    assertEquals("1", p.get("acks"));
    assertEquals(false, p.get("enable.idempotence"));
    assertFalse(p.keySet().stream().anyMatch(k -> k.startsWith("ordo.") || k.startsWith("producer.")
        || k.equals("application.id") || k.equals("processing.guarantee")), "producer settings only: " + p.keySet());
  }

  /** Decisions D34: small fetches per partition for the stream threads, unless the user sets them. */
  @Test
  void theStreamThreadsFetchLittleOfAPartitionAtATimeUnlessTheUserSaysOtherwise() {
    Map<String, Object> ours = QueueService.streamsProperties(DEFAULTS, Map.of(), 4);
    assertEquals(QueueTopology.MAIN_CONSUMER_PARTITION_FETCH_BYTES, ours.get(StreamsConfig.mainConsumerPrefix(FETCH)));
    assertEquals(32_768, new StreamsConfig(withRequired(ours)).getMainConsumerConfigs("g", "c", 0).get(FETCH));

    for (String key : new String[] {FETCH, StreamsConfig.consumerPrefix(FETCH)}) {
      Map<String, Object> theirs = QueueService.streamsProperties(DEFAULTS, Map.of(key, 1_048_576), 4);
      assertFalse(theirs.containsKey(StreamsConfig.mainConsumerPrefix(FETCH)), key + " replaces Ordo's default");
      assertEquals(1_048_576, new StreamsConfig(withRequired(theirs)).getMainConsumerConfigs("g", "c", 0).get(FETCH),
          "the main consumer takes the user's " + key);
    }
    Map<String, Object> main = QueueService.streamsProperties(DEFAULTS,
        Map.of(StreamsConfig.mainConsumerPrefix(FETCH), 65_536), 4);
    assertEquals(65_536, new StreamsConfig(withRequired(main)).getMainConsumerConfigs("g", "c", 0).get(FETCH));
  }

  /**
   * Decisions D66: the stream threads' producers batch 256 KiB per partition, and under at-least-once
   * linger 5 ms; the user's setting of either, prefixed or not, replaces Ordo's.
   */
  @Test
  void theStreamThreadsProducersBatchLargeAndUnderAtLeastOnceLingerLittleUnlessTheUserSaysOtherwise() {
    String batch = ProducerConfig.BATCH_SIZE_CONFIG;
    String linger = ProducerConfig.LINGER_MS_CONFIG;
    Map<String, Object> eos = new StreamsConfig(withRequired(QueueService.streamsProperties(DEFAULTS, Map.of(), 4)))
        .getProducerConfigs("c");
    assertEquals(QueueTopology.STREAM_PRODUCER_BATCH_BYTES, eos.get(batch));
    assertEquals("100", String.valueOf(eos.get(linger)), "exactly-once: Kafka Streams' linger, the commit sends");

    Map<String, Object> alos = new StreamsConfig(withRequired(QueueService.streamsProperties(DEFAULTS,
        Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE), 4))).getProducerConfigs("c");
    assertEquals(QueueTopology.STREAM_PRODUCER_BATCH_BYTES, alos.get(batch));
    assertEquals(String.valueOf(QueueTopology.AT_LEAST_ONCE_PRODUCER_LINGER_MS), String.valueOf(alos.get(linger)));

    for (String prefix : new String[] {"", StreamsConfig.PRODUCER_PREFIX}) {
      Map<String, Object> theirs = new StreamsConfig(withRequired(QueueService.streamsProperties(DEFAULTS, Map.of(
          StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE, prefix + batch, 32_768,
          prefix + linger, 20), 4))).getProducerConfigs("c");
      assertEquals(32_768, theirs.get(batch), "the user's " + prefix + batch);
      assertEquals("20", String.valueOf(theirs.get(linger)), "the user's " + prefix + linger);
    }
    Map<String, Object> answers = QueueService.earlyAnswerProducerConfig(
        QueueService.streamsProperties(DEFAULTS, Map.of("bootstrap.servers", "broker:9093"), 4), "ordo-queue");
    assertEquals(16_384, answers.get(batch), "an answer goes alone: Kafka's batch size, not the stream producers'");
  }

  private static Map<String, Object> withRequired(Map<String, Object> props) {
    Map<String, Object> p = new java.util.HashMap<>(props);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    return p;
  }
}
