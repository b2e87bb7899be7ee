package dev.ordo.topology.internal;

import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.TopicNameExtractor;

/**
 * The key of every record the queue processor emits: where it goes (topic, and partition when
 * it must land on a given one, such as a requester's reply partition) and the key bytes Kafka
 * stores. One dynamic sink routes on it.
 */
public record Out(String topic, Integer partition, byte[] key) {
  public static final TopicNameExtractor<Out, byte[]> TOPIC = (out, value, ctx) -> out.topic();

  public static final Serializer<Out> KEY_SERIALIZER = (topic, out) -> out == null ? null : out.key();

  /** Explicit partition when set, else Kafka's default partitioning of the key bytes. */
  public static final StreamPartitioner<Out, byte[]> PARTITIONER = new StreamPartitioner<>() {
    @Override
    public Optional<Set<Integer>> partitions(String topic, Out out, byte[] value, int numPartitions) {
      if (out.partition() == null) {
        return Optional.empty();
      }
      return Optional.of(Set.of(out.partition()));
    }
  };


}
