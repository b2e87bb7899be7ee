package dev.ordo.server.sqs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A queue as {@code <cluster>.sqs.queues} holds it: where it lives, its attributes and tags, when it was
 * made and changed, and the handles of its latest message move tasks (as a dead-letter queue, newest
 * last, at most {@value #MOVE_TASKS_KEPT}).
 */
public record SqsQueue(QueueRef ref, QueueAttributes attributes, Map<String, String> tags, long createdAt,
    long modifiedAt, List<String> moveTasks) {
  static final int MOVE_TASKS_KEPT = 10;

  public SqsQueue {
    tags = Map.copyOf(tags);
    moveTasks = List.copyOf(moveTasks);
  }

  public SqsQueue(QueueRef ref, QueueAttributes attributes, Map<String, String> tags, long createdAt) {
    this(ref, attributes, tags, createdAt, createdAt, List.of());
  }

  public SqsQueue withAttributes(QueueAttributes changed, long now) {
    return new SqsQueue(ref, changed, tags, createdAt, now, moveTasks);
  }

  public SqsQueue withTags(Map<String, String> changed, long now) {
    return new SqsQueue(ref, attributes, changed, createdAt, now, moveTasks);
  }

  public SqsQueue withMoveTask(String handle) {
    List<String> all = new ArrayList<>(moveTasks);
    all.add(handle);
    return new SqsQueue(ref, attributes, tags, createdAt, modifiedAt,
        all.subList(Math.max(0, all.size() - MOVE_TASKS_KEPT), all.size()));
  }
}
