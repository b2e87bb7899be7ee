package dev.ordo.server.sqs;

import java.util.Map;

/** A queue as {@code <cluster>.sqs.queues} holds it: where it lives, its attributes and tags, and when it was made and changed. */
public record SqsQueue(QueueRef ref, QueueAttributes attributes, Map<String, String> tags, long createdAt,
    long modifiedAt) {
  public SqsQueue {
    tags = Map.copyOf(tags);
  }
}
