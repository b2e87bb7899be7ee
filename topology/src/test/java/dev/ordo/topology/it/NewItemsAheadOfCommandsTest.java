package dev.ordo.topology.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.CommandOrder;
import dev.ordo.api.ItemId;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Item;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.QueueService;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * A partition's task takes the older of the heads of its items and commands partitions. Here a
 * command (a cancel of the item) was sent 500 ms before the item it names, and both wait on the
 * broker when the queue starts: with the intake lead (1 s by default) the item is taken in first and
 * the cancel applies; with no lead the cancel comes first and finds nothing. The same holds for the
 * thousands of acks and demands queued under load ahead of a new item (decisions D25).
 *
 * <p>A command whose record carries {@link CommandOrder#HEADER} (an ack, a nack, an extension, a
 * release, a standing demand: decisions D46) is not held behind a lagging intake: here an ack sent
 * after a backlog of 5,000 items, all on the broker before the queue starts (their timestamps a minute
 * old, so the intake lags), names the backlog's last item; marked, it goes right after the items read
 * with it and finds that item not yet taken in; unmarked, it waits for the whole backlog and finds the
 * item READY (not under its lease).
 */
@KafkaCluster
class NewItemsAheadOfCommandsTest {
  @Test
  void withTheLeadANewItemIsTakenInAheadOfOlderCommands(RealKafka kafka) throws Exception {
    assertEquals(OutcomeResult.APPLIED, cancelSentBeforeItsItem(kafka, "lead", null));
  }

  @Test
  void withoutTheLeadTheOlderCommandComesFirst(RealKafka kafka) throws Exception {
    assertEquals(OutcomeResult.UNKNOWN_ITEM, cancelSentBeforeItsItem(kafka, "nolead", 0L));
  }

  @Test
  void anAckMarkedToGoFirstIsNotHeldBehindABacklogOfItemsEnqueuedBeforeIt(RealKafka kafka) throws Exception {
    assertEquals(OutcomeResult.UNKNOWN_ITEM, ackSentAfterABacklog(kafka, "first", true));
  }

  @Test
  void anAckWithoutTheHeaderWaitsForTheWholeBacklog(RealKafka kafka) throws Exception {
    assertEquals(OutcomeResult.STALE_LEASE, ackSentAfterABacklog(kafka, "unmarked", false));
  }

  /** The outcome of a cancel sent 500 ms before its item, both on the broker before the queue starts. */
  private static OutcomeResult cancelSentBeforeItsItem(RealKafka kafka, String cluster, Long leadMs) throws Exception {
    long t0 = System.currentTimeMillis() - 60_000;
    Command cancel = new Command(new Requester("canceller", 0), t0, new Cancel(new ItemId(0, 0).toString()), false, null);
    ClusterTopics topics = new ClusterTopics(cluster);
    return outcomeOf(kafka, cluster, leadMs,
        new ProducerRecord<>(topics.commands(), 0, t0, null, OrdoSerdes.COMMAND.encode(cancel)), t0 + 500, 1, false);
  }

  /** Items of the backlog an ack is sent after: more than the queue takes in while the ack is on its way. */
  private static final int BACKLOG = 20_000;

  /**
   * The outcome of an ack of the last of {@link #BACKLOG} items, enqueued a minute ago 1 ms apart
   * (so the intake lags), the ack sent once the queue has taken the first in; {@code first}: with
   * the header.
   */
  private static OutcomeResult ackSentAfterABacklog(RealKafka kafka, String cluster, boolean first) throws Exception {
    long t0 = System.currentTimeMillis() - 60_000;
    Command ack = new Command(new Requester("acker", 0), System.currentTimeMillis(),
        new Ack(new ItemId(0, BACKLOG - 1).toString(), "lease"), false, null);
    ClusterTopics topics = new ClusterTopics(cluster);
    ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.commands(), 0, null, null,
        OrdoSerdes.COMMAND.encode(ack));
    if (first) {
      record.headers().add(CommandOrder.HEADER, CommandOrder.first());
    }
    return outcomeOf(kafka, cluster, null, record, t0, BACKLOG, true);
  }

  /**
   * Writes {@code command}, then {@code items} items enqueued at {@code itemAt} (and 1 ms apart), and
   * only then starts the queue (with {@code leadMs}, or its default when null), so both wait buffered
   * when its task first reads them: the outcome of the one command shows which the task took first.
   * {@code afterIntakeStarts}: the command is written once the queue has taken in its first item.
   */
  private static OutcomeResult outcomeOf(RealKafka kafka, String cluster, Long leadMs,
      ProducerRecord<byte[], byte[]> command, long itemAt, int items, boolean afterIntakeStarts) throws Exception {
    ClusterTopics topics = new ClusterTopics(cluster);
    kafka.createTopics(1, topics.items(), topics.commands(), topics.deliveries(), topics.dlq(), topics.topicStats(),
        topics.namespaces());
    Properties cp = kafka.clientProperties();
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.clientProperties(),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      if (!afterIntakeStarts) {
        producer.send(command).get(30, TimeUnit.SECONDS);
      }
      Item item = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(0)
          .setPayload(ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8))).build();
      byte[] encoded = OrdoSerdes.ITEM.encode(item);
      java.util.concurrent.Future<?> last = null;
      for (int i = 0; i < items; i++) {
        last = producer.send(new ProducerRecord<>(topics.items(), 0, itemAt + i, null, encoded));
      }
      last.get(30, TimeUnit.SECONDS);
    }
    Map<String, Object> queueProps = leadMs == null
        ? Map.of(QueueConfig.CLUSTER_CONFIG, cluster)
        : Map.of(QueueConfig.CLUSTER_CONFIG, cluster, QueueConfig.INTAKE_LEAD_MS_CONFIG, leadMs);
    try (QueueService queue = new QueueService(
            Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ordo-lead").toString()),
            queueProps, 1);
        KafkaConsumer<byte[], byte[]> replies = new KafkaConsumer<>(cp, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      queue.start();
      if (afterIntakeStarts) {
        await().atMost(Duration.ofSeconds(60)).until(() -> queue.metrics().get(QueueMetrics.ENQUEUED) >= 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.clientProperties(),
            new ByteArraySerializer(), new ByteArraySerializer())) {
          producer.send(command).get(30, TimeUnit.SECONDS);
        }
      }
      replies.assign(List.of(new TopicPartition(topics.deliveries(), 0)));
      List<Outcome> outcomes = new ArrayList<>();
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        for (ConsumerRecord<byte[], byte[]> r : replies.poll(Duration.ofMillis(100))) {
          Delivery d = OrdoSerdes.DELIVERY.decode(r.value());
          if (d.getBody() instanceof Outcome o) {
            outcomes.add(o);
          }
        }
        return !outcomes.isEmpty();
      });
      assertEquals(1, outcomes.size(), "one command, one outcome: " + outcomes);
      return outcomes.get(0).getResult();
    }
  }
}
