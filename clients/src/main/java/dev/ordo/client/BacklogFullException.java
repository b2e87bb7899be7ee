package dev.ordo.client;

/**
 * An enqueue refused because the namespace's backlog is at its limit (its policy's
 * {@code maxBacklog}, or {@link QueueProducerConfig#BACKLOG_MAX_ITEMS_CONFIG}); nothing was written. Retriable: try again
 * once consumers have caught up.
 */
public final class BacklogFullException extends RuntimeException {
  private final String namespace;
  private final long backlog;
  private final long limit;

  public BacklogFullException(String namespace, long backlog, long limit) {
    super("namespace " + namespace + " has " + backlog + " items waiting, at or over the limit of " + limit);
    this.namespace = namespace;
    this.backlog = backlog;
    this.limit = limit;
  }

  public String namespace() {
    return namespace;
  }

  public long backlog() {
    return backlog;
  }

  public long limit() {
    return limit;
  }
}
