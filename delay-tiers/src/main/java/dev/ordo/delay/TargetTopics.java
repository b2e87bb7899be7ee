package dev.ordo.delay;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

/**
 * Whether a record's target topic and partition exist, for one transaction. Each topic is looked up
 * once ({@code partitionsFor}) and memoized: an unknown topic blocks the lookup until it times out.
 */
final class TargetTopics {
  private final Function<String, List<PartitionInfo>> partitionsFor;
  /** Per topic: its partition count (Integer), or why it cannot be written (String). */
  private final Map<String, Object> known = new HashMap<>();

  TargetTopics(Function<String, List<PartitionInfo>> partitionsFor) {
    this.partitionsFor = partitionsFor;
  }

  /**
   * Null when {@code target} (and {@code partition}, if not null) exist, else why not. A lookup error
   * other than a timeout, an invalid topic or a denied one is thrown: it is the cluster's, not the record's.
   */
  String problem(String target, Integer partition) {
    Object count = known.computeIfAbsent(target, t -> {
      try {
        return partitionsFor.apply(t).size();
      } catch (TimeoutException e) {
        return "target topic '" + t + "' not found: " + e.getMessage();
      } catch (KafkaException e) {
        if (e instanceof InvalidTopicException || e instanceof TopicAuthorizationException) {
          return "cannot write target topic '" + t + "': " + e;
        }
        throw e;
      }
    });
    if (count instanceof String problem) {
      return problem;
    }
    if (partition != null && partition >= (Integer) count) {
      return "target partition " + partition + " does not exist: '" + target + "' has " + count + " partitions";
    }
    return null;
  }
}
