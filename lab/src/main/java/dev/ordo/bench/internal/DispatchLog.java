package dev.ordo.bench.internal;

import dev.ordo.bench.internal.FairOrder.Dispatch;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliveredItems;
import dev.ordo.schema.Delivery;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The order in which one queue partition dispatched its items, read back from the cluster's
 * {@code deliveries} topic after the fact. A lease consumer asks each queue partition {@code p} it
 * owns for items with {@code p} as the reply partition, and the partition's stream task writes
 * what it leases there in the order it leased it (a {@code DeliveredItems} record holds one
 * dispatch's items in order): so {@code deliveries} partition {@code p}, read committed, is
 * {@code p}'s dispatch order. Exact while one consumer holds the partition's demand: the queue
 * writes what one processing step leased requester by requester, so two requesters served in one
 * step (a hand-over) would appear one after the other. Nothing reads it while the bench measures.
 */
final class DispatchLog {
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  private DispatchLog() {}

  /** The committed end of {@code deliveries} partition {@code partition}: where the next dispatch will be read from. */
  static long end(BenchKafka kafka, String deliveries, int partition) {
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      TopicPartition tp = new TopicPartition(deliveries, partition);
      return c.endOffsets(List.of(tp)).get(tp);
    }
  }

  /**
   * The items dispatched on {@code partition} between the offsets {@code from} and {@code to} of
   * {@code deliveries} (two {@link #end} readings), in order; outcomes are skipped. The group key and
   * the payload's sequence number identify each.
   *
   * @throws IllegalStateException when the records cannot be read within two minutes
   */
  static List<Dispatch> read(BenchKafka kafka, String deliveries, int partition, long from, long to) {
    List<Dispatch> out = new ArrayList<>();
    TopicPartition tp = new TopicPartition(deliveries, partition);
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      c.assign(List.of(tp));
      c.seek(tp, from);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (c.position(tp) < to) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("read deliveries partition " + partition + " to " + c.position(tp)
              + " of " + to + " in " + TIMEOUT.toSeconds() + " s");
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(POLL)) {
          if (r.offset() >= to) {
            break;
          }
          Object body = OrdoSerdes.DELIVERY.decode(r.value()).getBody();
          if (body instanceof DeliveredItem item) {
            out.add(dispatch(item));
          } else if (body instanceof DeliveredItems items) {
            items.getItems().forEach(i -> out.add(dispatch(i)));
          }
        }
      }
    }
    return out;
  }

  private static Dispatch dispatch(DeliveredItem item) {
    ByteBuffer payload = item.getPayload().duplicate();
    long sequence = payload.remaining() >= Payloads.HEADER ? payload.getLong(payload.position()) : -1;
    return new Dispatch(item.getGroupKey(), sequence, item.getLeaseExpiresAt());
  }

  private static KafkaConsumer<byte[], byte[]> consumer(BenchKafka kafka) {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
