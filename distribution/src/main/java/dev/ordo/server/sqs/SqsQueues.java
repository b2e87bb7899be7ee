package dev.ordo.server.sqs;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.auth.FollowedTopic;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQS queues of a cluster, on the compacted topic {@code <cluster>.sqs.queues} (decisions D53): one
 * record per queue keyed {@code <namespace>/<name>}, its attributes and tags as JSON, a tombstone when
 * deleted. Every instance reads the whole topic at start and follows it (as the principals), so a queue
 * made on one instance is seen by the others within a poll; a write returns once this instance has read
 * it back.
 */
public final class SqsQueues implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqsQueues.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FollowedTopic topic;
  private final Map<QueueRef, SqsQueue> queues = new ConcurrentHashMap<>();

  public SqsQueues(Map<String, Object> kafkaConfig, String topic) {
    this.topic = new FollowedTopic(kafkaConfig, topic, this::apply);
  }

  /** Reads every queue; returns once they are all here. */
  public void start() {
    topic.start();
  }


  public Optional<SqsQueue> get(QueueRef ref) {
    return Optional.ofNullable(queues.get(ref));
  }

  /** Every queue, by namespace and name. */
  public List<SqsQueue> all() {
    List<SqsQueue> out = new ArrayList<>(queues.values());
    out.sort(Comparator.comparing((SqsQueue q) -> q.ref().toString()));
    return out;
  }

  /** Writes {@code queue} (replacing one of the same name); returns once this instance holds it. */
  public void put(SqsQueue queue) {
    write(queue.ref(), encode(queue));
  }

  public void remove(QueueRef ref) {
    write(ref, null);
  }

  private void write(QueueRef ref, byte[] value) {
    topic.write(key(ref), value);
  }


  private static byte[] key(QueueRef ref) {
    return (ref.namespace() + "/" + ref.name()).getBytes(StandardCharsets.UTF_8);
  }

  private void apply(byte[] key, byte[] value) {
    String k = new String(key, StandardCharsets.UTF_8);
    int slash = k.lastIndexOf('/');
    if (slash <= 0) {
      LOG.warn("Ignoring a record of {} with key '{}': not <namespace>/<queue>", topic.topic(), k);
      return;
    }
    QueueRef ref = new QueueRef(k.substring(0, slash), k.substring(slash + 1));
    if (value == null) {
      queues.remove(ref);
      return;
    }
    try {
      queues.put(ref, decode(ref, value));
    } catch (IllegalArgumentException e) {
      LOG.warn("Ignoring a record of {} for queue {}: {}", topic.topic(), ref, e.getMessage());
    }
  }

  static byte[] encode(SqsQueue q) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("attributes", new java.util.TreeMap<>(q.attributes().values()));
    m.put("tags", new java.util.TreeMap<>(q.tags()));
    m.put("createdAt", q.createdAt());
    m.put("modifiedAt", q.modifiedAt());
    m.put("moveTasks", q.moveTasks());
    try {
      return JSON.writeValueAsBytes(m);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static SqsQueue decode(QueueRef ref, byte[] value) {
    try {
      Map<String, Object> m = JSON.readValue(value, new TypeReference<Map<String, Object>>() { });
      @SuppressWarnings("unchecked")
      Map<String, String> attributes = (Map<String, String>) m.getOrDefault("attributes", Map.of());
      @SuppressWarnings("unchecked")
      Map<String, String> tags = (Map<String, String>) m.getOrDefault("tags", Map.of());
      @SuppressWarnings("unchecked")
      List<String> moveTasks = (List<String>) m.getOrDefault("moveTasks", List.of());
      return new SqsQueue(ref, new QueueAttributes(Map.copyOf(attributes)), tags,
          ((Number) m.getOrDefault("createdAt", 0L)).longValue(), ((Number) m.getOrDefault("modifiedAt", 0L)).longValue(),
          moveTasks);
    } catch (IOException | ClassCastException e) {
      throw new IllegalArgumentException("not a queue record: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    topic.close();
  }
}
